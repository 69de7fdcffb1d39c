//! Message passing: one FIFO channel per directed edge (numbered like the
//! entries of the neighbour lists, see [`Topology::arc`]), each holding at
//! most `capacity` messages. Channel contents are part of the configuration.

use crate::topology::Topology;
use std::collections::VecDeque;

pub use crate::check::ir::MAX_FIELDS;

/// A message in transit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Msg {
    /// Its type (index into the program's message types).
    pub kind: u16,
    /// When it was sent, globally: a process takes its oldest message first.
    pub seq: u64,
    /// Its field values (unused ones are 0).
    pub fields: [i64; MAX_FIELDS],
}

/// Every channel's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
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

    /// Renumbers the messages in transit 0, 1, ... in the order they were
    /// sent, and the next one after them: two runs that reach the same
    /// contents then hold equal channels.
    pub fn canonicalize(&mut self) {
        let mut seqs: Vec<u64> = self.queues.iter().flatten().map(|m| m.seq).collect();
        seqs.sort_unstable();
        for m in self.queues.iter_mut().flatten() {
            m.seq = seqs.partition_point(|&s| s < m.seq) as u64;
        }
        self.next_seq = seqs.len() as u64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_channels_forget_how_old_the_run_is() {
        let mut a = Channels {
            queues: vec![VecDeque::new(); 2],
            capacity: 4,
            next_seq: 0,
        };
        let mut b = a.clone();
        b.next_seq = 1000;
        for (c, first) in [(&mut a, 0), (&mut b, 1)] {
            let m0 = c.stamp(0, [first, 0, 0, 0]);
            let m1 = c.stamp(1, [0; MAX_FIELDS]);
            c.queues[1].push_back(m0);
            c.queues[0].push_back(m1);
        }
        assert_ne!(a, b);
        b.queues[1][0].fields[0] = 0;
        assert_ne!(a, b, "sequence numbers differ");
        a.canonicalize();
        b.canonicalize();
        assert_eq!(a, b);
        assert_eq!(a.queues[1][0].seq, 0);
        assert_eq!(a.queues[0][0].seq, 1);
        assert_eq!(a.next_seq, 2);
    }
}
