//! **guarded** is a language and interpreter for distributed algorithms
//! written as guarded commands, `label :: guard -> statement`, the notation
//! of the self-stabilization literature. You write a protocol as the paper
//! prints it, run it on a topology (rings, chains, grids, trees, random
//! graphs, a graph from a file) under a daemon (central, synchronous,
//! distributed, locally-central, or an explicit schedule), from declared,
//! random or given initial configurations, and it reports what the papers
//! measure: moves, steps, rounds, the stabilization time and silence. A
//! seed names a run. The command line (`guarded run`, `check`, `repl`,
//! `explore`, `verify`, `sweep`) is
//! described in the README; this is the library under it.
//!
//! # Using the library
//!
//! [`load::load`] takes a program's text and a [`load::Setup`] through
//! every phase to an [`load::Instance`]. From there:
//!
//! - **run** it: [`load::Instance::simulate`] gives a
//!   [`runtime::engine::Simulation`], stepped by
//!   [`runtime::engine::Simulation::step`] or by the run loop
//!   [`runtime::run::run`] (limits, legitimacy, invariants, observers);
//! - **step** configurations yourself: [`load::Instance::step_relation`] is
//!   the one definition of a step as a pure function from a
//!   [`state::Config`] and a move set to the successor;
//! - **explore**: [`load::Instance::space`] enumerates every configuration,
//!   and [`runtime::daemon::Daemon::move_sets`] lists every move set a
//!   daemon allows.
//! - **verify**: [`verify::Explorer`] checks invariants, closure and
//!   convergence under each daemon, from every configuration or from a
//!   start, with exact worst cases and shortest counterexamples.
//! - **sweep**: [`sweep::Sweep`] plans a grid of topologies, daemons,
//!   parameter values and seeds and runs its points in parallel into rows
//!   ([`sweep::table`]), summarized and plotted by [`sweep::summary`] and
//!   [`sweep::plot`].
//!
//! ```
//! use guarded::load::{load, read_file, Setup};
//! use guarded::runtime::daemon::Daemon;
//!
//! let program = "param K = n\nvar x: 0..K-1\n\
//!     process where index == 0 { advance :: x == left.x -> x := (x + 1) mod K }\n\
//!     process where index != 0 { copy :: x != left.x -> x := left.x }\n\
//!     legitimate: count(p in procs : enabled(p)) == 1\n";
//! let setup = Setup { topology: Some("ring:3".into()), ..Setup::default() };
//! let inst = load(program, &setup, &read_file).expect("a correct program");
//! let mut rel = inst.step_relation();
//! // Every configuration of x in 0..2 at three processes, and under the
//! // central daemon every step from each.
//! let mut steps = 0;
//! for cfg in inst.space().iter() {
//!     let enabled = rel.enabled(&cfg).unwrap();
//!     for movers in Daemon::Central.move_sets(&enabled, inst.topology(), 0) {
//!         let next = rel.successor_first(&cfg, &movers).unwrap();
//!         assert!(inst.space().index(&next).is_some());
//!         steps += 1;
//!     }
//! }
//! assert_eq!(inst.space().count(), 27);
//! assert!(steps >= 27, "some process is always enabled");
//! ```
//!
//! # The pipeline
//!
//! One module per phase, each depending only on those before it: `syntax`
//! (pest grammar → AST), `check` (AST → typed IR), [`topology`] and
//! [`state`] (the graph and the configuration as values), `compile` (IR →
//! closures over a flat configuration), [`runtime`] (the step relation,
//! daemons, the simulator and its measures), [`load`] (the whole pipeline
//! from text to an instance), and the front ends: `report` (summaries and
//! traces), [`verify`], [`sweep`], [`cli`] and `repl`.
//!
//! `unsafe` is denied but in one place: a cache prefetch hint
//! (`runtime::cache`, for the simulator's central fast path and the
//! verifier's rounds search), which cannot change what a program computes.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod check;
pub mod cli;
mod compile;
mod diagnostic;
mod explore;
mod export;
pub mod formula;
pub mod load;
mod lsp;
pub mod memory;
mod repl;
mod report;
pub mod runtime;
mod span;
pub mod state;
pub mod sweep;
mod syntax;
pub mod topology;
pub mod verify;

pub use compile::Fault;
pub use span::Span;
