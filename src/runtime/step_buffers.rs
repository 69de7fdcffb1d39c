//! The cells and lists a step works in (see `step.rs`), kept from step
//! to step, and the environment a mover's statement runs in on them.

use crate::compile::{Compiled, Effects, Env};
use crate::span::Span;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::Topology;
use std::cell::Cell;

/// A message a mover sends in the step being taken: sender, destination,
/// type, fields, the `send`'s span, the sender's action.
pub(crate) type PendingSend = (usize, usize, u16, [i64; MAX_FIELDS], Span, u32);
/// An edge variable a mover writes: writer, the other end, variable, value,
/// the assignment's span, the writer's action.
pub(crate) type PendingEdgeWrite = (usize, usize, usize, i64, Span, u32);

/// The cells and lists a step works in, kept from step to step so that
/// steps allocate nothing in the steady state.
#[derive(Default)]
pub(crate) struct StepBuffers {
    /// The mover's own row while its statement runs; its writes land here.
    pub(crate) scratch: Vec<Cell<i64>>,
    /// Quantifier and binder variables.
    pub(crate) locals: Vec<Cell<i64>>,
    /// What the running statement does besides writing its own row.
    pub(crate) fx: Effects,
    /// The edge variables written in the step being taken.
    pub(crate) edge_writes: Vec<PendingEdgeWrite>,
    /// The messages sent in the step being taken.
    pub(crate) sends: Vec<PendingSend>,
    /// [`crate::state::channels::Msg::due`] of the messages sent: 0 (they
    /// may be taken at once) but while a tick's moves are made.
    pub(crate) sent_due: u16,
}

impl StepBuffers {
    /// Buffers for `code`.
    pub(crate) fn new(code: &Compiled) -> Self {
        StepBuffers {
            scratch: vec![Cell::new(0); code.stride],
            locals: vec![Cell::new(0); code.max_locals],
            ..StepBuffers::default()
        }
    }

    /// The environment process `me`'s statement runs in on `state`, its
    /// writes landing in `scratch` (guards may run in it too: they do not
    /// read `scratch`).
    #[inline(always)]
    pub(crate) fn statement_env<'a>(
        &'a self,
        state: &'a [i64],
        topo: &'a Topology,
        chans: &'a Channels,
        me: usize,
    ) -> Env<'a> {
        Env {
            scratch: &self.scratch,
            ..Env::new(state, topo, &self.locals, chans, &self.fx, me)
        }
    }
}
