//! Which action a process runs. Its *enabled* actions are those of the
//! most urgent priority whose guards hold, receive actions of that priority
//! counted once (the one whose message is oldest: a process takes its
//! messages oldest first, so that no channel starves another). A move is
//! any one of them, for any member of its binder whose guard holds, with
//! any values its draws take ([`Move`]): what `verify` explores. Runs take
//! the first of them in program order, for the first member (or one at
//! random with `--choice random`), and draw from their generator. Used by
//! every path that steps (the engine, the step relation).

use crate::compile::{CRole, Compiled, Env, Fault, Holds, SlotReaders, NO_ACTION};
use crate::runtime::error::{guard_fault, RunError};

/// One move of a process: which action it runs, for which binder member,
/// with which values drawn. Steps of runs name the action only; the
/// verifier's steps and schedules may name all three.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The process.
    pub process: u32,
    /// Its action's index in its role's compiled action list.
    pub action: u32,
    /// The member of the action's binder it runs for; `None`: the first
    /// whose guard holds (or the action has no binder).
    pub member: Option<i64>,
    /// The values its draws take, in order; `None`: drawn from the run's
    /// generator.
    pub draws: Option<Vec<i64>>,
}

impl Move {
    /// Process `p` running action `a` as runs do: the first member, draws
    /// from the generator.
    pub fn first(p: u32, a: u32) -> Self {
        Move {
            process: p,
            action: a,
            member: None,
            draws: None,
        }
    }

    /// The move as schedules and the verifier write it: `3` (the process
    /// alone, when `named` is false: it had no other move), `3:label`,
    /// `3:label@5` (binder member 5), `3:label<1,0>` (the values drawn).
    pub fn text(&self, code: &Compiled, named: bool) -> String {
        if !named && self.member.is_none() && self.draws.as_ref().is_none_or(Vec::is_empty) {
            return self.process.to_string();
        }
        let role = &code.roles[code.role_of.of(self.process as usize)];
        crate::runtime::schedule::move_text(
            self.process,
            &role.actions[self.action as usize].label,
            self.member,
            self.draws.as_deref(),
        )
    }
}

/// Every enabled action of `role` in `env` (see the module's doc), in
/// program order, into `out`. A fault comes with the index of the action
/// whose guard raised it.
pub(crate) fn enabled_actions(
    role: &CRole,
    env: &Env,
    out: &mut Vec<u32>,
) -> Result<(), (usize, Box<Fault>)> {
    out.clear();
    let mut priority = None;
    // The oldest message a receive of the priority found would take, and
    // that receive.
    let mut oldest: Option<(u64, usize)> = None;
    for (i, a) in role.actions.iter().enumerate() {
        if priority.is_some_and(|p| p != a.priority) {
            break;
        }
        match a.guard.holds(env) {
            Ok(true) => {
                priority = Some(a.priority);
                if a.receive_from.is_some() {
                    let seq = head_seq(a, env);
                    if oldest.is_none_or(|(best, _)| seq < best) {
                        oldest = Some((seq, i));
                    }
                } else {
                    out.push(i as u32);
                }
            }
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    if let Some((_, i)) = oldest {
        let at = out.partition_point(|&a| (a as usize) < i);
        out.insert(at, i as u32);
    }
    Ok(())
}

/// The enabled actions of process `p` in `env` (see
/// the module's doc), in program order; none when `first`, its
/// first enabled action, is `NO_ACTION`.
pub(crate) fn enabled_actions_from(
    role: &CRole,
    env: &Env,
    p: usize,
    first: u16,
    step: u64,
) -> Result<Vec<u32>, RunError> {
    let mut out = Vec::new();
    if first != NO_ACTION {
        enabled_actions(role, env, &mut out)
            .map_err(|(i, fault)| guard_fault(role, p, i, step, fault))?;
    }
    Ok(out)
}

/// The sequence number of the message an enabled receive would take, read
/// right after its guard bound the sender.
fn head_seq(a: &crate::compile::CAction, env: &Env) -> u64 {
    let s = env.locals[a.receive_from.expect("a receive")].get() as usize;
    env.chans
        .between(env.topo, s, env.me)
        .and_then(|c| c.front())
        .map_or(u64::MAX, |m| m.seq)
}

/// The first action of `role` whose guard holds in `env`, among all its
/// actions or only those whose guards read timers; `NO_ACTION` when none
/// does. A fault comes with the index of the action whose guard raised it.
#[inline]
pub(crate) fn first_true(
    role: &CRole,
    env: &Env,
    only_timers: bool,
) -> Result<u16, (usize, Box<Fault>)> {
    // A role of one plain action (Dijkstra's ring has two): no loop.
    if let [a] = &role.actions[..] {
        if a.receive_from.is_none() && !only_timers {
            return match a.guard.holds(env) {
                Ok(true) => Ok(0),
                Ok(false) => Ok(NO_ACTION),
                Err(fault) => Err((0, fault)),
            };
        }
    }
    for (i, a) in role.actions.iter().enumerate() {
        if only_timers && !a.reads_timers {
            continue;
        }
        match a.guard.holds(env) {
            Ok(true) if a.receive_from.is_some() => return oldest_receive(role, env, i),
            Ok(true) => return Ok(i as u16),
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    Ok(NO_ACTION)
}

/// Whose rows a step changed, as a process whose guards are refreshed
/// after it sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Whose {
    /// Its own only: it is the step's one mover.
    Own,
    /// Only those of others it may read: the step's one mover's.
    Others(Mover),
    /// Its own and others' (a step of several movers).
    Both,
}

/// A step's one mover, as the processes that read it see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mover {
    /// The process.
    pub(crate) index: u32,
    /// The processes its program-wide `under` slot
    /// ([`crate::compile::Compiled::under_slot`]) named before and after
    /// the step (-1 where there is none).
    pub(crate) tested: [i64; 2],
}

impl Mover {
    /// Process `index`, whose row was `before` and is now `after`, in a
    /// program whose `under` slot is `under`.
    #[inline(always)]
    pub(crate) fn new(index: usize, under: Option<usize>, before: &[i64], after: &[i64]) -> Self {
        let tested = match under {
            Some(slot) => [before[slot], after[slot]],
            None => [-1, -1],
        };
        Mover {
            index: index as u32,
            tested,
        }
    }
}

/// [`first_true`] for a process whose first enabled action was `before`
/// (`NO_ACTION`: none) until a step changed the slots `changed` (bits as
/// [`crate::compile::CAction::guard_reads`] has them) of the rows `whose`
/// says (rows of `stride` slots), `readers` telling which guards read
/// them there. A guard that reads none of them there has its value
/// still: those before `before` are false, `before` is enabled, those
/// after it false if it was `NO_ACTION`, and none of them is evaluated.
/// Gives what [`first_true`] gives, faults included: a guard left alone
/// would give again what it gave, and without a fault. Not for roles with
/// receive actions (the oldest message, not program order, chooses among
/// them).
#[inline]
pub(crate) fn first_true_after(
    role: &CRole,
    readers: &SlotReaders,
    (env, stride): (&Env, usize),
    before: u16,
    (changed, whose): (u64, Whose),
) -> Result<u16, (usize, Box<Fault>)> {
    let column = match whose {
        Whose::Own => &readers.own,
        // What a node variable of this process (which did not move)
        // names is read only where it names the mover; what is read under
        // a test of the mover's node variable, only where that named this
        // process.
        Whose::Others(mover) => {
            let named = (readers.named)
                .is_some_and(|slot| env.state[env.me * stride + slot] == i64::from(mover.index));
            let me = env.me as i64;
            let tested = mover.tested[0] == me || mover.tested[1] == me;
            &readers.others[usize::from(named) | usize::from(tested) << 1]
        }
        Whose::Both => &readers.anywhere,
    };
    let stale = SlotReaders::reading(column, changed);
    // The guards to evaluate, in order, and the action chosen if none of
    // them holds.
    let (mut todo, otherwise) = match before {
        NO_ACTION => (stale, NO_ACTION),
        b if stale >> b & 1 == 0 => (stale & ((1 << b) - 1), b),
        b => (stale | (readers.all & !((1 << b) - 1)), NO_ACTION),
    };
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        match role.actions[i].guard.holds(env) {
            Ok(true) => return Ok(i as u16),
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    Ok(otherwise)
}

/// Among the enabled receive actions of the priority of action `first`
/// (enabled, a receive), the one whose message is oldest: the process
/// takes its messages oldest first whichever action takes them, so that
/// no channel starves another.
#[cold]
fn oldest_receive(role: &CRole, env: &Env, first: usize) -> Result<u16, (usize, Box<Fault>)> {
    let priority = role.actions[first].priority;
    let mut best = (head_seq(&role.actions[first], env), first);
    for (i, a) in role.actions.iter().enumerate().skip(first + 1) {
        if a.priority != priority {
            break;
        }
        if a.receive_from.is_none() {
            continue;
        }
        match a.guard.holds(env) {
            Ok(true) => {
                let seq = head_seq(a, env);
                if seq < best.0 {
                    best = (seq, i);
                }
            }
            Ok(false) => {}
            Err(fault) => return Err((i, fault)),
        }
    }
    Ok(best.1 as u16)
}

/// A move within a tick: action, binder member, and whether that member is
/// the first whose guard holds.
pub(crate) type TickMove = (u32, Option<i64>, bool);

/// The move a process makes next within a tick (a program that runs in
/// ticks, see [`crate::runtime::tick`]): the first action in program order
/// that has something to do, where a receive action takes the oldest
/// arrived message among the receive actions of its priority, and an
/// action without `receive` runs at most once a tick (once per member of
/// its binder): `done` lists those that ran (action, member). With the
/// member, whether it is the first whose guard holds (what the action
/// runs for when none is named). A fault comes with the index of the
/// action whose guard raised it.
pub(crate) fn next_in_tick(
    role: &CRole,
    env: &Env,
    done: &[(u32, Option<i64>)],
) -> Result<Option<TickMove>, (usize, Box<Fault>)> {
    for (i, a) in role.actions.iter().enumerate() {
        let action = i as u32;
        if a.receive_from.is_some() {
            match a.guard.holds(env) {
                Ok(true) => {
                    return oldest_receive(role, env, i).map(|r| Some((r.into(), None, true)))
                }
                Ok(false) => continue,
                Err(fault) => return Err((i, fault)),
            }
        }
        if !done.is_empty() && a.binder.is_none() && done.contains(&(action, None)) {
            continue;
        }
        if !a.guard.holds(env).map_err(|fault| (i, fault))? {
            continue;
        }
        let Some(b) = &a.binder else {
            return Ok(Some((action, None, true)));
        };
        // The guard's search stopped at the first member it holds for.
        let first = env.locals[b.slot].get();
        if !done.contains(&(action, Some(first))) {
            return Ok(Some((action, Some(first), true)));
        }
        let members = (b.members)(env).map_err(|fault| (i, fault))?;
        if let Some(&m) = members
            .iter()
            .find(|&&m| !done.contains(&(action, Some(m))))
        {
            return Ok(Some((action, Some(m), false)));
        }
    }
    Ok(None)
}
