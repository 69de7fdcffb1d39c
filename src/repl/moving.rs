//! The commands that move the run: `step`, `run`, `fire` (with why a
//! process cannot move) and `back`.

use super::stepper::SHOWN;
use super::*;
use crate::runtime::daemon::NamedMove;
use crate::runtime::engine::Outcome;

/// The most steps one `step` command takes: it prints each.
const MAX_PRINTED_STEPS: u64 = 10_000;

impl Session {
    pub(super) fn step(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let n = Self::count(arg, 1)?;
        if n > MAX_PRINTED_STEPS {
            return Err(format!(
                "`step` prints every step: at most {MAX_PRINTED_STEPS} at once; `run {n}` takes them, prints the last 20 and stops at Ctrl-C"
            ));
        }
        self.run_steps(n, None, false, out)
    }

    /// Takes up to `limit` steps through the run loop, remembering each for
    /// `back`; `run` also stops at `until`, a breakpoint or Ctrl-C and
    /// prints only the last [`SHOWN`] steps of a long run (or of one
    /// stopped early by `until`).
    pub(super) fn run_steps(
        &mut self,
        limit: u64,
        until: Option<&Condition>,
        is_run: bool,
        out: &mut String,
    ) -> Result<(), String> {
        let keep = self.undo_capacity();
        let print_all = !is_run || limit <= SHOWN as u64;
        let mut stepper = Stepper {
            undo: &mut self.undo,
            keep,
            remembered: false,
            watches: &self.watches,
            breaks: if is_run { &self.breaks } else { &[] },
            until,
            interruptible: is_run,
            print_all,
            taken: 0,
            out: &mut *out,
            stopped_by: None,
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
        let (failure, stopped_by, taken) = (stepper.failure, stepper.stopped_by, stepper.taken);
        // Where the run stopped is the last position the history holds.
        let error = match stop {
            Stop::Silent | Stop::ScheduleDone => {
                self.undo.forget_last();
                None
            }
            Stop::Error(ref e) => {
                let error = self.runtime_error(e);
                self.undo(1)?;
                Some(error)
            }
            _ => None,
        };
        if !print_all {
            self.print_last_steps(taken, keep, out)?;
        }
        out.push_str(stopped_by.as_deref().unwrap_or(""));
        match stop {
            Stop::Silent => out.push_str("silent: no process is enabled\n"),
            Stop::ScheduleDone => out.push_str("the schedule is over\n"),
            _ => {}
        }
        match error.or(failure) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Prints the last [`SHOWN`] of the `taken` steps a `run` just took
    /// (after a line saying how many earlier ones are not shown): goes back
    /// over them and takes them again, so that steps no one sees are not
    /// formatted (a run of a million steps on a ring of 1,000 spent three
    /// quarters of its time formatting them). The history ends where it
    /// did.
    fn print_last_steps(
        &mut self,
        taken: u64,
        keep: usize,
        out: &mut String,
    ) -> Result<(), String> {
        let shown = taken.min(SHOWN as u64).min(self.undo.len() as u64);
        let hidden = taken - shown;
        if hidden > 0 {
            let _ = writeln!(
                out,
                "... {hidden} earlier step{} not shown",
                if hidden == 1 { "" } else { "s" }
            );
        }
        if shown == 0 {
            return Ok(());
        }
        self.undo(shown as usize)?;
        for k in 0..shown {
            // As the run remembered them (the run's first state only if
            // every step is shown).
            let first = k == 0 && hidden == 0;
            self.undo.remember_run_step(keep, &self.sim, first);
            match self.sim.step() {
                Ok(Outcome::Moved) => {}
                Ok(_) => return Err("a step taken again did not move (a bug)".into()),
                Err(e) => return Err(self.runtime_error(&e)),
            }
            report_step(&self.sim, &self.watches, out);
        }
        Ok(())
    }

    /// Prints one step's moves, the watches and the legitimacy notes.
    pub(super) fn report_step(&self, out: &mut String) {
        report_step(&self.sim, &self.watches, out);
    }

    pub(super) fn fire(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        const USAGE: &str = "usage: fire P [ACTION[@MEMBER][<DRAWS>]]";
        if self.sim.runs_in_ticks() {
            return Err("the program runs in ticks: at every tick every process handles its due timers and arrived messages, so no process moves alone; `step` takes a tick".into());
        }
        let mut words = arg.split_whitespace();
        let p = self.process(words.next().ok_or(USAGE)?)?;
        let named = match words.next() {
            Some(w) => Some(NamedMove::parse(w).ok_or_else(|| {
                format!("`{w}` is not a move: {USAGE} (say `fire 3 R1@2` for member 2, `fire 0 flip<1>` for the value drawn)")
            })?),
            None => None,
        };
        if words.next().is_some() {
            return Err(USAGE.into());
        }
        let wanted = named.as_ref().map(|m| m.label.as_str());
        let role = self.sim.code.role_of.of(p);
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
        if pick.is_none() {
            return Err(self.why_not(p, wanted));
        }
        self.remember();
        match self.sim.step_with(&[p as u32], named.as_ref()) {
            Ok(_) => {
                self.report_step(out);
                Ok(())
            }
            Err(e) => {
                let error = self.runtime_error(&e);
                self.undo(1)?;
                Err(error)
            }
        }
    }

    pub(super) fn snippet(&self, span: crate::span::Span) -> String {
        let span = crate::span::with_brackets(self.source_text(), span);
        self.source_text()
            .get(span.start..span.end)
            .unwrap_or("?")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub(super) fn source_text(&self) -> &str {
        &self.source
    }

    pub(super) fn run(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let (limit, until) = match arg.split_once("until") {
            Some((n, e)) => (n.trim(), Some(e.trim())),
            None => (arg, None),
        };
        let limit = Self::count(limit, 100_000)?;
        let needs = "`run until` needs a condition (a bool expression)";
        let until = match until {
            Some(text) => Some(self.condition_for(text, needs)?),
            None => None,
        };
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

    pub(super) fn back(&mut self, arg: &str, out: &mut String) -> Result<(), String> {
        let k = Self::count(arg, 1)? as usize;
        if k == 0 || k > self.undo.len() {
            return Err(format!(
                "can go back at most {} (the history holds that many steps and changes)",
                self.undo.len()
            ));
        }
        self.undo(k)?;
        let now = self.sim.now();
        let _ = writeln!(
            out,
            "back {k}: now at step {}, move {}, round {}",
            now.step, now.moves, now.round
        );
        self.show("", out)
    }
}
