//! Phase 1, syntax: the pest grammar (`grammar/guarded.pest`) and its lowering
//! into the untyped AST of [`ast`], with pest's errors turned into diagnostics.

pub mod ast;
mod errors;
mod format;
mod hints;
mod lower;
mod parse;
mod temporal;
pub mod words;

pub use format::format_program;
pub use hints::precedence_warnings;
pub use parse::{parse_expression, parse_program};
