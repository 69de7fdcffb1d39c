//! Front end: the interactive REPL. [`Session`] holds a simulation and
//! executes one command line at a time, writing its answer into a string, so
//! the same code serves a terminal (`line.rs`, with rustyline) and scripted
//! standard input (golden transcripts).

mod change;
mod inspect;
pub mod line;
mod moving;
mod shown;
mod stepper;
mod undo;
mod why_not;

use stepper::{print_watches, report_step, Stepper};

use crate::check::{self, ir::Ty};
use crate::compile::{self, GlobalFn};
use crate::diagnostic::render;
use crate::runtime::daemon::{Daemon, DAEMONS};
use crate::runtime::engine::{RunError, Simulation, Snapshot};
use crate::runtime::init;
use crate::runtime::run::{Limits, Stop};
use crate::syntax::{self, ast};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C; a long `run` checks it between steps.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Other tools' words for the commands, and what says it here: a user
/// typing `undo` or `why 3` learns the name rather than a spelling.
const SYNONYMS: &[(&str, &str)] = &[
    ("undo", "`back` undoes steps and changes"),
    ("why", "`fire P` says why process P cannot move"),
    ("next", "did you mean `step`?"),
    ("n", "did you mean `step`?"),
    ("continue", "did you mean `run`?"),
    ("c", "did you mean `run`?"),
    ("go", "did you mean `run`?"),
    ("print", "`show` prints values, `eval EXPR` an expression"),
    (
        "list",
        "`show` prints the configuration, `enabled` who may move",
    ),
    (
        "ls",
        "`show` prints the configuration, `enabled` who may move",
    ),
    (
        "history",
        "the lines typed are kept between sessions: the up arrow recalls them",
    ),
    ("restart", "did you mean `reset`?"),
];

/// The commands, their arguments and what they do: `help` prints these.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "step",
        "[N]",
        "take N steps (default 1) under the current daemon",
    ),
    (
        "fire",
        "P [ACTION[@MEMBER]]",
        "make process P move (with ACTION if given, for its binder's MEMBER; `ACTION<1,0>` gives the values drawn); says why it cannot",
    ),
    (
        "run",
        "[N] [until EXPR]",
        "step until EXPR holds, a breakpoint, silence, or N steps (default 100000)",
    ),
    (
        "show",
        "[P | P.VAR | VAR]",
        "the configuration, one process, one variable of one or all processes",
    ),
    (
        "enabled",
        "",
        "the enabled processes and their enabled actions",
    ),
    (
        "eval",
        "EXPR",
        "evaluate an expression over the configuration (as in `legitimate:`); a tuple or a set (`{q in procs : q.x == 0}`) is shown whole",
    ),
    (
        "set",
        "P.VAR = VALUE",
        "change a value (fault injection; `*` for every process; `set 0->1 = find(2) find(0)` fills a channel, head first); domain-checked; ends the round under way (it still counts)",
    ),
    (
        "corrupt",
        "N",
        "give N random processes random values in every variable",
    ),
    ("daemon", "[NAME]", "show or switch the daemon:"),
    ("seed", "N", "restart the random generator from seed N"),
    (
        "watch",
        "[EXPR]",
        "print EXPR after every step; without EXPR, list the watches",
    ),
    ("unwatch", "[K]", "remove watch K (default: all)"),
    (
        "break",
        "[EXPR]",
        "stop `run` when EXPR becomes true; without EXPR, list breakpoints",
    ),
    ("unbreak", "[K]", "remove breakpoint K (default: all)"),
    (
        "back",
        "[N]",
        "undo N steps or changes (default 1), exactly, random generator included",
    ),
    ("reset", "", "go back to the initial configuration"),
    (
        "measures",
        "",
        "steps, moves, rounds, legitimacy and stabilization so far",
    ),
    (
        "save",
        "FILE",
        "write the configuration (the format `run --init FILE` reads)",
    ),
    ("load", "FILE", "read a configuration file"),
    ("help", "[COMMAND]", "this list, or one command"),
    ("quit", "", "leave (Ctrl-D too)"),
];

/// About how much memory the undo history may hold; the oldest entries go first.
const UNDO_BYTES: usize = 256 << 20;

/// What the driver should do after a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Control {
    /// Read the next line.
    Continue,
    /// The command failed (its error is in the output); read the next line.
    Failed,
    /// Leave the REPL.
    Quit,
}

/// A condition over the configuration, compiled ([`Session::condition`]).
pub struct Condition {
    /// As typed.
    pub text: String,
    code: GlobalFn,
    locals: usize,
}

struct Watch {
    text: String,
    code: shown::ShownFn,
    locals: usize,
}

/// A REPL session over one program and topology.
pub struct Session {
    sim: Simulation,
    program: String,
    source: String,
    ast: ast::Program,
    initial: Snapshot,
    undo: undo::Undo,
    watches: Vec<Watch>,
    breaks: Vec<Condition>,
    color: bool,
}

fn type_of(f: &GlobalFn) -> Ty {
    match f {
        GlobalFn::Int(_, ty) => *ty,
        GlobalFn::Bool(_) => Ty::Bool,
    }
}

impl Session {
    /// A session on a simulation at its start; `ast` is the program's AST,
    /// for checking expressions typed at the prompt.
    pub fn new(
        sim: Simulation,
        ast: ast::Program,
        program: String,
        source: String,
        color: bool,
    ) -> Self {
        let undo = undo::Undo::new(&sim.daemon);
        Session {
            program,
            source,
            initial: sim.snapshot(),
            sim,
            ast,
            undo,
            watches: Vec::new(),
            breaks: Vec::new(),
            color,
        }
    }

    /// The simulation.
    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    /// The simulation, to step from another front end (the explorer); the
    /// undo history is then that front end's to keep.
    pub fn sim_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    /// The value of an expression typed as `eval` takes it, as `eval`
    /// prints it; or why it has none.
    pub fn evaluate(&self, text: &str) -> Result<String, String> {
        let (f, locals) = self.compile_shown(text.trim())?;
        shown::shown_value(&self.sim, &f, locals)
    }

    /// A condition typed as `run until` takes it, compiled once to be
    /// tested at every step.
    pub fn condition(&self, text: &str) -> Result<Condition, String> {
        let text = text.trim();
        self.condition_for(
            text,
            &format!("`{text}` is not a condition (a bool expression)"),
        )
    }

    /// [`Session::condition`], where what is typed is no condition: a
    /// value, or something only `eval` shows (a tuple, an array, a set),
    /// gets `needs` rather than the checker's words about its type.
    fn condition_for(&self, text: &str, needs: &str) -> Result<Condition, String> {
        match self.compile_expr(text) {
            Ok((GlobalFn::Int(..), _)) => Err(needs.into()),
            Ok((code, locals)) => Ok(Condition {
                text: text.to_string(),
                code,
                locals,
            }),
            Err(problem) => match self.compile_shown(text) {
                Ok(_) => Err(needs.into()),
                Err(_) => Err(problem),
            },
        }
    }

    /// Whether `c` holds in the configuration at hand.
    pub fn holds(&self, c: &Condition) -> Result<bool, String> {
        self.sim
            .eval_global(&c.code, c.locals)
            .map(|v| v != 0)
            .map_err(|e| e.message.clone())
    }

    /// Names the completer offers: variables, action labels.
    pub fn words(&self) -> Vec<String> {
        let mut w: Vec<String> = self.sim.prog.vars.iter().map(|v| v.name.clone()).collect();
        for r in &self.sim.prog.roles {
            w.extend(r.actions.iter().map(|a| a.label.clone()));
        }
        w.sort();
        w.dedup();
        w
    }

    /// How many snapshots the undo history keeps: about [`UNDO_BYTES`] worth.
    fn undo_capacity(&self) -> usize {
        // A snapshot holds the values plus a few words of bookkeeping per process.
        let bytes = self.sim.n() * (8 * self.sim.stride() + 16) + 512;
        (UNDO_BYTES / bytes).clamp(4, 100_000)
    }

    fn remember(&mut self) {
        let keep = self.undo_capacity();
        self.undo.remember(keep, &self.sim);
    }

    /// Takes the simulation back `k` positions of the undo history (as
    /// many as it holds at most), or says why a replay failed.
    fn undo(&mut self, k: usize) -> Result<(), String> {
        self.undo
            .back(k, &mut self.sim)
            .map_err(|e| self.runtime_error(&e))
    }

    /// Executes one line, appending its output to `out`.
    pub fn execute(&mut self, line: &str, out: &mut String) -> Control {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Control::Continue;
        }
        let (cmd, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let result = match cmd {
            "step" | "s" => self.step(rest, out),
            "fire" | "f" => self.fire(rest, out),
            "run" | "r" => self.run(rest, out),
            "show" | "p" => self.show(rest, out),
            "enabled" | "e" => self.enabled(out),
            "eval" => self.eval(rest, out),
            "set" => self.set(rest, out),
            "corrupt" => self.corrupt(rest, out),
            "daemon" => self.daemon(rest, out),
            "seed" => self.seed(rest, out),
            "watch" => self.watch(rest, out, false),
            "break" => self.watch(rest, out, true),
            "unwatch" => self.unwatch(rest, out, false),
            "unbreak" => self.unwatch(rest, out, true),
            "back" | "b" => self.back(rest, out),
            "reset" => {
                self.remember();
                self.sim.restore(self.initial.clone());
                out.push_str("back at the initial configuration\n");
                self.show("", out)
            }
            "measures" | "m" => {
                self.measures(out);
                Ok(())
            }
            "save" => self.save(rest, out),
            "load" => self.load(rest, out),
            "help" | "h" | "?" => self.help(rest, out),
            "quit" | "exit" | "q" => return Control::Quit,
            other => {
                let names = COMMANDS.iter().map(|c| c.0);
                let hint = match SYNONYMS.iter().find(|(word, _)| *word == other) {
                    Some((_, meant)) => format!(" ({meant})"),
                    None => crate::diagnostic::suggest(other, names)
                        .map_or(String::new(), |s| format!(" (did you mean `{s}`?)")),
                };
                Err(format!(
                    "unknown command `{other}`{hint}; `help` lists the commands"
                ))
            }
        };
        let Err(message) = result else {
            return Control::Continue;
        };
        {
            for l in message.lines() {
                if l.starts_with("error")
                    || l.starts_with(' ')
                    || l.starts_with("guarded::")
                    || l.is_empty()
                {
                    let _ = writeln!(out, "{l}");
                } else {
                    let _ = writeln!(out, "error: {l}");
                }
            }
        }
        Control::Failed
    }

    fn count(arg: &str, default: u64) -> Result<u64, String> {
        if arg.is_empty() {
            return Ok(default);
        }
        arg.parse().map_err(|_| format!("`{arg}` is not a count"))
    }

    fn process(&self, arg: &str) -> Result<usize, String> {
        let p: usize = arg
            .parse()
            .map_err(|_| format!("`{arg}` is not a process number"))?;
        if p >= self.sim.n() {
            return Err(format!(
                "there is no process {p}: processes are 0 to {}",
                self.sim.n() - 1
            ));
        }
        Ok(p)
    }

    fn runtime_error(&self, e: &RunError) -> String {
        crate::report::runtime_error(e, &self.program, &self.source, !self.color, Some(&self.sim))
    }

    fn help(&self, arg: &str, out: &mut String) -> Result<(), String> {
        let list: Vec<&(&str, &str, &str)> = if arg.is_empty() {
            COMMANDS.iter().collect()
        } else {
            let found: Vec<_> = COMMANDS.iter().filter(|c| c.0 == arg).collect();
            if found.is_empty() {
                return Err(format!("no command `{arg}`; `help` lists them"));
            }
            found
        };
        for (name, args, what) in list {
            let what = match *name {
                // The daemons come from their one table.
                "daemon" => format!("{what} {}", daemon_names()),
                _ => what.to_string(),
            };
            let _ = writeln!(out, "  {:<28}{what}", format!("{name} {args}"));
        }
        if arg.is_empty() {
            out.push_str(
                "Expressions are those of `legitimate:` (e.g. `count(p in procs : enabled(p))`);\n\
                 `legitimate` and `report` names stand for the program's predicate and reports.\n",
            );
        }
        Ok(())
    }
}

/// The daemons' names as `daemon` takes them, separated by commas.
fn daemon_names() -> String {
    DAEMONS
        .iter()
        .map(|d| match d.name {
            "schedule" => "schedule:FILE",
            n => n,
        })
        .collect::<Vec<_>>()
        .join(", ")
}
