//! Phase 4, the runtime: topologies, initial configurations, daemons, the
//! step relation (composite atomicity) and the measures the papers use.

pub mod dot;
pub mod engine;
pub mod init;
pub mod topology;
