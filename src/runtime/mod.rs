//! Phase 4, the runtime: the step relation (composite atomicity) and the
//! state space, daemons, initial configurations, and the simulator that
//! steps a configuration under a daemon and keeps the measures the papers
//! use (moves, steps, rounds, legitimacy, stabilization).

pub(crate) mod ahead;
pub(crate) mod bits;
pub(crate) mod cache;
pub mod choose;
pub mod daemon;
pub mod engine;
mod error;
pub mod init;
mod moves;
mod predicates;
pub mod record;
pub mod run;
pub mod schedule;
pub mod space;
pub mod step;
mod step_buffers;
pub mod tick;
