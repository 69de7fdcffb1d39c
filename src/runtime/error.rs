//! Why a run cannot go on: the errors a step (or the predicates after it)
//! can raise, and the one place each kind is built, so that every front
//! end names the process, action, step and what was being evaluated alike.

use crate::compile::{CAction, CRole, Fault};
use crate::span::Span;

/// Why a run could not go on.
#[derive(Debug, Clone)]
pub enum RunError {
    /// A closure failed: out-of-domain assignment, division by zero, ...
    Fault {
        /// The failure.
        fault: Box<Fault>,
        /// The process whose code failed (none for global predicates).
        process: Option<usize>,
        /// The action's label and span, when an action failed.
        action: Option<(String, Span)>,
        /// The step being taken (0 for the initial configuration).
        step: u64,
        /// What was being evaluated.
        during: &'static str,
    },
    /// Two processes wrote the same edge variable in one step.
    Conflict {
        /// The step.
        step: u64,
        /// The edge variable.
        var: String,
        /// The edge's ends.
        edge: (usize, usize),
        /// Each writer: process, action label, the assignment's span.
        writers: Box<[(usize, String, Span); 2]>,
    },
    /// A schedule named a process that cannot move.
    Schedule {
        /// 1-based line of the schedule.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The error for a fault raised by the guard of action `i` of process `p`.
#[cold]
pub(crate) fn guard_fault(
    role: &CRole,
    p: usize,
    i: usize,
    step: u64,
    fault: Box<Fault>,
) -> RunError {
    let a = &role.actions[i];
    RunError::Fault {
        fault,
        process: Some(p),
        action: Some((a.label.clone(), a.span)),
        step,
        during: "guard",
    }
}

/// The error for a fault raised by the statement of `action`, run by `p`.
#[cold]
pub(crate) fn statement_fault(
    action: &CAction,
    p: usize,
    step: u64,
    fault: Box<Fault>,
) -> RunError {
    RunError::Fault {
        fault,
        process: Some(p),
        action: Some((action.label.clone(), action.span)),
        step,
        during: "statement",
    }
}

/// What was being evaluated when the legitimacy predicate faulted.
pub(crate) const LEGITIMACY: &str = "the legitimacy predicate";
/// What was being evaluated when an invariant faulted.
pub(crate) const INVARIANT: &str = "an invariant";
/// What was being evaluated when a property's predicate faulted.
pub(crate) const PROPERTY: &str = "a property's predicate";

/// The error for a fault raised by a global predicate (`during`:
/// [`LEGITIMACY`] or [`INVARIANT`]) at `step`.
#[cold]
pub(crate) fn predicate_fault(step: u64, during: &'static str, fault: Box<Fault>) -> RunError {
    RunError::Fault {
        fault,
        process: None,
        action: None,
        step,
        during,
    }
}
