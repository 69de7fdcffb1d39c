//! Sets of processes as bits (at most 64 processes): the enabled ones, a
//! step's movers, the processes a move of one can meet or change.

use crate::compile::NO_ACTION;
use crate::topology::Topology;

/// The processes with a chosen action (`chosen`, one per process), as
/// bits; those past 64 are left out.
pub(super) fn enabled_as_bits(chosen: &[u16]) -> u64 {
    chosen
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != NO_ACTION)
        .fold(0, |m, (p, _)| m | 1u64.checked_shl(p as u32).unwrap_or(0))
}

/// Processes as bits; those past 64 are left out.
pub(super) fn as_bits<'p>(processes: impl IntoIterator<Item = &'p u32>) -> u64 {
    processes
        .into_iter()
        .fold(0, |m, &q| m | 1u64.checked_shl(q).unwrap_or(0))
}

/// Per process (at most 64): its neighbours and the processes that read
/// it, as bits: those whose moves its own may meet (a shared edge, a row
/// one of them reads).
pub(super) fn near(topo: &Topology) -> Vec<u64> {
    (0..topo.n())
        .map(|p| as_bits(topo.nbrs(p).iter().chain(topo.readers(p))))
        .collect()
}

/// Per process (at most 64): itself and the processes that read it, the
/// only ones whose guards and moves a move of it can change.
pub(super) fn affects(topo: &Topology) -> Vec<u64> {
    (0..topo.n())
        .map(|p| 1 << p | as_bits(topo.readers(p).iter()))
        .collect()
}

/// The members of a set of processes kept as bits, in increasing order.
pub(super) struct Bits(pub(super) u64);

impl Iterator for Bits {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let p = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(p)
    }
}
