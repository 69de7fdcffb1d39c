//! The JSON API the page calls (docs/explore.md): every call is a POST of
//! a JSON object naming its session; every answer is JSON, errors as
//! `{"error": "..."}` with a 4xx status, never a crash.

use super::launch::Launch;
use super::session::{Exploration, Stopped};
use super::verify_job::Job;
use super::view;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

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

/// A session: its exploration and its last verify.
struct Entry {
    x: Exploration,
    job: Option<Job>,
}

/// The sessions, each behind a lock of its own: requests of different
/// sessions are served at once, those of one session in turn.
#[derive(Default)]
struct Sessions {
    map: HashMap<String, Arc<Mutex<Entry>>>,
    /// Sessions, oldest first.
    order: VecDeque<String>,
    made: u64,
}

/// The sessions and their verify jobs.
pub(super) struct Api {
    launch: Launch,
    source: String,
    witness: Option<(String, String, String)>,
    sessions: Mutex<Sessions>,
}

/// A lock, even where a call that panicked poisoned it: that call was
/// answered with an error, and the session goes on from where it left it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
            sessions: Mutex::new(Sessions::default()),
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
    pub(super) fn handle(&self, call: &str, body: &str) -> Answer {
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

    fn dispatch(&self, call: &str, r: &Value) -> Result<Value, Failure> {
        if call == "session" {
            return self.new_session();
        }
        let id = text(r, "session")?.to_string();
        let entry = self.entry(&id)?;
        let mut entry = lock(&entry);
        let Entry { x, job } = &mut *entry;
        let answer = match call {
            "state" => Ok(json!({})),
            "instance" => return Ok(view::instance(x)),
            "step" => x.step_line(text(r, "line")?).map(|_| json!({})),
            "daemon_step" => x.daemon_step().map(|moved| json!({ "moved": moved })),
            "goto" => x.go_to(count(r, "node")? as usize).map(|_| json!({})),
            "run" => run(x, r),
            "daemon" => x.set_daemon(text(r, "daemon")?).map(|_| json!({})),
            "eval" => return Ok(json!({ "value": x.evaluate(text(r, "expr")?)? })),
            "why" => return Ok(json!({ "text": x.why(count(r, "process")? as usize)? })),
            "save" => {
                let (init, sched) = x.saved()?;
                return Ok(json!({ "init": init, "sched": sched }));
            }
            "program" => {
                x.edit(text(r, "source")?.to_string())?;
                return Ok(json!({ "instance": view::instance(x), "state": view::state(x)? }));
            }
            "verify" => return self.verify(&id, x, job),
            "verify_status" => {
                let job = job
                    .as_ref()
                    .ok_or_else(|| Failure(409, "no verify was started in this session".into()))?;
                return Ok(job.status());
            }
            "open" => {
                let name = text(r, "witness")?;
                let job = job
                    .as_ref()
                    .ok_or_else(|| Failure(409, "no verify was run in this session".into()))?;
                let (init, sched) = job.witness(name)?;
                x.open_path(name, &init, &sched).map(|_| json!({}))
            }
            other => {
                return Err(Failure(
                    404,
                    format!("there is no call `{other}` (docs/explore.md lists them)"),
                ))
            }
        }?;
        // Every call that changes the exploration answers with its state.
        let mut answer = answer;
        answer["state"] = view::state(x)?;
        Ok(answer)
    }

    /// Session `id`.
    fn entry(&self, id: &str) -> Result<Arc<Mutex<Entry>>, Failure> {
        lock(&self.sessions).map.get(id).cloned().ok_or_else(|| {
            Failure(
                404,
                format!("there is no session `{id}` (start one with /api/session)"),
            )
        })
    }

    fn new_session(&self) -> Result<Value, Failure> {
        // Built before the sessions are locked: it may take a while.
        let x = self.fresh()?;
        let answer = json!({ "instance": view::instance(&x), "state": view::state(&x)? });
        let mut sessions = lock(&self.sessions);
        sessions.made += 1;
        let id = format!("s{}", sessions.made);
        while sessions.order.len() >= MOST_SESSIONS {
            if let Some(old) = sessions.order.pop_front() {
                sessions.map.remove(&old);
            }
        }
        let entry = Entry { x, job: None };
        sessions.map.insert(id.clone(), Arc::new(Mutex::new(entry)));
        sessions.order.push_back(id.clone());
        let mut answer = answer;
        answer["session"] = json!(id);
        Ok(answer)
    }

    fn verify(&self, id: &str, x: &Exploration, job: &mut Option<Job>) -> Result<Value, Failure> {
        if job.as_ref().is_some_and(Job::running) {
            return Err(Failure(409, "a verify is running in this session".into()));
        }
        let args = x.launch.verify_args(x.sim());
        let name = std::path::Path::new(&self.launch.program)
            .file_name()
            .map_or("program.gc".into(), |n| n.to_string_lossy().to_string());
        // The last job and its folder go first.
        *job = None;
        let started = Job::start(x.source(), &name, &args, super::verify_job::folder(id))?;
        let status = started.status();
        *job = Some(started);
        Ok(status)
    }
}

/// Lets the daemon take the steps `r` asks for.
fn run(x: &mut Exploration, r: &Value) -> Result<Value, String> {
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
