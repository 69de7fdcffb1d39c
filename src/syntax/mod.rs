//! Phase 1, syntax: the pest grammar (`grammar/guarded.pest`) and its lowering
//! into the untyped AST of [`ast`], with pest's errors turned into diagnostics.

pub mod ast;
mod errors;
mod lower;
mod parse;
mod temporal;

pub use parse::{parse_expression, parse_program};
