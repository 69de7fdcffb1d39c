//! What the depth-first searches (for the most steps and moves, and for
//! the most rounds) know of a state they step to, and why one stops: the
//! words they share, whether one search walks or every thread does.

use super::Refusal;

/// What a search knows of a state it steps to.
pub(super) enum Seen<V> {
    /// Unseen until now: now claimed by this search, to be opened.
    Claimed,
    /// On a search's stack.
    Open,
    /// No run from it counts (every way on faults).
    NoRun,
    /// Done: what is still to count from it.
    Done(V),
}

/// Why a walk stopped before its end.
pub(super) enum Stop {
    Refused(Refusal),
    /// The threads met what only one search reports the same way each
    /// time (a cycle, a deadlock, a faulting step, a count too wide), or
    /// one search ran out of room: the caller knows which.
    GiveUp,
}

impl From<Refusal> for Stop {
    fn from(r: Refusal) -> Self {
        Stop::Refused(r)
    }
}
