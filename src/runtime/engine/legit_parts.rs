//! Legitimacy's incremental conjuncts (`forall(p in procs : P)` and
//! `count(p in procs : P) CMP k`, P local to p), kept lazily: a step marks
//! the processes whose P it may have changed, and a process's P is asked
//! again only when the predicate's value needs it.
//!
//! The value, and the fault where there is one, are those of the whole
//! predicate evaluated as written (conjuncts in order, each stopping at
//! its first false, `forall` over processes in index order): a process
//! not marked gives what it gave when last asked, without a fault.
//! - Where P cannot fault (`compile/faults.rs`), order does not matter:
//!   a `forall` is false while P is known false at any process not marked
//!   since, and nothing is asked (SSLE's case, through convergence).
//! - Where it may, the first process in index order where P does not hold
//!   is found among the marked ones below the first known false, and a
//!   fault counts only where no process before it is false. (Until
//!   2026-12-06 every marked process was asked after every step, so a run
//!   stopped on a fault the predicate as written never reaches.)

use super::measures::Reads;
use super::Progress;
use crate::compile::{Fault, Holds, LegitPart, Res};
use crate::runtime::bits::Bits;

/// One incremental conjunct's processes: each clean (P as last asked:
/// true, or false in `falses`) or marked (`dirty`, to ask again).
#[derive(Clone, Debug)]
pub(super) struct PartState {
    n: usize,
    dirty: Bits,
    falses: Bits,
    /// Clean processes where P holds, and where it is false.
    holding: usize,
    false_count: usize,
    /// The first clean process where P is false (`n`: none; always `n`
    /// where the order does not matter, see [`PartState::forall_any`], and
    /// for a count, which asks every marked process).
    first_false: usize,
    /// Marked processes: every one below `first_false` is in `pending`
    /// (with some above it, met again as `first_false` went down); the
    /// others are in `parked`, until `first_false` passes them.
    pending: Vec<u32>,
    parked: Vec<u32>,
}

impl PartState {
    /// `n` processes, every one marked: nothing is known yet.
    fn unknown(n: usize) -> Self {
        let mut state = PartState {
            n,
            dirty: Bits::new(n),
            falses: Bits::new(n),
            holding: 0,
            false_count: 0,
            first_false: n,
            pending: Vec::new(),
            parked: Vec::new(),
        };
        state.mark_all();
        state
    }

    /// Every process marked, the buffers reused.
    fn mark_all(&mut self) {
        self.falses.clear_all();
        self.dirty.clear_all();
        (0..self.n).for_each(|i| self.dirty.set(i));
        self.holding = 0;
        self.false_count = 0;
        self.first_false = self.n;
        self.parked.clear();
        self.pending.clear();
        // Asked from process 0 up: popped from the end.
        self.pending.extend((0..self.n as u32).rev());
    }

    /// The bytes it keeps.
    pub(super) fn bytes(&self) -> usize {
        self.dirty.bytes()
            + self.falses.bytes()
            + (self.pending.capacity() + self.parked.capacity()) * 4
    }

    /// Marks process `q`: a step may have changed its P.
    #[inline]
    fn mark(&mut self, q: u32) {
        let i = q as usize;
        if self.dirty.get(i) {
            return;
        }
        self.dirty.set(i);
        if self.falses.take(i) {
            self.false_count -= 1;
            if i == self.first_false {
                self.first_false = self.next_false(i + 1);
                self.unpark();
            }
        } else {
            self.holding -= 1;
        }
        if i < self.first_false {
            self.pending.push(q);
        } else {
            self.parked.push(q);
        }
    }

    /// The first clean process from `from` where P is false (`n`: none).
    fn next_false(&self, from: usize) -> usize {
        self.falses.first_set_from(from).unwrap_or(self.n)
    }

    /// Process `i`, marked, asked: P `holds` there, or not.
    #[inline]
    fn answered(&mut self, i: usize, holds: bool) {
        self.dirty.take(i);
        if holds {
            self.holding += 1;
        } else {
            self.falses.set(i);
            self.false_count += 1;
        }
    }

    /// Marked processes parked below `first_false`, now pending.
    fn unpark(&mut self) {
        let first = self.first_false;
        let pending = &mut self.pending;
        self.parked.retain(|&q| {
            let below = (q as usize) < first;
            if below {
                pending.push(q);
            }
            !below
        });
    }

    /// Whether P holds at every process, `ask` giving it at a process:
    /// each marked one below the first known false is asked (in any
    /// order: a false moves the bound down), and a fault counts where it
    /// is below the bound at the end (every process before it then holds).
    fn forall(&mut self, mut ask: impl FnMut(usize) -> Res<bool>) -> Res<bool> {
        let mut fault: Option<(u32, Box<Fault>)> = None;
        while let Some(q) = self.pending.pop() {
            let i = q as usize;
            if i >= self.first_false {
                self.parked.push(q);
                continue;
            }
            match ask(i) {
                Ok(holds) => {
                    self.answered(i, holds);
                    if !holds {
                        self.first_false = i;
                    }
                }
                Err(f) => {
                    keep_first(&mut fault, q, f);
                    // Still marked: asked again when it matters.
                    self.parked.push(q);
                }
            }
        }
        match fault {
            Some((k, f)) if (k as usize) < self.first_false => {
                self.unpark();
                Err(f)
            }
            _ => Ok(self.first_false == self.n),
        }
    }

    /// [`PartState::forall`] where P cannot fault: false while it is
    /// known false anywhere, else the marked processes asked until one
    /// is false (the others stay marked).
    fn forall_any(&mut self, mut ask: impl FnMut(usize) -> Res<bool>) -> Res<bool> {
        if self.false_count > 0 {
            return Ok(false);
        }
        while let Some(q) = self.pending.pop() {
            let i = q as usize;
            let holds = ask(i).inspect_err(|_| self.pending.push(q))?;
            self.answered(i, holds);
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// At how many processes P holds, `ask` giving it at a process: every
    /// marked one is asked; the first fault by process is the count's.
    fn count(&mut self, mut ask: impl FnMut(usize) -> Res<bool>) -> Res<usize> {
        let mut fault: Option<(u32, Box<Fault>)> = None;
        while let Some(q) = self.pending.pop() {
            let i = q as usize;
            match ask(i) {
                Ok(holds) => self.answered(i, holds),
                Err(f) => {
                    keep_first(&mut fault, q, f);
                    self.parked.push(q);
                }
            }
        }
        self.pending.append(&mut self.parked);
        match fault {
            Some((_, f)) => Err(f),
            None => Ok(self.holding),
        }
    }
}

/// `f`, the fault at process `q`, kept in `fault` unless one at an earlier
/// process is.
fn keep_first(fault: &mut Option<(u32, Box<Fault>)>, q: u32, f: Box<Fault>) {
    if fault.as_ref().is_none_or(|(k, _)| q < *k) {
        *fault = Some((q, f));
    }
}

impl Reads<'_> {
    /// Whether the legitimacy predicate, split in `code.legit_parts`,
    /// holds: the incremental conjuncts' processes `affected` by the last
    /// step marked (every process where `full`), then the conjuncts asked
    /// in order, as far as the first false.
    pub(super) fn legit_parts(
        &self,
        progress: &mut Progress,
        affected: &[u32],
        full: bool,
    ) -> Res<bool> {
        let parts = &self.code.legit_parts;
        let mut states = std::mem::take(&mut progress.legit);
        if states.len() != parts.len() {
            states = parts
                .iter()
                .map(|_| PartState::unknown(self.topo.n()))
                .collect();
        } else if full {
            states.iter_mut().for_each(PartState::mark_all);
        } else {
            for state in &mut states {
                affected.iter().for_each(|&q| state.mark(q));
            }
        }
        let holds = self.ask_parts(progress, &mut states);
        progress.legit = states;
        holds
    }

    /// The conjuncts asked in order, as far as the first false.
    fn ask_parts(&self, progress: &Progress, states: &mut [PartState]) -> Res<bool> {
        let env = self.env(progress);
        for (part, state) in self.code.legit_parts.iter().zip(states) {
            let holds = match part {
                LegitPart::Whole(f) => f.holds(&env)?,
                LegitPart::Forall(slot, body, cannot_fault) => {
                    let ask = |p: usize| {
                        env.locals[*slot].set(p as i64);
                        body.holds(&env)
                    };
                    match cannot_fault {
                        true => state.forall_any(ask)?,
                        false => state.forall(ask)?,
                    }
                }
                LegitPart::Count(slot, body, op, k) => {
                    let count = state.count(|p| {
                        env.locals[*slot].set(p as i64);
                        body.holds(&env)
                    })?;
                    op.holds(count as i64, *k)
                }
            };
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
