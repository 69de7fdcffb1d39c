//! What a step did: its movers, their actions, their rows before and after,
//! the messages taken and sent. The step relation writes it; traces, the
//! REPL and tests read it.

use crate::compile::NO_ACTION;
use crate::state::channels::Msg;
use std::cell::OnceCell;

/// The movers of the last step, their actions, and their rows before and after.
#[derive(Default, Debug, Clone)]
pub struct StepRecord {
    /// The processes that moved, in selection order (see [`StepRecord::movers`]).
    pub(crate) movers: Vec<u32>,
    /// Index of each mover's action in its role's compiled action list.
    pub(crate) actions: Vec<u32>,
    /// After a column step: movers and actions are those of `chosen_before`,
    /// worked out when first asked for.
    pub(crate) lazy: bool,
    /// After a column step, the action every process had chosen before it.
    pub(crate) chosen_before: Vec<u16>,
    /// Movers and actions worked out from `chosen_before`.
    pub(crate) worked_out: OnceCell<(Vec<u32>, Vec<u32>)>,
    /// Each mover's row before the step, `stride` values each; after a
    /// column step, the whole configuration before it (see
    /// [`Simulation::mover_rows`](crate::runtime::engine::Simulation::mover_rows)).
    pub(crate) before: Vec<i64>,
    /// Each mover's row after the step; unused after a column step, whose
    /// rows after are the configuration's.
    pub(crate) after: Vec<i64>,
    /// Whether `before` is the whole configuration before the step.
    pub(crate) whole: bool,
    /// Per mover, the message it took: (sender, message); empty when the
    /// program passes no messages.
    pub received: Vec<Option<(u32, Msg)>>,
    /// Messages sent: (sender, destination, message).
    pub sent: Vec<(u32, u32, Msg)>,
    /// In a tick, where a process moves several times: per message sent,
    /// the move (its place among the movers) that sent it; empty otherwise.
    pub sent_by: Vec<u32>,
    /// Whether no step was taken and only time passed: no process was
    /// enabled, the round ended and timers advanced.
    pub tick: bool,
    /// The values the movers drew, in mover order (see
    /// [`StepRecord::drawn`]); empty when the program does not draw.
    pub(crate) drawn: Vec<i64>,
    /// Per mover, where its values in `drawn` end; empty when the program
    /// does not draw.
    pub(crate) drawn_ends: Vec<u32>,
    /// Per mover, the binder member its action ran for (`None`: the action
    /// has no binder); empty when no action of the program has one.
    pub(crate) members: Vec<Option<i64>>,
}

impl StepRecord {
    /// Empties it, as [`StepRecord::default`] would, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.movers.clear();
        self.lazy = false;
        self.chosen_before.clear();
        self.worked_out = OnceCell::new();
        self.forget_moves();
    }

    /// Forgets what the movers did (their actions, rows, messages and
    /// draws), keeping who they are: a step about to be taken by them.
    pub(crate) fn forget_moves(&mut self) {
        self.actions.clear();
        self.before.clear();
        self.after.clear();
        self.whole = false;
        self.received.clear();
        self.sent.clear();
        self.sent_by.clear();
        self.tick = false;
        self.drawn.clear();
        self.drawn_ends.clear();
        self.members.clear();
    }

    /// Records `drawn` as what the next mover drew.
    pub(crate) fn note_drawn(&mut self, drawn: &[i64]) {
        self.drawn.extend_from_slice(drawn);
        self.drawn_ends.push(self.drawn.len() as u32);
    }

    /// The values the `k`-th mover drew, in order, as a schedule gives them
    /// (`P:ACTION<v,...>`: a set's member by its position, a coin as 0 or 1).
    pub fn drawn(&self, k: usize) -> &[i64] {
        match self.drawn_ends.get(k) {
            Some(&end) => {
                let start = k.checked_sub(1).map_or(0, |j| self.drawn_ends[j]);
                &self.drawn[start as usize..end as usize]
            }
            None => &[],
        }
    }

    /// The binder member the `k`-th mover's action ran for, as a schedule
    /// names it (`P:ACTION@Q`); `None` for an action without a binder.
    pub fn member(&self, k: usize) -> Option<i64> {
        self.members.get(k).copied().flatten()
    }

    /// The processes that moved, in selection order (index order after a
    /// synchronous step).
    pub fn movers(&self) -> &[u32] {
        if self.lazy {
            &self.work_out().0
        } else {
            &self.movers
        }
    }

    /// Index of each mover's action in its role's compiled action list.
    pub fn actions(&self) -> &[u32] {
        if self.lazy {
            &self.work_out().1
        } else {
            &self.actions
        }
    }

    fn work_out(&self) -> &(Vec<u32>, Vec<u32>) {
        self.worked_out.get_or_init(|| self.moves_of_chosen())
    }

    /// The processes with an action in `chosen_before`, and those actions.
    pub(crate) fn moves_of_chosen(&self) -> (Vec<u32>, Vec<u32>) {
        let (mut movers, mut actions) = (Vec::new(), Vec::new());
        append_chosen(&self.chosen_before, 0, &mut movers, Some(&mut actions));
        (movers, actions)
    }
}

/// The processes of a group of at most 64 with an action chosen, as bits.
#[inline]
pub(crate) fn chosen_bits(group: &[u16]) -> u64 {
    let mut bits = 0u64;
    for (j, &c) in group.iter().enumerate() {
        bits |= u64::from(c != NO_ACTION) << j;
    }
    bits
}

/// Appends to `procs` the processes `lo + j` with an action chosen
/// (`chosen[j]`), and their actions to `actions` if given; 64 at a time,
/// so that groups where all or none are enabled cost little.
pub(crate) fn append_chosen(
    chosen: &[u16],
    lo: usize,
    procs: &mut Vec<u32>,
    mut actions: Option<&mut Vec<u32>>,
) {
    for (g, group) in chosen.chunks(64).enumerate() {
        let base = (lo + g * 64) as u32;
        let bits = chosen_bits(group);
        if bits == 0 {
            continue;
        }
        if bits.count_ones() as usize == group.len() {
            procs.extend(base..base + group.len() as u32);
            if let Some(a) = actions.as_deref_mut() {
                a.extend(group.iter().map(|&c| u32::from(c)));
            }
            continue;
        }
        let mut rest = bits;
        while rest != 0 {
            let j = rest.trailing_zeros();
            procs.push(base + j);
            if let Some(a) = actions.as_deref_mut() {
                a.push(u32::from(group[j as usize]));
            }
            rest &= rest - 1;
        }
    }
}
