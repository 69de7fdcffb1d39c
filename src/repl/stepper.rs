//! How the REPL's `step` and `run` watch the run loop: each step is
//! remembered for `back` and printed with the watches (only the last 20 of
//! a long `run`, printed once it stops: see [`Session::run_steps`](super::Session::run_steps)); `run`
//! stops when its `until` holds, a breakpoint becomes true, or Ctrl-C is
//! pressed.

use super::shown::shown_value;
use super::undo::Undo;
use super::{Condition, Watch, INTERRUPTED};
use crate::runtime::engine::Simulation;
use crate::runtime::run::Observer;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

/// One step's moves, then the watches, then whether legitimacy was just
/// reached or an invariant fails.
pub(super) fn report_step(sim: &Simulation, watches: &[Watch], out: &mut String) {
    let _ = writeln!(out, "{}", crate::report::step_line(sim));
    print_watches(sim, watches, out);
    note_legitimacy(sim, out);
}

/// Each watch's value.
pub(super) fn print_watches(sim: &Simulation, watches: &[Watch], out: &mut String) {
    for w in watches {
        let v = shown_value(sim, &w.code, w.locals).unwrap_or_else(|e| format!("error: {e}"));
        let _ = writeln!(out, "  {} = {v}", w.text);
    }
}

/// Says when legitimacy has just been reached and when an invariant does not hold.
fn note_legitimacy(sim: &Simulation, out: &mut String) {
    if let (Some(p), Some(true)) = (sim.stabilized_at(), sim.legitimate()) {
        if p == sim.now() {
            let _ = writeln!(
                out,
                "-- legitimate from here (step {}, move {}, round {})",
                p.step, p.moves, p.round
            );
        }
    }
    if let Ok(Some(i)) = sim.violated_invariant() {
        let _ = writeln!(
            out,
            "-- invariant `{}` does not hold",
            sim.code.invariants[i].name
        );
    }
}

/// Which breakpoints hold (one that cannot be evaluated does not).
fn breaks_now(sim: &Simulation, breaks: &[Condition]) -> Vec<bool> {
    breaks
        .iter()
        .map(|b| sim.eval_global(&b.code, b.locals).unwrap_or(0) != 0)
        .collect()
}

/// The observer of the REPL's `step` and `run`.
pub(super) struct Stepper<'a> {
    pub(super) undo: &'a mut Undo,
    /// How many snapshots the history keeps.
    pub(super) keep: usize,
    /// Whether a state was remembered yet: each after it is one daemon
    /// step on from the one before.
    pub(super) remembered: bool,
    pub(super) watches: &'a [Watch],
    pub(super) breaks: &'a [Condition],
    pub(super) until: Option<&'a Condition>,
    /// Whether Ctrl-C stops it.
    pub(super) interruptible: bool,
    /// Whether every step is printed as it is taken; if not, the last
    /// [`SHOWN`] are printed once the run stops.
    pub(super) print_all: bool,
    /// Steps taken so far.
    pub(super) taken: u64,
    pub(super) out: &'a mut String,
    /// Why the run stopped (`until`, a breakpoint, Ctrl-C), printed after
    /// the steps.
    pub(super) stopped_by: Option<String>,
    pub(super) breaks_before: Vec<bool>,
    /// Why the run cannot go on (an `until` that cannot be evaluated).
    pub(super) failure: Option<String>,
}

/// Steps a long `run` prints: the last ones.
pub(super) const SHOWN: usize = 20;

impl Observer for Stepper<'_> {
    fn before_step(&mut self, sim: &Simulation) -> bool {
        if let Some(Condition { text, code, locals }) = self.until {
            match sim.eval_global(code, *locals) {
                Err(e) => {
                    self.failure = Some(e.message.clone());
                    return false;
                }
                Ok(0) => {}
                Ok(_) => {
                    self.stopped_by = Some(format!("`{text}` holds\n"));
                    return false;
                }
            }
        }
        if self.interruptible && INTERRUPTED.swap(false, Ordering::SeqCst) {
            self.stopped_by = Some("interrupted\n".into());
            return false;
        }
        self.breaks_before = breaks_now(sim, self.breaks);
        self.undo
            .remember_run_step(self.keep, sim, !self.remembered);
        self.remembered = true;
        true
    }

    fn after_step(&mut self, sim: &Simulation) -> bool {
        if self.print_all {
            report_step(sim, self.watches, self.out);
        }
        self.taken += 1;
        let after = breaks_now(sim, self.breaks);
        if let Some(i) = (0..after.len()).find(|&i| after[i] && !self.breaks_before[i]) {
            self.stopped_by = Some(format!(
                "breakpoint {} hit: `{}`\n",
                i + 1,
                self.breaks[i].text
            ));
            return false;
        }
        true
    }
}
