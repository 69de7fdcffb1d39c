//! guarded: a language and interpreter for distributed algorithms written as
//! guarded commands (`label :: guard -> statement`).
//!
//! The pipeline, one module per phase: [`syntax`] (pest grammar → AST),
//! [`check`] (AST → typed IR), [`compile`] (IR → closures over a flat
//! configuration), [`runtime`] (topology, daemons, steps, measures) and the
//! front ends in [`cli`].
//!
//! `unsafe` is denied but in one place: a cache prefetch hint in
//! [`runtime::engine`], which cannot change what a program computes.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod check;
pub mod cli;
pub mod compile;
pub mod diagnostic;
pub mod load;
pub mod repl;
pub mod report;
pub mod runtime;
pub mod span;
pub mod state;
pub mod syntax;
pub mod topology;
