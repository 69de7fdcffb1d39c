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
use crate::state::Config;
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
    /// The processes that moved, and their rows after the tick, until
    /// [`land_tick`] writes them.
    moved: Vec<u32>,
    rows_after: Vec<i64>,
    /// The messages sent in the tick, for [`Channels::end_tick`].
    fresh: Vec<(u64, usize, usize)>,
}

/// The moves of one tick (phase 1 of the module's doc) from `state` and on
/// `chans`, recorded in `record` (a process once per move, in the order
/// made). Messages sent are [`FRESH`] until [`end_tick`]; the rows the
/// moves write are kept in `tb` until [`land_tick`], so that on an error
/// `state` is as before and [`undo_channels`] puts `chans` back.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tick_moves(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &[i64],
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
    tb.moved.clear();
    tb.rows_after.clear();
    buf.sent_due = FRESH;
    let result = (0..topo.n()).try_for_each(|p| {
        tb.done.clear();
        let role = &code.roles[code.role_of.of(p)];
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
            // The process's row after its moves is kept for the landing,
            // and its row from before the tick goes back to what the
            // others read.
            let row = p * stride..(p + 1) * stride;
            tb.moved.push(p as u32);
            tb.rows_after.extend_from_slice(&tb.pre[row.clone()]);
            tb.pre[row.clone()].copy_from_slice(&state[row]);
        }
        Ok(())
    });
    buf.sent_due = 0;
    result
}

/// Writes the rows of the last [`tick_moves`] into `state`.
pub(crate) fn land_tick(code: &Compiled, state: &mut [i64], tb: &TickBuffers) {
    let stride = code.stride;
    for (k, &p) in tb.moved.iter().enumerate() {
        let p = p as usize;
        state[p * stride..(p + 1) * stride]
            .copy_from_slice(&tb.rows_after[k * stride..(k + 1) * stride]);
    }
}

/// Puts `chans` back as they were before a [`tick_moves`] that `record`
/// recorded (which failed, or whose tick is refused): the messages it sent
/// leave, those it took return to the heads of their channels.
pub(crate) fn undo_channels(topo: &Topology, chans: &mut Channels, record: &StepRecord) {
    for q in &mut chans.queues {
        q.retain(|m| m.due != FRESH);
    }
    for (k, taken) in record.received.iter().enumerate().rev() {
        if let Some((s, m)) = taken {
            if let Some(a) = topo.arc(*s as usize, record.movers[k] as usize) {
                chans.queues[a].push_front(*m);
            }
        }
    }
}

/// Phases 2 and 3 of a tick: the messages in transit come a tick closer,
/// those sent in it are given their delays (`due(least)`: how many more
/// ticks after this one, at least `least`, see [`Channels::end_tick`]),
/// and the timers advance. The messages `record` says were sent get their
/// delays too.
pub(crate) fn end_tick(
    (code, topo): (&Compiled, &Topology),
    state: &mut [i64],
    chans: &mut Channels,
    (record, tb): (&mut StepRecord, &mut TickBuffers),
    due: impl FnMut(u16) -> u16,
) {
    chans.end_tick(&mut tb.fresh, due);
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

/// Whether some timer in `rows` is below the top of its domain, so that
/// time passing still changes the configuration.
pub(crate) fn timers_can_run(code: &Compiled, topo: &Topology, rows: &[i64]) -> bool {
    let stride = code.stride;
    code.timers.iter().any(|&(first, len, max)| {
        (0..topo.n()).any(|p| {
            let used = timer_slots(code, topo, p, first, len);
            rows[p * stride + first..p * stride + first + used]
                .iter()
                .any(|&v| v < max)
        })
    })
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
        topo.nbr_count(p).min(len)
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

/// The tick relation as a pure function on configurations, for exhaustive
/// exploration: from a configuration, the moves of its tick and every
/// successor, one for each delay its messages may take.
pub struct TickRelation<'a> {
    prog: &'a ir::Program,
    code: &'a Compiled,
    topo: &'a Topology,
    buf: StepBuffers,
    tb: TickBuffers,
    record: StepRecord,
    after: Config,
}

/// One successor of a tick: the configuration (canonical) and the delay
/// each message sent in the tick takes, in the order they were sent.
pub type TickSuccessor = (Config, Vec<u16>);

impl<'a> TickRelation<'a> {
    /// The tick relation of `prog` compiled as `code` on `topo` (a program
    /// that runs in ticks).
    pub fn new(
        prog: &'a ir::Program,
        code: &'a Compiled,
        topo: &'a Topology,
        like: &Config,
    ) -> Self {
        TickRelation {
            prog,
            code,
            topo,
            buf: StepBuffers::new(code),
            tb: TickBuffers::default(),
            record: StepRecord::default(),
            after: like.clone(),
        }
    }

    /// Whether nothing can happen from `cfg` any more: no process has a
    /// move, no message is on its way, no timer can advance.
    pub fn is_silent(&self, cfg: &Config) -> Result<bool, RunError> {
        if cfg.chans.in_transit() || timers_can_run(self.code, self.topo, &cfg.rows) {
            return Ok(false);
        }
        let rel = crate::runtime::step::StepRelation::new(self.prog, self.code, self.topo);
        Ok(rel.enabled(cfg)?.is_empty())
    }

    /// The moves of `cfg`'s tick (process and action of each, in the order
    /// made), and into `out` every successor.
    pub fn successors(
        &mut self,
        cfg: &Config,
        out: &mut Vec<TickSuccessor>,
    ) -> Result<Vec<(u32, u32)>, RunError> {
        out.clear();
        let after = &mut self.after;
        after.rows.clone_from(&cfg.rows);
        after.chans.clone_from(&cfg.chans);
        tick_moves(
            self.prog,
            self.code,
            self.topo,
            &cfg.rows,
            &mut after.chans,
            0,
            &mut self.buf,
            &mut self.tb,
            &mut self.record,
        )?;
        land_tick(self.code, &mut after.rows, &self.tb);
        let moves = self
            .record
            .movers
            .iter()
            .zip(&self.record.actions)
            .map(|(&p, &a)| (p, a))
            .collect();
        // What every successor shares: messages a tick closer, timers on.
        for m in after.chans.queues.iter_mut().flatten() {
            if m.due != FRESH {
                m.due = m.due.saturating_sub(1);
            }
        }
        advance_timers(self.code, self.topo, &mut after.rows);
        // The messages sent, in the order sent: (channel, place).
        let mut fresh: Vec<(u64, usize, usize)> = Vec::new();
        for (a, q) in after.chans.queues.iter().enumerate() {
            for (i, m) in q.iter().enumerate() {
                if m.due == FRESH {
                    fresh.push((m.seq, a, i));
                }
            }
        }
        fresh.sort_unstable();
        let (lo, hi) = self.code.delay.unwrap_or((1, 1));
        let mut delays = Vec::with_capacity(fresh.len());
        let mut next = after.clone();
        each_delay(&mut next, &fresh, (lo - 1, hi - 1), &mut delays, out);
        Ok(moves)
    }
}

/// Every way the messages `fresh` (channel, place, in the order sent) may
/// be given how many more ticks they take, `lo..=hi` but never fewer than
/// the message ahead of them: each a successor in `out`.
fn each_delay(
    cfg: &mut Config,
    fresh: &[(u64, usize, usize)],
    (lo, hi): (u16, u16),
    delays: &mut Vec<u16>,
    out: &mut Vec<TickSuccessor>,
) {
    let Some(&(_, a, i)) = fresh.get(delays.len()) else {
        let mut done = cfg.clone();
        done.canonicalize();
        out.push((done, delays.clone()));
        return;
    };
    let least = if i > 0 {
        cfg.chans.queues[a][i - 1].due
    } else {
        0
    };
    for due in lo.max(least)..=hi {
        cfg.chans.queues[a][i].due = due;
        delays.push(due + 1);
        each_delay(cfg, fresh, (lo, hi), delays, out);
        delays.pop();
    }
    cfg.chans.queues[a][i].due = FRESH;
}
