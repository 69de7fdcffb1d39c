//! The guards a step leaves alone: those that read none of the slots of
//! the rows its movers changed keep their values, so the bookkeeping after
//! it evaluates only the others (see
//! [`crate::runtime::choose::first_true_after`]). tests/single_move.rs
//! holds the steps taken so to steps that evaluate every guard they need
//! ([`super::FastPaths::guards_left_alone`] off).

use super::*;
use crate::compile::slot_bit;

/// Whether steps may leave guards alone: the roles of at least half the
/// processes would ([`crate::compile::CRole::leaves_guards_alone`]; else
/// telling what a step changed costs more than it saves, as on Johnen's
/// ring, where only the few processes around the leader's ids have such
/// guards), no role receives messages (the oldest message, not program
/// order, chooses among receives) and no timer runs (rounds change them
/// outside moves).
pub(super) fn guards_may_be_left_alone(code: &Compiled) -> bool {
    let gaining: usize = (code.role_of.runs())
        .filter(|&(_, _, role)| code.roles[role].leaves_guards_alone)
        .map(|(first, end, _)| end - first)
        .sum();
    let most = gaining > 0 && 2 * gaining >= code.role_of.len();
    let actions = || code.roles.iter().flat_map(|r| &r.actions);
    let receives = actions().any(|a| a.receive_from.is_some());
    most && !receives && code.timers.is_empty()
}

/// The slots that differ between a row `before` and `after` (bit `k` for
/// slot `k`, slots from 63 on sharing bit 63), as guards' reads are kept
/// ([`crate::compile::CAction::guard_reads`]).
#[inline]
pub(super) fn changed_slots(before: &[i64], after: &[i64]) -> u64 {
    let mut changed = 0;
    for (k, (b, a)) in before.iter().zip(after).enumerate() {
        changed |= u64::from(b != a) * slot_bit(k);
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::load::{simulate, Setup};

    /// Which roles leave guards alone, and which programs do: not
    /// Dijkstra's (guards of a read or two), nor one whose guard reads a
    /// variable its only action always writes, nor Johnen's (only the role
    /// of the few processes around the leader's ids gains); SSLE's.
    #[test]
    fn guards_are_left_alone_where_that_pays() {
        let climb = "var x: 0..9\nvar seen: bool = false\n\
                     process { up :: exists(q in nbrs : q.x > x) -> x, seen := x + 1, true }\n";
        let cases = [
            (
                include_str!("../../../programs/dijkstra_kstate.gc"),
                "ring:5",
                vec![false, false],
                false,
            ),
            (
                include_str!("../../../programs/ssle.gc"),
                "random:8",
                vec![true],
                true,
            ),
            (
                include_str!("../../../programs/johnen_leader.gc"),
                "uring:10",
                vec![false, true],
                false,
            ),
            (climb, "ring:4", vec![false], false),
        ];
        for (src, topology, roles, program) in cases {
            let setup = Setup {
                topology: Some(topology.into()),
                init: crate::runtime::init::InitMode::Random,
                ..Setup::default()
            };
            let sim = simulate(src, &setup).expect("loads");
            let found: Vec<bool> = sim
                .code
                .roles
                .iter()
                .map(|r| r.leaves_guards_alone)
                .collect();
            assert_eq!(found, roles, "{topology}");
            assert_eq!(sim.leaves_guards_alone, program, "{topology}");
        }
    }
}
