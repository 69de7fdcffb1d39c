//! The configuration as a value: every process's row of values and every
//! channel's contents. Below the compiler, which reads it, and the runtime,
//! which steps it.

pub mod channels;
