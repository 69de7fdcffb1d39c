//! The guards a step leaves alone: those that read none of the slots of
//! the rows its movers changed keep their values, so the bookkeeping after
//! it evaluates only the others (see
//! [`crate::runtime::choose::first_true_after`]). tests/single_move.rs
//! holds the steps taken so to steps that evaluate every guard they need
//! ([`super::FastPaths::guards_left_alone`] off).

use super::*;

/// Whether steps may leave guards alone: some role would
/// ([`crate::compile::CRole::leaves_guards_alone`]), no role receives
/// messages (the oldest message, not program order, chooses among
/// receives) and no timer runs (rounds change them outside moves).
pub(super) fn guards_may_be_left_alone(code: &Compiled) -> bool {
    let some_role = code.roles.iter().any(|r| r.leaves_guards_alone);
    let actions = || code.roles.iter().flat_map(|r| &r.actions);
    let receives = actions().any(|a| a.receive_from.is_some());
    some_role && !receives && code.timers.is_empty()
}

/// The slots that differ between a row `before` and `after` (bit `k` for
/// slot `k`, slots from 63 on sharing bit 63), as guards' reads are kept
/// ([`crate::compile::CAction::guard_reads`]).
#[inline]
pub(super) fn changed_slots(before: &[i64], after: &[i64]) -> u64 {
    let mut changed = 0;
    for (k, (b, a)) in before.iter().zip(after).enumerate() {
        changed |= u64::from(b != a) << k.min(63);
    }
    changed
}
