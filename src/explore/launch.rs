//! How the command line set an exploration up: the instance, the start,
//! the daemon and the choice, kept to build it again when the page edits
//! the program or opens a path.

use crate::load::Setup;
use crate::runtime::daemon::Daemon;
use crate::runtime::engine::{Choice, Simulation};
use crate::runtime::init::InitMode;
use crate::syntax::ast;
use crate::topology::Ids;

/// The command line's set-up of an exploration.
#[derive(Clone)]
pub struct Launch {
    /// The program's path, as named.
    pub program: String,
    /// Topology, parameters, ids and seed.
    pub setup: Setup,
    /// The start asked for (`None`: the program's default).
    pub init: Option<InitMode>,
    /// `--set` assignments.
    pub sets: Vec<String>,
    /// The daemon asked for (`None`: the program's default).
    pub daemon: Option<Daemon>,
    /// The first enabled move, or one at random, when the daemon chooses.
    pub choice: Choice,
    /// The seed of the daemon's choices.
    pub seed: u64,
    /// The command line's `--memory-limit`, for the verify runs.
    pub memory_limit: Option<u64>,
    /// The files the command line named (a `file:` or `dot:` topology): the
    /// only ones a program, as edited on the page, may have read.
    pub files: Vec<(String, String)>,
}

impl Launch {
    /// The simulation of `source` at its start (`init` if given, else the
    /// command line's), and the program's syntax tree; or the diagnostics
    /// as the command line prints them, without colour.
    pub fn build(
        &self,
        source: &str,
        init: Option<&InitMode>,
    ) -> Result<(Simulation, ast::Program), String> {
        let read = |path: &str| -> Result<String, String> {
            match self.files.iter().find(|(p, _)| p == path) {
                Some((_, text)) => Ok(text.clone()),
                None => Err(format!(
                    "`{path}` was not named on the command line, and the explorer reads no other file"
                )),
            }
        };
        let render = |e: crate::load::LoadError| e.render(&self.program, source, true);
        let mut inst = crate::load::load(source, &self.setup, &read).map_err(render)?;
        let mode = init
            .or(self.init.as_ref())
            .cloned()
            .unwrap_or_else(|| inst.default_init());
        let start = inst.initial(&mode, &self.sets).map_err(render)?;
        let daemon = self.daemon.clone().unwrap_or_else(|| inst.default_daemon());
        let most = crate::export::html::MAX_PROCESSES;
        if inst.topology().n() > most {
            return Err(format!(
                "error: the explorer draws at most {most} processes; this instance has {} (explore a smaller one, or run it with `guarded run`)",
                inst.topology().n()
            ));
        }
        let ast = (*inst.ast).clone();
        let sim = inst.simulate(start, daemon, self.choice).map_err(render)?;
        Ok((sim, ast))
    }
}

impl Launch {
    /// The arguments that give `guarded verify` the instance `sim` is of:
    /// topology, seed, ids and every parameter's value, and the daemon.
    pub fn verify_args(&self, sim: &Simulation) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(t) = &self.setup.topology {
            args.extend(["--topology".to_string(), t.clone()]);
        }
        args.extend(["--seed".to_string(), self.setup.seed.to_string()]);
        let ids = match &self.setup.ids {
            Ids::Index => None,
            Ids::Shuffled => Some("random".to_string()),
            Ids::Random(lo, hi) => Some(format!("random:{lo}..{hi}")),
            Ids::List(l) => Some(l.iter().map(i64::to_string).collect::<Vec<_>>().join(",")),
        };
        if let Some(ids) = ids {
            args.extend(["--ids".to_string(), ids]);
        }
        for (name, value) in sim.params() {
            args.extend(["--param".to_string(), format!("{name}={value}")]);
        }
        if let Some(m) = self.memory_limit {
            args.extend(["--memory-limit".to_string(), m.to_string()]);
        }
        if !sim.runs_in_ticks() {
            args.extend(["--daemon".to_string(), sim.daemon().name().to_string()]);
        }
        args
    }
}

/// A daemon by name, as the explorer takes one: not a schedule (the
/// explorer opens a schedule as a path instead).
pub fn parse_daemon(name: &str) -> Result<Daemon, String> {
    if name.starts_with("schedule") {
        return Err("the explorer lets you choose the moves: open a schedule as a path (`--witness DIR/NAME`, or from a verify result) instead of a schedule daemon".into());
    }
    Daemon::parse(name, &|_| Err("no file is read here".into()))
}
