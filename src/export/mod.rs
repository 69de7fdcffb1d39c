//! Exporters: what a run or an instance looks like to other tools and to
//! people. `layout` places processes as a person would draw the topology;
//! `dot` writes Graphviz files (a configuration, which reads back as a
//! `dot:` topology, and a run of `verify` as a chain of configurations);
//! `html` the self-contained run viewer; `promela` a model of the instance
//! for SPIN.

pub mod dot;
pub mod html;
pub mod layout;
pub mod promela;
