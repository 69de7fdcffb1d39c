//! The JSON API the page calls (docs/explore.md): every call is a POST of
//! a JSON object naming its session; every answer is JSON, errors as
//! `{"error": "..."}` with a 4xx status, never a crash.

use super::launch::Launch;
use super::session::{Exploration, Stopped};
use super::verify_job::Job;
use super::view;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};

/// The most sessions kept at once; the oldest goes first.
const MOST_SESSIONS: usize = 32;

const JSON: &str = "application/json";

/// An answer: status, content type, body.
pub(super) type Answer = (u16, &'static str, String);

/// An error answer.
pub(super) fn error(status: u16, message: &str) -> Answer {
    (status, JSON, json!({ "error": message }).to_string())
}

/// A failed call: its status and message.
struct Failure(u16, String);

impl From<String> for Failure {
    /// What the exploration refuses (a move not allowed, an expression
    /// that does not check, a program with errors).
    fn from(message: String) -> Self {
        Failure(422, message)
    }
}

/// The sessions and their verify jobs.
pub(super) struct Api {
    launch: Launch,
    source: String,
    witness: Option<(String, String, String)>,
    sessions: HashMap<String, Exploration>,
    jobs: HashMap<String, Job>,
    /// Sessions, oldest first.
    order: VecDeque<String>,
    made: u64,
}

impl Api {
    /// The API of explorations of `source` as `launch` sets them up; an
    /// error if one cannot start.
    pub(super) fn new(
        launch: Launch,
        source: String,
        witness: Option<(String, String, String)>,
    ) -> Result<Api, String> {
        let api = Api {
            launch,
            source,
            witness,
            sessions: HashMap::new(),
            jobs: HashMap::new(),
            order: VecDeque::new(),
            made: 0,
        };
        api.fresh()?;
        Ok(api)
    }

    /// A new exploration, as a new session sees it.
    fn fresh(&self) -> Result<Exploration, String> {
        let mut x = Exploration::new(self.launch.clone(), self.source.clone())?;
        if let Some((name, init, sched)) = &self.witness {
            x.open_path(name, init, sched)?;
        }
        Ok(x)
    }

    /// Answers call `call` (the path after `/api/`) with JSON `body`.
    pub(super) fn handle(&mut self, call: &str, body: &str) -> Answer {
        let request: Value =
            match serde_json::from_str(if body.trim().is_empty() { "{}" } else { body }) {
                Ok(v @ Value::Object(_)) => v,
                Ok(_) => return error(400, "the body must be a JSON object"),
                Err(e) => return error(400, &format!("the body is not JSON: {e}")),
            };
        match self.dispatch(call, &request) {
            Ok(v) => (200, JSON, v.to_string()),
            Err(Failure(status, message)) => error(status, &message),
        }
    }

    fn dispatch(&mut self, call: &str, r: &Value) -> Result<Value, Failure> {
        if call == "session" {
            return self.new_session();
        }
        let id = text(r, "session")?.to_string();
        let answer = match call {
            "state" => Ok(json!({})),
            "instance" => {
                let x = self.session(&id)?;
                return Ok(view::instance(x));
            }
            "step" => {
                let line = text(r, "line")?.to_string();
                self.session(&id)?.step_line(&line).map(|_| json!({}))
            }
            "daemon_step" => self
                .session(&id)?
                .daemon_step()
                .map(|moved| json!({ "moved": moved })),
            "goto" => {
                let node = count(r, "node")? as usize;
                self.session(&id)?.go_to(node).map(|_| json!({}))
            }
            "run" => self.run(&id, r),
            "daemon" => {
                let name = text(r, "daemon")?.to_string();
                self.session(&id)?.set_daemon(&name).map(|_| json!({}))
            }
            "eval" => {
                let expr = text(r, "expr")?.to_string();
                let value = self.session(&id)?.evaluate(&expr)?;
                return Ok(json!({ "value": value }));
            }
            "save" => {
                let (init, sched) = self.session(&id)?.saved()?;
                return Ok(json!({ "init": init, "sched": sched }));
            }
            "program" => {
                let source = text(r, "source")?.to_string();
                let x = self.session(&id)?;
                x.edit(source)?;
                return Ok(json!({ "instance": view::instance(x), "state": view::state(x)? }));
            }
            "verify" => return self.verify(&id),
            "verify_status" => {
                self.session(&id)?;
                let job = self
                    .jobs
                    .get(&id)
                    .ok_or_else(|| Failure(409, "no verify was started in this session".into()))?;
                return Ok(job.status());
            }
            "open" => {
                let name = text(r, "witness")?.to_string();
                let job = self
                    .jobs
                    .get(&id)
                    .ok_or_else(|| Failure(409, "no verify was run in this session".into()))?;
                let (init, sched) = job.witness(&name)?;
                let x = self
                    .sessions
                    .get_mut(&id)
                    .ok_or_else(|| Failure(404, format!("there is no session `{id}`")))?;
                x.open_path(&name, &init, &sched).map(|_| json!({}))
            }
            other => {
                return Err(Failure(
                    404,
                    format!("there is no call `{other}` (docs/explore.md lists them)"),
                ))
            }
        }?;
        // Every call that changes the exploration answers with its state.
        let x = self.session(&id)?;
        let mut answer = answer;
        answer["state"] = view::state(x)?;
        Ok(answer)
    }

    fn session(&mut self, id: &str) -> Result<&mut Exploration, Failure> {
        self.sessions.get_mut(id).ok_or_else(|| {
            Failure(
                404,
                format!("there is no session `{id}` (start one with /api/session)"),
            )
        })
    }

    fn new_session(&mut self) -> Result<Value, Failure> {
        let x = self.fresh()?;
        self.made += 1;
        let id = format!("s{}", self.made);
        while self.order.len() >= MOST_SESSIONS {
            if let Some(old) = self.order.pop_front() {
                self.sessions.remove(&old);
                self.jobs.remove(&old);
            }
        }
        let answer = json!({
            "session": id,
            "instance": view::instance(&x),
            "state": view::state(&x)?,
        });
        self.sessions.insert(id.clone(), x);
        self.order.push_back(id);
        Ok(answer)
    }

    fn run(&mut self, id: &str, r: &Value) -> Result<Value, String> {
        let steps = match r.get("steps") {
            None | Some(Value::Null) => super::MOST_STEPS_A_RUN,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| "`steps` must be a count".to_string())?,
        };
        let until = match r.get("until") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err("`until` must be an expression (a string)".into()),
        };
        let breaks: Vec<String> = match r.get("breaks") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|b| b.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| "`breaks` must be a list of expressions".to_string())?,
            Some(_) => return Err("`breaks` must be a list of expressions".into()),
        };
        let x = self
            .sessions
            .get_mut(id)
            .ok_or_else(|| format!("there is no session `{id}`"))?;
        let (taken, stopped) = x.run(steps, until.as_deref(), &breaks)?;
        let why = match stopped {
            Stopped::Steps => "steps".to_string(),
            Stopped::Silent => "silent".to_string(),
            Stopped::Until => "until".to_string(),
            Stopped::Break(b) => format!("break: {b}"),
            Stopped::Error(e) => format!("error: {e}"),
        };
        Ok(json!({ "taken": taken, "stopped": why }))
    }

    fn verify(&mut self, id: &str) -> Result<Value, Failure> {
        let x = self.session(id)?;
        let (source, args) = (x.source().to_string(), x.launch.verify_args(x.sim()));
        if let Some(job) = self.jobs.get(id) {
            if job.status()["running"] == json!(true) {
                return Err(Failure(409, "a verify is running in this session".into()));
            }
        }
        let dir = super::verify_job::folder(id);
        let name = std::path::Path::new(&self.launch.program)
            .file_name()
            .map_or("program.gc".into(), |n| n.to_string_lossy().to_string());
        let job = Job::start(&source, &name, &args, dir)?;
        let status = job.status();
        self.jobs.insert(id.to_string(), job);
        Ok(status)
    }
}

/// Field `key` of the request, a string.
fn text<'a>(r: &'a Value, key: &str) -> Result<&'a str, Failure> {
    r.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Failure(400, format!("the request needs `{key}`, a string")))
}

/// Field `key` of the request, a count.
fn count(r: &Value, key: &str) -> Result<u64, Failure> {
    r.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| Failure(400, format!("the request needs `{key}`, a count")))
}
