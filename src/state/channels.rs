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
    /// In a program that runs in ticks: how many more ticks before it
    /// arrives (0: it has, and may be taken), or [`FRESH`] while the tick
    /// it is sent in lasts. Always 0 in a program that runs in rounds.
    pub due: u16,
}

/// The most ticks a message may take (`delay lo..hi`).
pub const MAX_DELAY: u16 = 1000;

/// [`Msg::due`] of a message sent in the tick under way: its delay is
/// chosen when the tick ends.
pub const FRESH: u16 = u16::MAX;

/// Every channel's contents.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Channels {
    /// By channel number.
    pub queues: Vec<VecDeque<Msg>>,
    /// The most messages a channel holds.
    pub capacity: usize,
    /// The sequence number of the next message sent.
    pub next_seq: u64,
}

impl Clone for Channels {
    fn clone(&self) -> Self {
        Channels {
            queues: self.queues.clone(),
            capacity: self.capacity,
            next_seq: self.next_seq,
        }
    }

    /// Into the queues there are (a search copies configurations over
    /// and over: a queue each would be allocated anew).
    fn clone_from(&mut self, source: &Self) {
        if self.queues.len() == source.queues.len() {
            for (to, from) in self.queues.iter_mut().zip(&source.queues) {
                to.clear();
                if !from.is_empty() {
                    let (front, back) = from.as_slices();
                    to.extend(front.iter().copied());
                    to.extend(back.iter().copied());
                }
            }
        } else {
            self.queues.clone_from(&source.queues);
        }
        self.capacity = source.capacity;
        self.next_seq = source.next_seq;
    }
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
            due: 0,
        };
        self.next_seq += 1;
        m
    }

    /// Renumbers the messages in transit 0, 1, ... in the order they were
    /// sent, and the next one after them: two runs that reach the same
    /// contents then hold equal channels.
    pub fn canonicalize(&mut self) {
        // Sequence numbers below 128 (a search's configurations, which are
        // canonical but for the step just taken): a bit each, and a
        // message's new number is how many bits are set below its own.
        // Most channels are empty, and a queue's iterator costs more than
        // the test: each queue's two halves are read as slices.
        let (mut present, mut count, mut small) = (0u128, 0usize, true);
        for q in self.queues.iter().filter(|q| !q.is_empty()) {
            let (front, back) = q.as_slices();
            for m in front.iter().chain(back) {
                small &= m.seq < 128;
                present |= 1u128.checked_shl(m.seq as u32).unwrap_or(0);
            }
            count += q.len();
        }
        self.next_seq = count as u64;
        if small {
            // Count messages set at most count bits: these are 0..count.
            if present.trailing_ones() as usize == count {
                return;
            }
            for q in self.queues.iter_mut().filter(|q| !q.is_empty()) {
                let (front, back) = q.as_mut_slices();
                for m in front.iter_mut().chain(back) {
                    m.seq = u64::from((present & ((1u128 << m.seq) - 1)).count_ones());
                }
            }
            return;
        }
        let mut seqs: Vec<u64> = self.queues.iter().flatten().map(|m| m.seq).collect();
        seqs.sort_unstable();
        for m in self.queues.iter_mut().flatten() {
            m.seq = seqs.partition_point(|&s| s < m.seq) as u64;
        }
    }

    /// [`Channels::canonicalize`] of the channels after a step from
    /// `before` that took the messages numbered `taken` (and numbered the
    /// ones it sent after every other): where `before` was canonical (as
    /// many messages as its next number, since every message's number is
    /// below it and no two are equal), the new numbers follow from those
    /// taken, without a pass to read every message's first.
    pub fn canonicalize_after(&mut self, before: &Channels, taken: impl Iterator<Item = u64>) {
        let count_before: usize = before.queues.iter().map(VecDeque::len).sum();
        if before.next_seq != count_before as u64 || self.next_seq > 128 {
            return self.canonicalize();
        }
        let gone = taken.fold(0u128, |gone, seq| gone | 1 << seq);
        if gone == 0 {
            // The messages kept are 0..count_before, and those sent after.
            return;
        }
        let sent_so_far = u128::MAX
            .checked_shr(128 - self.next_seq as u32)
            .unwrap_or(0);
        let present = sent_so_far & !gone;
        for q in self.queues.iter_mut().filter(|q| !q.is_empty()) {
            let (front, back) = q.as_mut_slices();
            for m in front.iter_mut().chain(back) {
                m.seq = u64::from((present & ((1u128 << m.seq) - 1)).count_ones());
            }
        }
        self.next_seq = u64::from(present.count_ones());
    }

    /// The end of a tick: every message in transit comes one tick closer,
    /// and each sent in the tick ([`FRESH`]) is given how many more ticks
    /// it takes, `due(least)`, at least `least` (what the message ahead of
    /// it in its channel still takes, which it cannot pass), in the order
    /// they were sent.
    /// (`fresh` is a buffer kept from tick to tick.)
    pub fn end_tick(
        &mut self,
        fresh: &mut Vec<(u64, usize, usize)>,
        mut due: impl FnMut(u16) -> u16,
    ) {
        fresh.clear();
        for (a, q) in self.queues.iter_mut().enumerate() {
            for (i, m) in q.iter_mut().enumerate() {
                match m.due {
                    FRESH => fresh.push((m.seq, a, i)),
                    d => m.due = d.saturating_sub(1),
                }
            }
        }
        fresh.sort_unstable();
        for &(_, a, i) in fresh.iter() {
            let least = if i > 0 { self.queues[a][i - 1].due } else { 0 };
            self.queues[a][i].due = due(least).max(least);
        }
    }

    /// The process each channel leads to, by channel number: the
    /// neighbour lists of `topo` end to end (see [`Topology::arc`]).
    pub fn receivers(topo: &Topology) -> Vec<u32> {
        (0..topo.n()).flat_map(|p| topo.nbrs(p)).copied().collect()
    }

    /// Where each message in transit is (channel, place in it), in the
    /// order a search keeps them: receiver by receiver (`receivers`, as
    /// [`Channels::receivers`] gives it), each receiver's in the order
    /// they were sent. Only a receiver's own messages' order is ever read
    /// (it takes its oldest first; a step's sends are the youngest at each
    /// receiver), so two configurations that differ only in how old
    /// messages to different processes are against one another have the
    /// same runs, and a search keeps one of them.
    pub fn by_receiver(&self, receivers: &[u32], out: &mut Vec<(u32, u32)>) {
        out.clear();
        let mut keyed: Vec<(u32, u64, u32, u32)> = Vec::new();
        for (arc, queue) in self.queues.iter().enumerate() {
            for (at, m) in queue.iter().enumerate() {
                keyed.push((receivers[arc], m.seq, arc as u32, at as u32));
            }
        }
        keyed.sort_unstable();
        out.extend(keyed.iter().map(|&(_, _, arc, at)| (arc, at)));
    }

    /// Puts the channels in the canonical form a search keeps them in:
    /// messages numbered from 0 receiver by receiver, each receiver's in
    /// the order they were sent (see [`Channels::by_receiver`]).
    pub fn canonicalize_by_receiver(&mut self, receivers: &[u32]) {
        if self.all_empty() {
            self.next_seq = 0;
            return;
        }
        let mut order = Vec::new();
        self.by_receiver(receivers, &mut order);
        for (seq, &(arc, at)) in order.iter().enumerate() {
            self.queues[arc as usize][at as usize].seq = seq as u64;
        }
        self.next_seq = order.len() as u64;
    }

    /// Whether every channel is empty (as they all are where the program
    /// declares no messages).
    pub fn all_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    /// Whether a message is on its way that has not arrived.
    pub fn in_transit(&self) -> bool {
        self.queues.iter().flatten().any(|m| m.due > 0)
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

    /// Steps that take some heads and send some messages, from canonical
    /// channels and from channels of a run (numbers with gaps, past 128):
    /// renumbered from the numbers taken, they are what renumbering every
    /// message gives.
    #[test]
    fn renumbering_from_the_messages_taken_is_canonical() {
        let mut seed = 12345u64;
        let mut draw = |below: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % below
        };
        let mut c = Channels {
            queues: vec![VecDeque::new(); 4],
            capacity: 40,
            next_seq: 0,
        };
        let (mut renumbered, mut fell_back) = (0, 0);
        for step in 0..4000 {
            let before = c.clone();
            let mut taken = Vec::new();
            for q in 0..4 {
                if draw(3) == 0 {
                    if let Some(m) = c.queues[q].pop_front() {
                        taken.push(m.seq);
                    }
                }
            }
            for _ in 0..draw(3) {
                let q = draw(4) as usize;
                if c.queues[q].len() < c.capacity {
                    let m = c.stamp(draw(2) as u16, [draw(5) as i64, 0, 0, 0]);
                    c.queues[q].push_back(m);
                }
            }
            let mut every = c.clone();
            every.canonicalize();
            c.canonicalize_after(&before, taken.iter().copied());
            assert_eq!(c, every, "step {step}");
            let canonical =
                before.next_seq as usize == before.queues.iter().map(VecDeque::len).sum::<usize>();
            if canonical && !taken.is_empty() {
                renumbered += 1;
            }
            if step % 500 == 499 {
                // As a run leaves them: numbers far past the messages.
                c.next_seq += 300;
                fell_back += 1;
            }
        }
        assert!(
            renumbered > 1000 && fell_back > 5,
            "{renumbered} {fell_back}"
        );
    }

    #[test]
    fn messages_taken_leave_no_gaps_in_the_numbers() {
        let mut c = Channels {
            queues: vec![VecDeque::new(); 3],
            capacity: 300,
            next_seq: 0,
        };
        // Numbers with gaps, below 128 and past it.
        for (q, seq) in [(0, 5), (1, 0), (0, 9), (2, 3), (1, 200)] {
            let mut m = c.stamp(0, [0; MAX_FIELDS]);
            m.seq = seq;
            c.queues[q].push_back(m);
        }
        let mut small = c.clone();
        small.queues[1].pop_back();
        let numbers = |c: &Channels| -> Vec<Vec<u64>> {
            c.queues
                .iter()
                .map(|q| q.iter().map(|m| m.seq).collect())
                .collect()
        };
        c.canonicalize();
        assert_eq!(numbers(&c), [vec![2, 3], vec![0, 4], vec![1]]);
        assert_eq!(c.next_seq, 5);
        small.canonicalize();
        assert_eq!(numbers(&small), [vec![2, 3], vec![0], vec![1]]);
        assert_eq!(small.next_seq, 4);
        let before = small.clone();
        small.canonicalize();
        assert_eq!(small, before, "canonical already");
    }

    #[test]
    fn a_tick_brings_messages_closer_and_keeps_their_order() {
        let mut c = Channels {
            queues: vec![VecDeque::new(); 2],
            capacity: 8,
            next_seq: 0,
        };
        for (q, due) in [(0, 2), (0, FRESH), (0, FRESH), (1, FRESH)] {
            let mut m = c.stamp(0, [0; MAX_FIELDS]);
            m.due = due;
            c.queues[q].push_back(m);
        }
        assert!(c.in_transit());
        // Every fresh message asks for no delay beyond the tick: each stays
        // behind the one ahead of it.
        c.end_tick(&mut Vec::new(), |_| 0);
        let dues: Vec<Vec<u16>> = c
            .queues
            .iter()
            .map(|q| q.iter().map(|m| m.due).collect())
            .collect();
        assert_eq!(dues, [vec![1, 1, 1], vec![0]]);
        c.end_tick(&mut Vec::new(), |_| 5);
        let dues: Vec<Vec<u16>> = c
            .queues
            .iter()
            .map(|q| q.iter().map(|m| m.due).collect())
            .collect();
        assert_eq!(dues, [vec![0, 0, 0], vec![0]]);
        assert!(!c.in_transit());
    }
}
