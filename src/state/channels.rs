//! Message passing: one FIFO channel per directed edge (numbered like the
//! entries of the neighbour lists, see [`Topology::arc`]), each holding at
//! most `capacity` messages. Channel contents are part of the configuration.

use crate::topology::Topology;
use std::collections::VecDeque;

pub use crate::check::ir::MAX_FIELDS;

/// A message in transit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg {
    /// Its type (index into the program's message types).
    pub kind: u16,
    /// When it was sent, globally: a process takes its oldest message first.
    pub seq: u64,
    /// Its field values (unused ones are 0).
    pub fields: [i64; MAX_FIELDS],
}

/// Every channel's contents.
#[derive(Clone, Debug, Default)]
pub struct Channels {
    /// By channel number.
    pub queues: Vec<VecDeque<Msg>>,
    /// The most messages a channel holds.
    pub capacity: usize,
    /// The sequence number of the next message sent.
    pub next_seq: u64,
}

impl Channels {
    /// Empty channels for every directed edge of `topo` (none when the
    /// program declares no messages).
    pub fn new(topo: &Topology, capacity: Option<usize>) -> Self {
        match capacity {
            None => Channels::default(),
            Some(c) => Channels {
                queues: vec![VecDeque::new(); topo.arcs()],
                capacity: c,
                next_seq: 0,
            },
        }
    }

    /// The channel from `p` to `q`, if they are neighbours and messages exist.
    pub fn between(&self, topo: &Topology, p: usize, q: usize) -> Option<&VecDeque<Msg>> {
        topo.arc(p, q).and_then(|a| self.queues.get(a))
    }

    /// A new message stamped with the next sequence number.
    pub fn stamp(&mut self, kind: u16, fields: [i64; MAX_FIELDS]) -> Msg {
        let m = Msg {
            kind,
            seq: self.next_seq,
            fields,
        };
        self.next_seq += 1;
        m
    }

    /// Bytes held by the channels.
    pub fn memory_bytes(&self) -> usize {
        self.queues.capacity() * std::mem::size_of::<VecDeque<Msg>>()
            + self
                .queues
                .iter()
                .map(|q| q.capacity() * std::mem::size_of::<Msg>())
                .sum::<usize>()
    }
}
