//! What a compiled closure sees while it runs ([`Env`]): the configuration,
//! the process, its statement's own row, the topology, quantifier
//! variables, which processes are enabled, the channels, and what a
//! statement does besides writing its row ([`Effects`]).

use super::shared::SharedValues;
use super::NO_ACTION;
use crate::span::Span;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::Topology;
use std::cell::{Cell, RefCell};

/// What a closure sees while it runs.
pub struct Env<'a> {
    /// The configuration before the step: `stride` values per process.
    pub state: &'a [i64],
    /// The process whose guard or statement runs (unused in global predicates).
    pub me: usize,
    /// The mover's own row while its statement runs; its writes land here.
    pub scratch: &'a [Cell<i64>],
    /// The topology.
    pub topo: &'a Topology,
    /// Quantifier variables.
    pub locals: &'a [Cell<i64>],
    /// Which processes are enabled (for `enabled(p)`).
    pub enabled: &'a dyn Enabledness,
    /// How many processes are enabled (so `count(p in procs : enabled(p))` costs O(1)).
    pub enabled_count: usize,
    /// The channels (read by `receive` guards and `msgs`).
    pub chans: &'a Channels,
    /// What the running statement does besides writing its own row.
    pub fx: &'a Effects,
}

impl<'a> Env<'a> {
    /// The environment process `me`'s guards are evaluated in: the
    /// configuration `state`, no statement running (`scratch` empty), and
    /// no process enabled (guards cannot ask; global predicates that do
    /// get their own `enabled`, and a statement its `scratch`, by struct
    /// update).
    pub fn new(
        state: &'a [i64],
        topo: &'a Topology,
        locals: &'a [Cell<i64>],
        chans: &'a Channels,
        fx: &'a Effects,
        me: usize,
    ) -> Self {
        Env {
            state,
            me,
            scratch: &[],
            topo,
            locals,
            enabled: &NoneEnabled,
            enabled_count: 0,
            chans,
            fx,
        }
    }
}

/// Which processes are enabled, as global predicates (`enabled(p)`) read
/// it: the runtime answers from its bookkeeping, an explorer from a column.
pub trait Enabledness {
    /// Whether process `p` has an enabled action.
    fn is_enabled(&self, p: usize) -> bool;
}

/// For guards and statements, which cannot ask whether a process is enabled.
pub struct NoneEnabled;

impl Enabledness for NoneEnabled {
    fn is_enabled(&self, _: usize) -> bool {
        false
    }
}

/// A column of chosen actions, one per process.
impl Enabledness for Vec<u16> {
    fn is_enabled(&self, p: usize) -> bool {
        self[p] != NO_ACTION
    }
}

/// A message a statement sends: destination, type, fields, the `send`'s span.
pub type Sent = (usize, u16, [i64; MAX_FIELDS], Span);

/// What a statement does besides writing its own row: messages sent, edge
/// variables written (which also land at the other end), the message taken;
/// and the values its assignment's repeated subexpressions took.
#[derive(Default, Debug)]
pub struct Effects {
    /// Messages sent.
    pub sends: RefCell<Vec<Sent>>,
    /// (the edge's other end, variable, value, the assignment's span).
    pub edge_writes: RefCell<Vec<(usize, usize, i64, Span)>>,
    /// The sender whose channel's head this action takes.
    pub received: Cell<Option<usize>>,
    /// Where `random(...)` takes its values.
    pub draws: RefCell<Draws>,
    /// The values the running statement drew, in order, as a schedule
    /// gives them (a set's member by its position).
    pub drawn: RefCell<Vec<i64>>,
    /// The values of the subexpressions the running multiple assignment
    /// shares (see `shared.rs`): forgotten as it starts, each kept when
    /// first computed.
    pub shared: SharedValues,
}

/// Where `random(...)` takes its values.
#[derive(Clone, Debug, Default)]
pub enum Draws {
    /// Nowhere: a draw is a fault.
    #[default]
    None,
    /// The run's generator, in a run of a program that draws (a stream of
    /// the run's seed of its own, so that the daemon's choices stay those
    /// of the same seed without draws). Boxed: the generator is large.
    Generator(Box<rand_chacha::ChaCha8Rng>),
    /// Values given in order (by a schedule, or by the verifier, which
    /// tries every value of every draw); a draw past them takes the lowest
    /// value of its range. Every draw's range is recorded.
    Given {
        /// The values.
        values: Vec<i64>,
        /// How many draws were made.
        made: usize,
        /// Each draw's range, `lo..=hi`.
        ranges: Vec<(i64, i64)>,
    },
}

impl Draws {
    /// Values to give, in order, recording the ranges.
    pub fn given(values: Vec<i64>) -> Self {
        Draws::Given {
            values,
            made: 0,
            ranges: Vec::new(),
        }
    }
}

impl Effects {
    /// Forgets everything recorded.
    pub fn clear(&self) {
        self.sends.borrow_mut().clear();
        self.edge_writes.borrow_mut().clear();
        self.received.set(None);
        self.drawn.borrow_mut().clear();
    }
}
