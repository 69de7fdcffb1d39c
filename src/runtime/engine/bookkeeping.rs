//! What the simulator keeps up to date after each step besides the
//! configuration: each process's chosen action and the enabled list (only
//! the movers and the processes that read them are re-evaluated), rounds
//! (and the timers that advance when one ends).

use super::*;
use crate::runtime::choose::{first_true_after, Mover, Whose};

/// Adds `q` to the processes a step affects unless it is there already:
/// searched for in the list when there are `few`, else marked in `marks`.
#[inline(always)]
pub(super) fn affect(marks: &mut Bits, affected: &mut Vec<u32>, few: bool, q: u32) {
    if few {
        if !affected.contains(&q) {
            affected.push(q);
        }
    } else if !marks.get(q as usize) {
        marks.set(q as usize);
        affected.push(q);
    }
}

/// The processes a move of `p` affects on a ring of `n`: `p`, then the
/// neighbours whose guards read it (`readers`: whether the one after `p`
/// does, whether the one before does) in increasing order, as neighbour
/// lists give them (so the enabled list changes in the same order either
/// way); the first `count` of the array. They are distinct from three
/// processes on.
#[inline(always)]
pub(super) fn ring_affected(p: u32, n: u32, readers: (bool, bool)) -> ([u32; 3], usize) {
    let (before, after) = ring_neighbours(p, n);
    match readers {
        (true, false) => ([p, after, 0], 2),
        (false, true) => ([p, before, 0], 2),
        (true, true) => ([p, before.min(after), before.max(after)], 3),
        (false, false) => ([p, 0, 0], 1),
    }
}

/// The processes before and after `p` on a ring of `n`.
#[inline(always)]
pub(super) fn ring_neighbours(p: u32, n: u32) -> (u32, u32) {
    let before = if p == 0 { n - 1 } else { p - 1 };
    let after = if p + 1 == n { 0 } else { p + 1 };
    (before, after)
}

/// Re-evaluates `q`'s guards in `env` (a guard environment on the
/// configuration after the step) and updates its chosen action and the
/// enabled set; a process the step disables leaves the round
/// (neutralized).
#[inline(always)]
pub(super) fn refresh_in(
    code: &Compiled,
    progress: &mut Progress,
    env: &mut Env,
    q: u32,
) -> Result<(), RunError> {
    refresh_after(code, progress, env, q, None)
}

/// [`refresh_in`] after a step that changed the slots `changed` (when
/// given, and where `q`'s role leaves guards alone: see
/// [`first_true_after`]) of the rows [`Whose`] says: the guards that read
/// none of them there are left alone.
#[inline(always)]
pub(super) fn refresh_after(
    code: &Compiled,
    progress: &mut Progress,
    env: &mut Env,
    q: u32,
    changed: Option<(u64, Whose)>,
) -> Result<(), RunError> {
    env.me = q as usize;
    let info = &mut progress.procs[q as usize];
    let role = &code.roles[info.role as usize];
    let first = match (changed, &role.slot_readers) {
        (Some(changed), Some(readers)) => {
            first_true_after(role, readers, (env, code.stride), info.chosen, changed)
        }
        _ => first_true(role, env, false),
    };
    let a = match first {
        Ok(a) => a,
        Err((i, fault)) => return Err(guard_fault(role, q as usize, i, progress.steps, fault)),
    };
    settle_choice(progress, q, a);
    Ok(())
}

/// Keeps `a` as process `q`'s first enabled action (`NO_ACTION`: none),
/// listing or unlisting it as enabled.
#[inline(always)]
pub(super) fn settle_choice(progress: &mut Progress, q: u32, a: u16) {
    let info = &mut progress.procs[q as usize];
    info.chosen = a;
    let listed = info.pos != NONE;
    if a == NO_ACTION {
        // Only a listed process can be in the round: the round starts
        // with the enabled ones, and each leaves it when disabled.
        if listed {
            progress.enabled.remove(&mut progress.procs, q);
            if progress.in_round.take(q as usize) {
                progress.pending -= 1;
            }
        }
    } else if !listed {
        progress.enabled.insert_unlisted(info, q);
    }
}

/// [`refresh_after`] of the mover `p` of a single move (every other
/// process standing still), whose action `disables` it or not (see
/// [`crate::compile::CAction::disables_mover`]): if it does, it has no
/// enabled action, which is known without evaluating its guard.
#[inline(always)]
fn refresh_lone_mover(
    code: &Compiled,
    progress: &mut Progress,
    env: &mut Env,
    (p, disables): (u32, bool),
    changed: Option<(u64, Whose)>,
) -> Result<(), RunError> {
    if disables {
        settle_choice(progress, p, NO_ACTION);
        return Ok(());
    }
    refresh_after(code, progress, env, p, changed)
}

/// Whether the action the one mover `m` of a step took disables it (see
/// [`crate::compile::CAction::disables_mover`]), asked before it is
/// refreshed (its first enabled action is then the one it took, the only
/// one of a role where any does).
fn disables_mover(code: &Compiled, progress: &Progress, m: u32) -> bool {
    let info = progress.procs[m as usize];
    let actions = &code.roles[info.role as usize].actions;
    actions
        .get(usize::from(info.chosen))
        .is_some_and(|a| a.disables_mover)
}

/// [`refresh_in`] of the processes a move of `p` affects on a ring of
/// `n` (its action `disables` it or not: see [`refresh_lone_mover`]), in
/// [`ring_affected`]'s order, unrolled on `readers` (building its
/// list cost 12 to 18 instructions a step in the hot loops that call this).
#[inline(always)]
pub(super) fn refresh_ring(
    code: &Compiled,
    progress: &mut Progress,
    env: &mut Env,
    (p, n, disables): (usize, usize, bool),
    readers: (bool, bool),
    changed: Option<(u64, Mover)>,
) -> Result<(), RunError> {
    let (p, n) = (p as u32, n as u32);
    let (before, after) = ring_neighbours(p, n);
    let own = changed.map(|(vars, _)| (vars, Whose::Own));
    let others = changed.map(|(vars, mover)| (vars, Whose::Others(mover)));
    refresh_lone_mover(code, progress, env, (p, disables), own)?;
    match readers {
        (true, false) => refresh_after(code, progress, env, after, others)?,
        (false, true) => refresh_after(code, progress, env, before, others)?,
        (true, true) => {
            refresh_after(code, progress, env, before.min(after), others)?;
            refresh_after(code, progress, env, before.max(after), others)?;
        }
        (false, false) => {}
    }
    Ok(())
}

impl Simulation {
    /// Where the action each process would run is kept now.
    pub(super) fn chosen(&self) -> Chosen<'_> {
        match &self.progress.dense {
            Some(d) => Chosen::Column(&d.chosen),
            None => Chosen::Procs(&self.progress.procs),
        }
    }

    /// Brings the per-process bookkeeping up to date after column steps
    /// (see [`Dense`]): chosen actions and positions, the enabled list in
    /// index order, the round's flags (a round starts after every column
    /// step) and the last step's movers.
    #[inline]
    pub(super) fn settle(&mut self) {
        if self.progress.last.lazy || self.progress.dense.is_some() {
            self.settle_columns();
        }
    }

    pub(super) fn settle_columns(&mut self) {
        let progress = &mut self.progress;
        let last = &mut progress.last;
        if last.lazy {
            let (movers, actions) = match last.worked_out.take() {
                Some(done) => done,
                None => last.moves_of_chosen(),
            };
            last.movers = movers;
            last.actions = actions;
            last.lazy = false;
        }
        let Some(dense) = progress.dense.take() else {
            return;
        };
        if let Some(buf) = self.columns.as_mut() {
            buf.keep_uniform(dense.uniform);
        }
        if progress.procs.is_empty() {
            progress.procs = self.code.role_of.iter().map(ProcInfo::of_role).collect();
        }
        let list = &mut progress.enabled.list;
        list.clear();
        list.reserve(dense.count);
        append_chosen(&dense.chosen, 0, list, None);
        let mut k = 0u32;
        for ((infos, chosen), word) in progress
            .procs
            .chunks_mut(64)
            .zip(dense.chosen.chunks(64))
            .zip(progress.in_round.0.iter_mut())
        {
            let bits = chosen_bits(chosen);
            *word = bits;
            for (info, &c) in infos.iter_mut().zip(chosen) {
                info.chosen = c;
                info.pos = NONE;
            }
            let mut rest = bits;
            while rest != 0 {
                infos[rest.trailing_zeros() as usize].pos = k;
                k += 1;
                rest &= rest - 1;
            }
        }
    }

    /// The first action of `p` whose guard holds, among all actions or only
    /// those whose guards read timers.
    pub(super) fn first_true_guard(
        &self,
        p: usize,
        only_timers: bool,
    ) -> Result<Option<u32>, RunError> {
        let role = &self.code.roles[self.code.role_of.of(p)];
        match first_true(role, &self.env(p, &[]), only_timers) {
            Ok(NO_ACTION) => Ok(None),
            Ok(a) => Ok(Some(u32::from(a))),
            Err((i, fault)) => Err(guard_fault(role, p, i, self.progress.steps, fault)),
        }
    }

    /// Whether a move of `p` affects few enough processes that the list of
    /// them is searched instead of marking bits.
    pub(super) fn few_readers(&self, p: usize) -> bool {
        self.topo.regular_ring.is_some() || self.topo.readers(p).len() <= 8
    }

    /// Adds mover `p` and the processes that read it to the affected ones.
    /// With `only_guard_readers`, on a ring, only the neighbours whose
    /// guards read it: this leaves out refreshes that change nothing, but
    /// with several movers it would change the order of the refreshes that
    /// do, and so the enabled list's order; only single moves use it.
    #[inline]
    pub(super) fn affect_mover(&mut self, p: u32, few: bool, only_guard_readers: bool) {
        if !few {
            self.marks.grow(self.topo.n());
        }
        let (marks, affected) = (&mut self.marks, &mut self.affected);
        affect(marks, affected, few, p);
        let ring = match self.topo.regular_ring {
            Some(_) if only_guard_readers => self.ring_guard_readers,
            Some(both) => Some((true, both)),
            None => None,
        };
        match ring {
            // On rings the readers are computed, not looked up.
            // In increasing order, as the neighbour lists are (so runs
            // are the same as through the lists).
            // On a ring of one or two they repeat: `affect` leaves
            // repeats out.
            Some(readers) => {
                let (affects, count) = ring_affected(p, self.topo.n() as u32, readers);
                for &q in &affects[1..count] {
                    affect(marks, affected, few, q);
                }
            }
            None => {
                for &q in self.topo.readers(p as usize) {
                    affect(marks, affected, few, q);
                }
            }
        }
    }

    /// Re-evaluates the guards of the processes the step affected and
    /// updates their chosen actions and the enabled set; the processes it
    /// disables leave the round (neutralized). Guards cannot read
    /// whether a process is enabled, so one environment serves them all.
    /// Where the step's movers changed only the slots `changed` of their
    /// rows (when given), the guards that read none of them are left
    /// alone: with `one_mover`, the first affected process is the step's
    /// one mover, and the others see only what it changed of a process
    /// they read; else every affected process counts as a mover. A one
    /// mover whose action disables it is unlisted without its guard
    /// evaluated (see [`refresh_lone_mover`]).
    #[inline]
    pub(super) fn refresh_affected(
        &mut self,
        changed: Option<u64>,
        one_mover: bool,
    ) -> Result<(), RunError> {
        let b = &self.buf;
        let mut env = Env::new(&self.state, &self.topo, &b.locals, &self.chans, &b.fx, 0);
        let (code, progress) = (&self.code, &mut self.progress);
        // Two loops, so that every guard evaluated tests nothing for it.
        match changed {
            // The mover first, then those that read it.
            None if one_mover => {
                let (&m, readers) = self.affected.split_first().expect("the mover");
                let disables = disables_mover(code, progress, m);
                refresh_lone_mover(code, progress, &mut env, (m, disables), None)?;
                for &q in readers {
                    refresh_in(code, progress, &mut env, q)?;
                }
            }
            None => {
                for &q in &self.affected {
                    refresh_in(code, progress, &mut env, q)?;
                }
            }
            Some(vars) if one_mover => {
                let (&m, readers) = self.affected.split_first().expect("the mover");
                let stride = code.stride;
                let at = m as usize * stride;
                let (before, after) = (&progress.last.before, &self.state[at..]);
                let mover = Mover::new(m as usize, code.under_slot, before, after);
                let disables = disables_mover(code, progress, m);
                refresh_lone_mover(
                    code,
                    progress,
                    &mut env,
                    (m, disables),
                    Some((vars, Whose::Own)),
                )?;
                for &q in readers {
                    let whose = Whose::Others(mover);
                    refresh_after(code, progress, &mut env, q, Some((vars, whose)))?;
                }
            }
            Some(vars) => {
                for &q in &self.affected {
                    refresh_after(code, progress, &mut env, q, Some((vars, Whose::Both)))?;
                }
            }
        }
        Ok(())
    }

    /// The end of a step, once the affected processes are refreshed: rounds
    /// (and timers at a round's end) and legitimacy.
    #[inline]
    pub(super) fn finish_step(&mut self) -> Result<Outcome, RunError> {
        // Rounds: movers are done (the refresh has taken the neutralized
        // processes out of the round).
        for &p in &self.progress.last.movers {
            if self.progress.in_round.take(p as usize) {
                self.progress.pending -= 1;
            }
        }
        self.movers_done(None)
    }

    /// [`Simulation::finish_step`] for a step whose one mover is `p`, its
    /// action writing the slots `writes`.
    #[inline]
    pub(super) fn finish_single(&mut self, p: usize, writes: u64) -> Result<Outcome, RunError> {
        if self.progress.in_round.take(p) {
            self.progress.pending -= 1;
        }
        self.movers_done(Some(writes))
    }

    /// The end of a step once its movers have left the round; `writes`,
    /// the slots its one mover's action writes where the caller knows them
    /// (else they are found from the step's record).
    #[inline(always)]
    fn movers_done(&mut self, writes: Option<u64>) -> Result<Outcome, RunError> {
        self.progress.steps_in_round += 1;
        let full = self.progress.pending == 0 && self.end_round()?;
        let stands = match writes {
            Some(writes) => self.progress.legitimacy_stands(&self.code, writes),
            None => self.moves_leave_legitimacy(),
        };
        if full || !stands {
            self.update_legitimacy(full)?;
        }
        Ok(Outcome::Moved)
    }

    /// Whether the last step's movers wrote nothing the legitimacy
    /// predicate reads: its value, and each of its parts', stand.
    fn moves_leave_legitimacy(&self) -> bool {
        let (code, last) = (&self.code, &self.progress.last);
        if last.movers.len() != last.actions.len() {
            return false;
        }
        let written = (last.movers.iter().zip(&last.actions)).fold(0, |written, (&p, &a)| {
            written | code.roles[code.role_of.of(p as usize)].actions[a as usize].writes
        });
        self.progress.legitimacy_stands(code, written)
    }

    /// Every process of the round has moved or been neutralized: timers
    /// advance and the next round starts. Whether legitimacy is to be
    /// evaluated in full: timers change every process (otherwise only the
    /// processes the step affected changed).
    fn end_round(&mut self) -> Result<bool, RunError> {
        self.progress.rounds_done += 1;
        let timers_ran = !self.code.timers.is_empty();
        if timers_ran {
            self.advance_timers()?;
        }
        self.progress.start_round();
        Ok(timers_ran && self.code.legitimate_reads_timers)
    }

    /// With no process enabled, time still passes while a timer can run: a
    /// round with no step ends (`last().tick`). Otherwise the run is silent.
    pub(super) fn tick(&mut self) -> Result<Outcome, RunError> {
        if !self.timers_can_run() {
            return Ok(Outcome::Silent);
        }
        let last = &mut self.progress.last;
        last.movers.clear();
        last.actions.clear();
        last.before.clear();
        last.after.clear();
        last.whole = false;
        last.received.clear();
        last.sent.clear();
        last.tick = true;
        self.progress.rounds_done += 1;
        self.advance_timers()?;
        self.progress.start_round();
        if self.code.legitimate_reads_timers {
            self.update_legitimacy(true)?;
        }
        Ok(Outcome::Moved)
    }

    pub(super) fn timers_can_run(&self) -> bool {
        crate::runtime::tick::timers_can_run(&self.code, &self.topo, &self.state)
    }

    /// A round has ended: every timer advances by one (stopping at its
    /// maximum) and guards that read them are re-evaluated.
    pub(super) fn advance_timers(&mut self) -> Result<(), RunError> {
        if self.code.timers.is_empty() {
            return Ok(());
        }
        crate::runtime::tick::advance_timers(&self.code, &self.topo, &mut self.state);
        // Only guards that read timers can change: an enabled process is
        // looked at again in full, a disabled one only if such a guard now
        // holds. (The round has ended: no process is left in it.)
        for p in 0..self.topo.n() {
            if self.progress.procs[p].chosen != NO_ACTION || self.timer_guard_holds(p)? {
                let b = &self.buf;
                let mut env = Env::new(&self.state, &self.topo, &b.locals, &self.chans, &b.fx, p);
                refresh_in(&self.code, &mut self.progress, &mut env, p as u32)?;
            }
        }
        Ok(())
    }

    pub(super) fn timer_guard_holds(&self, p: usize) -> Result<bool, RunError> {
        Ok(self.first_true_guard(p, true)?.is_some())
    }
}

impl Progress {
    /// Whether legitimacy, evaluated (not a count of enabled processes,
    /// which reads more than rows) since the configuration was last set,
    /// its parts included, stands after a step whose movers wrote the
    /// slots `written` of their rows: it reads none of them.
    #[inline]
    pub(super) fn legitimacy_stands(&self, code: &Compiled, written: u64) -> bool {
        code.legit_slots.is_some_and(|read| written & read == 0)
            && self.legit_now.is_some()
            && self.legit.len() == code.legit_parts.len()
    }

    /// A round starts with every process enabled now.
    pub(super) fn start_round(&mut self) {
        self.steps_in_round = 0;
        self.pending = self.enabled.list.len();
        // One process enabled (a token ring's legitimate runs): no loop.
        if let [only] = self.enabled.list[..] {
            self.in_round.set(only as usize);
            return;
        }
        for &p in &self.enabled.list {
            self.in_round.set(p as usize);
        }
    }
}
