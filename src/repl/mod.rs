//! Front end: the interactive REPL. [`Session`] holds a simulation and
//! executes one command line at a time, writing its answer into a string, so
//! the same code serves a terminal (`line.rs`, with rustyline) and scripted
//! standard input (golden transcripts).

pub mod line;
mod stepper;

use stepper::{note_legitimacy, print_watches, remember, report_step, Stepper};

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

/// The commands, their arguments and what they do: `help` prints these.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "step",
        "[N]",
        "take N steps (default 1) under the current daemon",
    ),
    (
        "fire",
        "P [ACTION]",
        "make process P move (with ACTION if given); says why it cannot",
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
        "evaluate an expression over the configuration (as in `legitimate:`)",
    ),
    (
        "set",
        "P.VAR = VALUE",
        "change a value (fault injection; `*` for every process); domain-checked",
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
    /// Leave the REPL.
    Quit,
}

struct Watch {
    text: String,
    code: GlobalFn,
    locals: usize,
}

/// A REPL session over one program and topology.
pub struct Session {
    sim: Simulation,
    program: String,
    source: String,
    ast: ast::Program,
    initial: Snapshot,
    undo: std::collections::VecDeque<Snapshot>,
    watches: Vec<Watch>,
    breaks: Vec<Watch>,
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
        Session {
            program,
            source,
            initial: sim.snapshot(),
            sim,
            ast,
            undo: std::collections::VecDeque::new(),
            watches: Vec::new(),
            breaks: Vec::new(),
            color,
        }
    }

    /// The simulation.
    pub fn sim(&self) -> &Simulation {
        &self.sim
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
        remember(&mut self.undo, keep, &self.sim);
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
                let hint = crate::diagnostic::suggest(other, names)
                    .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
                Err(format!(
                    "unknown command `{other}`{hint}; `help` lists the commands"
                ))
            }
        };
        if let Err(message) = result {
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
        Control::Continue
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

    /// Prints one step's moves and the watches.
    fn report_step(&self, out: &mut String) {
        report_step(&self.sim, &self.watches, out);
    }

    fn step(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let n = Self::count(arg, 1)?;
        self.run_steps(n, None, false, out)
    }

    /// Takes up to `limit` steps through the run loop, remembering each for
    /// `back`; `run` also stops at `until`, a breakpoint or Ctrl-C and
    /// prints only the last 20 steps of a long run.
    fn run_steps(
        &mut self,
        limit: u64,
        until: Option<&(String, GlobalFn, usize)>,
        is_run: bool,
        out: &mut String,
    ) -> Result<(), String> {
        let keep = self.undo_capacity();
        let mut stepper = Stepper {
            undo: &mut self.undo,
            keep,
            watches: &self.watches,
            breaks: if is_run { &self.breaks } else { &[] },
            until,
            interruptible: is_run,
            print_all: !is_run || limit <= 20,
            limit,
            taken: 0,
            out: &mut *out,
            quiet: String::new(),
            breaks_before: Vec::new(),
            failure: None,
        };
        let limits = Limits {
            steps: limit,
            moves: None,
            until_legitimate: false,
            invariants: false,
        };
        let stop = crate::runtime::run::run(&mut self.sim, &limits, &mut stepper);
        let failure = stepper.failure.take();
        drop(stepper);
        match stop {
            Stop::Silent | Stop::ScheduleDone => {
                self.undo.pop_back();
                out.push_str(if matches!(stop, Stop::Silent) {
                    "silent: no process is enabled\n"
                } else {
                    "the schedule is over\n"
                });
                Ok(())
            }
            Stop::Error(e) => {
                let snap = self.undo.pop_back().expect("remembered before the step");
                self.sim.restore(snap);
                Err(self.runtime_error(&e))
            }
            _ => failure.map_or(Ok(()), Err),
        }
    }

    fn note_legitimacy(&self, out: &mut String) {
        note_legitimacy(&self.sim, out);
    }

    fn fire(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let mut words = arg.split_whitespace();
        let p = self.process(words.next().ok_or("usage: fire P [ACTION]")?)?;
        let wanted = words.next();
        let role = self.sim.code.role_of[p] as usize;
        let actions = &self.sim.code.roles[role].actions;
        if let Some(w) = wanted {
            if !actions.iter().any(|a| a.label == w) {
                let labels: Vec<&str> = actions.iter().map(|a| a.label.as_str()).collect();
                return Err(format!(
                    "process {p} has no action `{w}`; its actions are {}",
                    labels.join(", ")
                ));
            }
        }
        let enabled = self
            .sim
            .enabled_actions(p)
            .map_err(|e| self.runtime_error(&e))?;
        let pick = match wanted {
            None => enabled.first().copied(),
            Some(w) => enabled
                .iter()
                .copied()
                .find(|&a| actions[a as usize].label == w),
        };
        let Some(action) = pick else {
            return Err(self.why_not(p, wanted));
        };
        self.remember();
        match self.sim.step_with(&[p as u32], Some(action)) {
            Ok(_) => {
                self.report_step(out);
                self.note_legitimacy(out);
                Ok(())
            }
            Err(e) => {
                let snap = self.undo.pop_back().expect("remembered above");
                self.sim.restore(snap);
                Err(self.runtime_error(&e))
            }
        }
    }

    /// Explains, action by action, why process `p` cannot fire: each guard's
    /// conjuncts with their values at `p`.
    fn why_not(&self, p: usize, wanted: Option<&str>) -> String {
        let role = self.sim.code.role_of[p] as usize;
        let mut s = match wanted {
            Some(w) => format!("process {p} cannot fire `{w}`:\n"),
            None => format!("process {p} is not enabled:\n"),
        };
        let compiled = &self.sim.code.roles[role].actions;
        let first = self.sim.chosen_action(p).map(|a| a.priority);
        for a in &self.ast.roles[role].actions {
            if wanted.is_some_and(|w| w != a.label.name) {
                continue;
            }
            let prio = compiled
                .iter()
                .find(|c| c.label == a.label.name)
                .map_or(0, |c| c.priority);
            let mut conj = Vec::new();
            conjuncts(&a.guard, &mut conj);
            let mut held = true;
            let mut parts = Vec::new();
            for c in conj {
                let text = self.snippet(c.span());
                match self.eval_local(p, c) {
                    Ok(v) => {
                        held &= v != 0;
                        let reads = self.reads_of(p, c);
                        let status = if v != 0 { "true" } else { "false" };
                        parts.push(format!(
                            "    {text}  is {status}{}",
                            if reads.is_empty() {
                                String::new()
                            } else {
                                format!("  ({reads})")
                            }
                        ));
                    }
                    Err(m) => parts.push(format!("    {text}  cannot be evaluated: {m}")),
                }
            }
            let verdict = match (held, first) {
                (true, Some(fp)) if fp < prio => {
                    format!("its guard holds, but a more urgent action (priority {fp}) is enabled")
                }
                (true, _) => "its guard holds".into(),
                (false, _) => "its guard is false".into(),
            };
            let _ = writeln!(s, "  `{}`: {verdict}", a.label.name);
            for part in parts {
                let _ = writeln!(s, "{part}");
            }
        }
        s
    }

    fn snippet(&self, span: crate::span::Span) -> String {
        self.source_text()
            .get(span.start..span.end)
            .unwrap_or("?")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn source_text(&self) -> &str {
        &self.source
    }

    /// Evaluates a process-scope expression at process `p`.
    fn eval_local(&self, p: usize, e: &ast::Expr) -> Result<i64, String> {
        let (checked, locals) =
            check::check_local_expr(&self.ast, e).map_err(|ps| ps[0].message.clone())?;
        let f = compile::compile_global(&self.sim.prog, &self.sim.code, &checked)
            .map_err(|ps| ps[0].message.clone())?;
        self.sim
            .eval_at(p, &f, locals)
            .map_err(|f| f.message.clone())
    }

    /// The values of the variable reads inside `e`, at process `p`.
    fn reads_of(&self, p: usize, e: &ast::Expr) -> String {
        let mut reads = Vec::new();
        collect_reads(e, &mut reads);
        let mut seen = Vec::new();
        let mut parts = Vec::new();
        for r in reads {
            let text = self.snippet(r.span());
            if seen.contains(&text) {
                continue;
            }
            if let Ok((checked, locals)) = check::check_local_expr(&self.ast, r) {
                let ty = match &checked {
                    check::Checked::Int(_, ty) => *ty,
                    check::Checked::Bool(_) => Ty::Bool,
                };
                let Ok(f) = compile::compile_global(&self.sim.prog, &self.sim.code, &checked)
                else {
                    continue;
                };
                if let Ok(v) = self.sim.eval_at(p, &f, locals) {
                    parts.push(format!("{text} = {}", self.sim.prog.show_value(ty, v)));
                }
            }
            seen.push(text);
        }
        parts.join(", ")
    }

    fn run(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let (limit, until) = match arg.split_once("until") {
            Some((n, e)) => (n.trim(), Some(e.trim())),
            None => (arg, None),
        };
        let limit = Self::count(limit, 100_000)?;
        let until = match until {
            Some(text) => Some(self.compile_expr(text)?),
            None => None,
        };
        if let Some((_, GlobalFn::Int(..), _)) = &until {
            return Err("`run until` needs a condition (a bool expression)".into());
        }
        INTERRUPTED.store(false, Ordering::SeqCst);
        let start = self.sim.now().step;
        self.run_steps(limit, until.as_ref(), true, out)?;
        let now = self.sim.now();
        let ran = now.step - start;
        let _ = writeln!(
            out,
            "ran {ran} step{}; now at step {}, move {}, round {}",
            if ran == 1 { "" } else { "s" },
            now.step,
            now.moves,
            now.round
        );
        Ok(())
    }

    fn compile_expr(&self, text: &str) -> Result<(String, GlobalFn, usize), String> {
        if text.is_empty() {
            return Err("an expression is needed".into());
        }
        let e = syntax::parse_expression(text)
            .map_err(|p| render(&[p], "<input>", text, !self.color))?;
        let (checked, locals) = check::check_global_expr(&self.ast, &e)
            .map_err(|ps| render(&ps, "<input>", text, !self.color))?;
        Ok((
            text.to_string(),
            compile::compile_global(&self.sim.prog, &self.sim.code, &checked)
                .map_err(|ps| render(&ps, "<input>", text, !self.color))?,
            locals,
        ))
    }

    fn eval(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let (_, f, locals) = self.compile_expr(arg)?;
        let v = self
            .sim
            .eval_global(&f, locals)
            .map_err(|e| e.message.clone())?;
        let _ = writeln!(out, "{}", self.sim.prog.show_value(type_of(&f), v));
        Ok(())
    }

    fn row(&self, p: usize) -> String {
        let stride = self.sim.stride();
        crate::report::row_text(&self.sim, p, &self.sim.state[p * stride..(p + 1) * stride])
    }

    fn mark(&self, p: usize, text: String) -> String {
        let enabled = self.sim.chosen_action(p).is_some();
        match (enabled, self.color) {
            (true, true) => format!("\x1b[1;32m{text}*\x1b[0m"),
            (true, false) => format!("{text}*"),
            (false, _) => text,
        }
    }

    fn show(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let n = self.sim.n();
        let stride = self.sim.stride();
        if arg.is_empty() {
            // Rings and chains with one variable fit on one line.
            if self.sim.topo.has_left && stride == 1 && n <= 64 {
                let v = &self.sim.prog.vars[0];
                let cells: Vec<String> = (0..n)
                    .map(|p| {
                        self.mark(
                            p,
                            format!(
                                "{p}:{}",
                                self.sim.code.show_var(
                                    &self.sim.prog,
                                    self.sim.topo.nbrs(p),
                                    0,
                                    &self.sim.state[p..p + 1]
                                )
                            ),
                        )
                    })
                    .collect();
                let _ = writeln!(out, "{}: {}", v.name, cells.join(" "));
            } else {
                // A table: a column a variable, a row a process.
                let prog = &self.sim.prog;
                let cells: Vec<Vec<String>> = (0..n)
                    .map(|p| {
                        let row = &self.sim.state[p * stride..(p + 1) * stride];
                        (0..prog.vars.len())
                            .map(|v| self.sim.code.show_var(prog, self.sim.topo.nbrs(p), v, row))
                            .collect()
                    })
                    .collect();
                let widths: Vec<usize> = prog
                    .vars
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        cells
                            .iter()
                            .map(|r| r[i].len())
                            .chain([v.name.len()])
                            .max()
                            .unwrap_or(1)
                    })
                    .collect();
                let pw = n.saturating_sub(1).to_string().len().max(1);
                let mut head = format!("{:>pw$}", "");
                for (v, w) in prog.vars.iter().zip(&widths) {
                    let _ = write!(head, "  {:>w$}", v.name);
                }
                let _ = writeln!(out, "{head}");
                for (p, row) in cells.iter().enumerate() {
                    let mut line = format!("{p:>pw$}");
                    for (c, w) in row.iter().zip(&widths) {
                        let _ = write!(line, "  {c:>w$}");
                    }
                    let _ = writeln!(out, "{}", self.mark(p, line));
                }
            }
            out.push_str(&crate::report::channels_text(&self.sim));
            out.push_str("(* enabled)\n");
            return Ok(());
        }
        if let Some((who, var)) = arg.split_once('.') {
            let p = self.process(who.trim())?;
            let v = self.var(var.trim())?;
            let _ = writeln!(
                out,
                "{p}.{} = {}",
                self.sim.prog.vars[v].name,
                self.sim.code.show_var(
                    &self.sim.prog,
                    self.sim.topo.nbrs(p),
                    v,
                    &self.sim.state[p * stride..(p + 1) * stride]
                )
            );
            return Ok(());
        }
        if arg.chars().all(|c| c.is_ascii_digit()) {
            let p = self.process(arg)?;
            let mut line = format!("{p}: {}", self.row(p));
            if let Some(a) = self.sim.chosen_action(p) {
                let _ = write!(line, "   (enabled: {})", a.label);
            }
            let nbrs: Vec<String> = self.sim.topo.nbrs(p).iter().map(u32::to_string).collect();
            let _ = write!(
                line,
                "   neighbours: {}",
                if nbrs.is_empty() {
                    "none".into()
                } else {
                    nbrs.join(" ")
                }
            );
            let _ = writeln!(out, "{line}");
            return Ok(());
        }
        let v = self.var(arg)?;
        let cells: Vec<String> = (0..n)
            .map(|p| {
                format!(
                    "{p}:{}",
                    self.sim.code.show_var(
                        &self.sim.prog,
                        self.sim.topo.nbrs(p),
                        v,
                        &self.sim.state[p * stride..(p + 1) * stride]
                    )
                )
            })
            .collect();
        let _ = writeln!(out, "{}: {}", self.sim.prog.vars[v].name, cells.join(" "));
        Ok(())
    }

    fn var(&self, name: &str) -> Result<usize, String> {
        self.sim
            .prog
            .vars
            .iter()
            .position(|v| v.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.sim.prog.vars.iter().map(|v| v.name.as_str()).collect();
                match crate::diagnostic::suggest(name, names.iter().copied()) {
                    Some(s) => format!("no variable `{name}` (did you mean `{s}`?)"),
                    None => format!(
                        "no variable `{name}`; the variables are {}",
                        names.join(", ")
                    ),
                }
            })
    }

    fn enabled(&mut self, out: &mut String) -> Result<(), String> {
        let mut ps = self.sim.enabled().to_vec();
        ps.sort_unstable();
        if ps.is_empty() {
            out.push_str("no process is enabled (silent)\n");
        }
        for p in ps {
            let p = p as usize;
            let acts = self
                .sim
                .enabled_actions(p)
                .map_err(|e| self.runtime_error(&e))?;
            let role = self.sim.code.role_of[p] as usize;
            let labels: Vec<&str> = acts
                .iter()
                .map(|&a| self.sim.code.roles[role].actions[a as usize].label.as_str())
                .collect();
            let _ = writeln!(out, "{p}: {}", labels.join(", "));
        }
        Ok(())
    }

    /// Applies a configuration text; `whole` (a loaded file) also empties the
    /// channels it does not fill, as saved files list only non-empty ones.
    fn apply_assignments(&mut self, name: &str, text: &str, whole: bool) -> Result<(), String> {
        let sim = &self.sim;
        let list = init::parse_assignments(&sim.prog, &sim.code, &sim.topo, text)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        let channels = init::parse_channels(&sim.prog, &sim.code, &sim.topo, text)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        let mut cells: Vec<Option<i64>> = sim.state.iter().map(|v| Some(*v)).collect();
        init::apply(&sim.prog, &sim.code, &sim.topo, &mut cells, &list)
            .map_err(|ps| render(&ps, name, text, !self.color))?;
        self.remember();
        if whole {
            self.sim.chans.queues.iter_mut().for_each(|q| q.clear());
        }
        init::apply_channels(&mut self.sim.chans, &self.sim.topo, &channels);
        let new: Vec<i64> = cells.into_iter().map(|v| v.unwrap_or(0)).collect();
        let result = self.sim.change_state(|s| s.copy_from_slice(&new));
        if let Err(e) = result {
            let snap = self.undo.pop_back().expect("remembered above");
            self.sim.restore(snap);
            return Err(self.runtime_error(&e));
        }
        Ok(())
    }

    fn set(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: set P.VAR = VALUE".into());
        }
        self.apply_assignments("set", arg, false)?;
        let _ = writeln!(
            out,
            "ok; {} enabled, legitimate: {}",
            self.sim.enabled().len(),
            self.legit_word()
        );
        Ok(())
    }

    fn legit_word(&self) -> &'static str {
        match self.sim.legitimate() {
            None => "no predicate",
            Some(true) => "yes",
            Some(false) => "no",
        }
    }

    fn corrupt(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let k = Self::count(arg, 1)? as usize;
        let n = self.sim.n();
        if k == 0 || k > n {
            return Err(format!("corrupt takes a count from 1 to {n}"));
        }
        self.remember();
        let mut procs: Vec<usize> = (0..n).collect();
        procs.shuffle(&mut self.sim.rng);
        procs.truncate(k);
        procs.sort_unstable();
        let stride = self.sim.stride();
        let mut new = self.sim.state.clone();
        for &p in &procs {
            let row = init::random_row(
                &self.sim.prog,
                &self.sim.code,
                &self.sim.topo,
                p,
                &mut self.sim.rng,
            );
            new[p * stride..(p + 1) * stride].copy_from_slice(&row);
            init::share_edges_of(&self.sim.prog, &self.sim.code, &self.sim.topo, &mut new, p);
        }
        if let Err(e) = self.sim.change_state(|s| s.copy_from_slice(&new)) {
            let snap = self.undo.pop_back().expect("remembered above");
            self.sim.restore(snap);
            return Err(self.runtime_error(&e));
        }
        for p in procs {
            let _ = writeln!(out, "corrupted {p}: {}", self.row(p));
        }
        let _ = writeln!(
            out,
            "{} enabled, legitimate: {}",
            self.sim.enabled().len(),
            self.legit_word()
        );
        Ok(())
    }

    fn daemon(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if !arg.is_empty() {
            self.sim.daemon = Daemon::parse(arg, &|path| {
                std::fs::read_to_string(path).map_err(|e| e.to_string())
            })?;
        }
        let _ = writeln!(out, "daemon: {}", self.sim.daemon.name());
        Ok(())
    }

    fn seed(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let s: u64 = arg
            .parse()
            .map_err(|_| format!("`{arg}` is not a seed (a whole number)"))?;
        self.remember();
        self.sim.rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
        let _ = writeln!(out, "seed: {s}");
        Ok(())
    }

    fn watch(&mut self, arg: &str, out: &mut String, is_break: bool) -> Result<(), String> {
        if arg.is_empty() {
            let list = if is_break {
                &self.breaks
            } else {
                &self.watches
            };
            if list.is_empty() {
                let _ = writeln!(
                    out,
                    "no {}",
                    if is_break { "breakpoints" } else { "watches" }
                );
            }
            for (i, w) in list.iter().enumerate() {
                let _ = writeln!(out, "{}: {}", i + 1, w.text);
            }
            return Ok(());
        }
        let (text, code, locals) = self.compile_expr(arg)?;
        if is_break && !matches!(code, GlobalFn::Bool(_)) {
            return Err("a breakpoint needs a condition (a bool expression)".into());
        }
        let w = Watch { text, code, locals };
        if is_break {
            self.breaks.push(w);
            let _ = writeln!(out, "breakpoint {}: {arg}", self.breaks.len());
        } else {
            self.watches.push(w);
            let _ = writeln!(out, "watch {}: {arg}", self.watches.len());
            print_watches(&self.sim, &self.watches, out);
        }
        Ok(())
    }

    fn unwatch(&mut self, arg: &str, out: &mut String, is_break: bool) -> Result<(), String> {
        let list = if is_break {
            &mut self.breaks
        } else {
            &mut self.watches
        };
        if arg.is_empty() {
            list.clear();
        } else {
            let k: usize = arg
                .parse()
                .map_err(|_| format!("`{arg}` is not a number"))?;
            if k == 0 || k > list.len() {
                return Err(format!(
                    "there is no {} {k}",
                    if is_break { "breakpoint" } else { "watch" }
                ));
            }
            list.remove(k - 1);
        }
        let _ = writeln!(out, "{} left", list.len());
        Ok(())
    }

    fn back(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let k = Self::count(arg, 1)? as usize;
        if k == 0 || k > self.undo.len() {
            return Err(format!(
                "can go back at most {} (the history holds that many steps and changes)",
                self.undo.len()
            ));
        }
        let snap = self
            .undo
            .drain(self.undo.len() - k..)
            .next()
            .expect("k >= 1");
        self.sim.restore(snap);
        let now = self.sim.now();
        let _ = writeln!(
            out,
            "back {k}: now at step {}, move {}, round {}",
            now.step, now.moves, now.round
        );
        self.show("", out)
    }

    fn measures(&self, out: &mut String) {
        let now = self.sim.now();
        let _ = writeln!(
            out,
            "steps {}, moves {}, rounds {} ({} complete)",
            now.step,
            now.moves,
            now.round,
            self.sim.rounds_completed()
        );
        let _ = writeln!(out, "legitimate: {}", self.legit_word());
        match self.sim.stabilized_at() {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "stabilized at step {}, move {}, round {}",
                    p.step, p.moves, p.round
                );
            }
            None => out.push_str("not stabilized\n"),
        }
        let _ = writeln!(
            out,
            "enabled: {}, silent: {}",
            self.sim.enabled().len(),
            if self.sim.is_silent() { "yes" } else { "no" }
        );
    }

    fn save(&self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: save FILE".into());
        }
        let text = init::format_config(
            &self.sim.prog,
            &self.sim.code,
            &self.sim.topo,
            &self.sim.state,
            &self.sim.chans,
        );
        std::fs::write(arg, text).map_err(|e| format!("cannot write `{arg}`: {e}"))?;
        let _ = writeln!(out, "saved to {arg}");
        Ok(())
    }

    fn load(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        if arg.is_empty() {
            return Err("usage: load FILE".into());
        }
        let text = std::fs::read_to_string(arg).map_err(|e| format!("cannot read `{arg}`: {e}"))?;
        self.apply_assignments(arg, &text, true)?;
        let _ = writeln!(out, "loaded {arg}");
        self.show("", out)
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
                "Expressions are those of `legitimate:` (e.g. `count(p in procs : enabled(p))`).\n",
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

/// The conjuncts of a guard: `a and b and c` gives a, b, c.
fn conjuncts<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match e {
        ast::Expr::Binary(ast::BinOp::And, l, r, _) => {
            conjuncts(l, out);
            conjuncts(r, out);
        }
        other => out.push(other),
    }
}

/// The variable reads in an expression outside quantifiers: `x`, `left.x`, `parent.x`.
fn collect_reads<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match e {
        ast::Expr::Name(_) | ast::Expr::Field(..) | ast::Expr::Index(..) => out.push(e),
        ast::Expr::Unary(_, a, _) => collect_reads(a, out),
        ast::Expr::Tuple(items, _) => items.iter().for_each(|a| collect_reads(a, out)),
        ast::Expr::Binary(_, a, b, _) => {
            collect_reads(a, out);
            collect_reads(b, out);
        }
        ast::Expr::Call(_, args, _) => args.iter().for_each(|a| collect_reads(a, out)),
        _ => {}
    }
}
