//! Time in ticks, the step relation of a program whose channels declare
//! `delay lo..hi` (the timed message-passing model of papers that bound
//! stabilization in time, such as the arrow protocol's 3R + tau). One
//! step is one tick:
//!
//! 1. every process, in turn, makes every move it has: the first action in
//!    program order with something to do, again and again, where a receive
//!    action takes the oldest message that has *arrived* (among the receive
//!    actions of its priority) and an action without `receive` (a timeout)
//!    runs at most once a tick, once per member of its binder; each move
//!    sees the writes of the process's earlier moves, and the other
//!    processes' variables as they were when the tick began;
//! 2. messages sent in the tick arrive at a later one: each takes lo to hi
//!    ticks (a run draws it, the verifier explores every value), but never
//!    arrives before a message sent ahead of it on its channel (channels
//!    are FIFO);
//! 3. every timer advances by one.
//!
//! So priorities order a process's moves within a tick: a timeout of
//! priority 0 is handled before the messages of priority 1 that arrived in
//! the same tick, and one of priority 2 after them. Processes share no
//! variables in this model (edge variables are refused), so the order in
//! which processes take their turns does not matter.

use crate::check::ir;
use crate::compile::{Compiled, Effects, Env};
use crate::runtime::choose::next_in_tick;
use crate::runtime::record::StepRecord;
use crate::runtime::step::{evaluate, guard_fault, land, Pick, RunError, StepBuffers};
use crate::state::channels::{Channels, FRESH};
use crate::topology::Topology;

/// What a tick works in besides the step's buffers, kept from tick to tick.
#[derive(Default, Clone)]
pub(crate) struct TickBuffers {
    /// The configuration as the tick began, but for the row of the process
    /// whose turn it is, which its moves change.
    pre: Vec<i64>,
    /// The actions without `receive` the process has run this tick.
    done: Vec<(u32, Option<i64>)>,
    /// One move's record.
    one: StepRecord,
}

/// The moves of one tick (phase 1 of the module's doc) on `state` and
/// `chans`, recorded in `record` (a process once per move, in the order
/// made). Messages sent are [`FRESH`] until [`end_tick`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_moves(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &mut [i64],
    chans: &mut Channels,
    step_no: u64,
    buf: &mut StepBuffers,
    tb: &mut TickBuffers,
    record: &mut StepRecord,
) -> Result<(), RunError> {
    clear(record);
    let stride = code.stride;
    tb.pre.clear();
    tb.pre.extend_from_slice(state);
    buf.sent_due = FRESH;
    let result = (0..topo.n()).try_for_each(|p| {
        tb.done.clear();
        let role = &code.roles[code.role_of[p] as usize];
        let mut moved = false;
        loop {
            // Guards write no effects: an empty set will do.
            let fx = Effects::default();
            let env = Env::new(&tb.pre, topo, &buf.locals, chans, &fx, p);
            let (action, member, first) = match next_in_tick(role, &env, &tb.done) {
                Ok(Some(next)) => next,
                Ok(None) => break,
                Err((i, fault)) => return Err(guard_fault(role, p, i, step_no, fault)),
            };
            if role.actions[action as usize].receive_from.is_none() {
                tb.done.push((action, member));
            }
            tb.one.movers.clear();
            tb.one.movers.push(p as u32);
            // The first member is what the action runs for unnamed, which
            // spares listing the members again.
            let pick = Pick {
                action,
                member: member.filter(|_| !first),
                draws: None,
            };
            evaluate(
                prog,
                code,
                topo,
                &tb.pre,
                chans,
                step_no,
                buf,
                &mut tb.one,
                |_| Ok(pick),
            )?;
            land(code, topo, &mut tb.pre, chans, buf, &mut tb.one);
            append(record, &tb.one);
            moved = true;
        }
        if moved {
            // The process's row after its moves goes to the configuration,
            // and its row from before the tick back to what the others read.
            let (now, before) = (
                &mut tb.pre[p * stride..(p + 1) * stride],
                &mut state[p * stride..(p + 1) * stride],
            );
            now.swap_with_slice(before);
        }
        Ok(())
    });
    buf.sent_due = 0;
    result
}

/// Phases 2 and 3 of a tick: the messages in transit come a tick closer,
/// those sent in it are given their delays (`due(least)`: how many more
/// ticks after this one, at least `least`, see [`Channels::end_tick`]),
/// and the timers advance. The messages `record` says were sent get their
/// delays too.
pub(crate) fn end_tick(
    code: &Compiled,
    topo: &Topology,
    state: &mut [i64],
    chans: &mut Channels,
    record: &mut StepRecord,
    due: impl FnMut(u16) -> u16,
) {
    chans.end_tick(due);
    for (s, d, m) in &mut record.sent {
        let arc = topo.arc(*s as usize, *d as usize);
        if let Some(sent) = arc.and_then(|a| chans.queues[a].iter().find(|x| x.seq == m.seq)) {
            m.due = sent.due;
        }
    }
    advance_timers(code, topo, state);
}

/// Every timer advances by one, stopping at the top of its domain.
pub(crate) fn advance_timers(code: &Compiled, topo: &Topology, state: &mut [i64]) {
    let stride = code.stride;
    for p in 0..topo.n() {
        for &(first, len, max) in &code.timers {
            let used = timer_slots(code, topo, p, first, len);
            for v in &mut state[p * stride + first..p * stride + first + used] {
                *v = (*v + 1).min(max);
            }
        }
    }
}

/// How many of a timer's `len` slots process `p` uses: all, or one per
/// neighbour for per-neighbour timers.
pub(crate) fn timer_slots(
    code: &Compiled,
    topo: &Topology,
    p: usize,
    first: usize,
    len: usize,
) -> usize {
    let (v, _) = code.var_of_slot(first);
    if code.per_nbr[v] {
        topo.nbrs(p).len().min(len)
    } else {
        len
    }
}

fn clear(record: &mut StepRecord) {
    record.movers.clear();
    record.actions.clear();
    record.before.clear();
    record.after.clear();
    record.whole = false;
    record.lazy = false;
    record.received.clear();
    record.sent.clear();
    record.sent_by.clear();
    record.tick = false;
}

/// Adds one move's record to the tick's.
fn append(record: &mut StepRecord, one: &StepRecord) {
    let k = record.movers.len() as u32;
    record.sent_by.extend(one.sent.iter().map(|_| k));
    record.movers.extend_from_slice(&one.movers);
    record.actions.extend_from_slice(&one.actions);
    record.before.extend_from_slice(&one.before);
    record.after.extend_from_slice(&one.after);
    record.received.extend_from_slice(&one.received);
    record.sent.extend_from_slice(&one.sent);
}
