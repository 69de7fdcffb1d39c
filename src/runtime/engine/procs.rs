//! The runtime's bookkeeping of each process: the action it would run,
//! its place in the set of enabled processes, its role.

use crate::topology::NONE;
use std::cell::OnceCell;

/// After a synchronous step evaluated column by column, what every process
/// would run next, as a column; the enabled list, positions and round flags
/// are worked out from it when needed (see [`Simulation::settle`](super::Simulation::settle)).
#[derive(Clone)]
pub(super) struct Dense {
    pub(super) chosen: Vec<u16>,
    /// Processes with an action chosen.
    pub(super) count: usize,
    /// Their list, in index order, when asked for.
    pub(super) list: OnceCell<Vec<u32>>,
    /// Per chunk of the column kernels, the action every process of it
    /// chose (`NO_ACTION` where none chose one), where they all chose the
    /// same: the next column step runs such a chunk without reading its
    /// part of the column.
    pub(super) uniform: Vec<Option<u16>>,
}

/// The runtime's bookkeeping of one process, kept together so a step
/// touches one cache line per process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProcInfo {
    /// Its place in the list of enabled processes, or `NONE`.
    pub(crate) pos: u32,
    /// The action it would run (the first enabled), or [`crate::compile::NO_ACTION`].
    pub(crate) chosen: u16,
    /// Its role.
    pub(crate) role: u16,
}

impl ProcInfo {
    /// A process of role `role` with no action chosen, out of the enabled list.
    pub(crate) fn of_role(role: usize) -> Self {
        ProcInfo {
            chosen: crate::compile::NO_ACTION,
            pos: NONE,
            role: role as u16,
        }
    }
}

/// Where the action each process would run is kept: in its bookkeeping, or
/// (after a synchronous step evaluated column by column) in one column.
#[derive(Clone, Copy, Debug)]
pub(super) enum Chosen<'a> {
    /// [`ProcInfo::chosen`] of each process.
    Procs(&'a [ProcInfo]),
    /// One action per process.
    Column(&'a [u16]),
}

impl Chosen<'_> {
    /// The action process `p` would run, or [`crate::compile::NO_ACTION`].
    #[inline]
    pub(super) fn of(&self, p: usize) -> u16 {
        match self {
            Chosen::Procs(procs) => procs[p].chosen,
            Chosen::Column(c) => c[p],
        }
    }
}

/// The set of enabled processes: O(1) insert, remove and uniform choice.
/// Positions live in each process's [`ProcInfo`], next to the rest of its
/// bookkeeping, so a step touches one cache line per process.
#[derive(Default, Clone)]
pub(super) struct EnabledSet {
    pub(super) list: Vec<u32>,
}

impl EnabledSet {
    /// Lists `p`, whose bookkeeping is `info`, which is not listed.
    #[inline(always)]
    pub(super) fn insert_unlisted(&mut self, info: &mut ProcInfo, p: u32) {
        debug_assert_eq!(info.pos, NONE, "process {p} is listed already");
        info.pos = self.list.len() as u32;
        self.list.push(p);
    }
    pub(super) fn remove(&mut self, procs: &mut [ProcInfo], p: u32) {
        let i = procs[p as usize].pos;
        if i != NONE {
            let last = self.list.pop().expect("non-empty");
            if last != p {
                self.list[i as usize] = last;
                procs[last as usize].pos = i;
            }
            procs[p as usize].pos = NONE;
        }
    }
}
