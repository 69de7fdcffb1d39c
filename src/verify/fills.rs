//! Every channel content `--init random` can draw, for the arbitrary
//! starts (`--from random`) of programs that pass messages: each channel
//! holding lo to hi messages (the declared `channel capacity K random
//! lo..hi`, else 0 to K), each of any type with any fields, the channels
//! filled in their order. `--init random` stamps the messages so, and a
//! message's age is part of a configuration: every message of a channel
//! is older than those of the channels after it (other orders of age
//! across channels are not drawn, and not explored).

use crate::compile::Compiled;
use crate::state::channels::{Channels, MAX_FIELDS};
use crate::topology::Topology;

/// A message a channel may hold: its type and its fields.
type Message = (u16, [i64; MAX_FIELDS]);

/// Every content of every channel within the declared range, numbered.
#[derive(Clone, Debug)]
pub struct Fills {
    /// What one channel may hold: each a list of messages, oldest first.
    contents: Vec<Vec<Message>>,
    /// The channels, empty.
    empty: Channels,
}

impl Fills {
    /// The fills of `code`'s channels on `topo`; where one channel alone
    /// may hold more than `most` contents, or they hold more than 16
    /// times `most` messages together, how many contents there are (or
    /// `u128::MAX` past that).
    pub fn of(code: &Compiled, topo: &Topology, most: u128) -> Result<Fills, u128> {
        let empty = Channels::new(topo, code.capacity);
        let (lo, hi) = code.random_fill;
        let messages: Vec<Message> = (code.message_domains.iter().enumerate())
            .flat_map(|(kind, fields)| {
                let each: Vec<Vec<i64>> = fields.iter().map(|d| d.values(0, topo)).collect();
                every_field(&each)
                    .into_iter()
                    .map(move |values| (kind as u16, values))
            })
            .collect();
        let count = (lo..=hi).try_fold(0u128, |sum, k| {
            let here = (messages.len() as u128).checked_pow(k as u32)?;
            sum.checked_add(here)
        });
        // A long channel of few message values has few contents, but
        // each is long.
        let held = |count: u128| count.saturating_mul(hi.max(1) as u128);
        match count {
            Some(count) if count <= most && held(count) <= most.saturating_mul(16) => {}
            count => return Err(count.unwrap_or(u128::MAX)),
        }
        let mut contents = Vec::new();
        // The contents of one length from those one shorter.
        let mut of_length: Vec<Vec<Message>> = vec![Vec::new()];
        for k in 0..=hi {
            if k >= lo {
                contents.extend(of_length.iter().cloned());
            }
            if k < hi {
                of_length = (of_length.iter())
                    .flat_map(|c| {
                        messages.iter().map(move |&m| {
                            let mut longer = c.clone();
                            longer.push(m);
                            longer
                        })
                    })
                    .collect();
            }
        }
        Ok(Fills { contents, empty })
    }

    /// How many there are (`u128::MAX` past it).
    pub fn count(&self) -> u128 {
        let arcs = u32::try_from(self.empty.queues.len()).unwrap_or(u32::MAX);
        (self.contents.len() as u128)
            .checked_pow(arcs)
            .unwrap_or(u128::MAX)
    }

    /// Fill number `index` (below [`Fills::count`]): the last channel's
    /// content the fastest to change, the messages stamped channel after
    /// channel, oldest first.
    pub fn channels(&self, mut index: u128) -> Channels {
        let len = self.contents.len() as u128;
        let mut picked = vec![0; self.empty.queues.len()];
        for at in picked.iter_mut().rev() {
            *at = (index % len) as usize;
            index /= len;
        }
        let mut chans = self.empty.clone();
        for (queue, &k) in picked.iter().enumerate() {
            for &(kind, fields) in &self.contents[k] {
                let m = chans.stamp(kind, fields);
                chans.queues[queue].push_back(m);
            }
        }
        chans
    }
}

/// Every assignment of values to fields, each field's from its list, the
/// last field the fastest to change (one assignment, all 0, for none).
fn every_field(each: &[Vec<i64>]) -> Vec<[i64; MAX_FIELDS]> {
    let mut all = vec![[0; MAX_FIELDS]];
    for (f, values) in each.iter().enumerate() {
        all = (all.iter())
            .flat_map(|partial| {
                values.iter().map(move |&v| {
                    let mut next = *partial;
                    next[f] = v;
                    next
                })
            })
            .collect();
    }
    all
}

#[cfg(test)]
mod tests {
    use super::super::{test_instance, Starts};
    use crate::runtime::init::InitMode;
    use crate::state::Config;
    use std::collections::HashSet;

    /// Two message types, one with a flag and a number, on a chain's two
    /// channels of 0 to 2 messages each.
    const TWO_TYPES: &str = "message ask(up: bool, k: 0..2)
message ack
channel capacity 3 random 0..2
var x: 0..2 random 1..2
process { go :: receive ack from q -> x := 0 }
legitimate: forall(p in procs : p.x == 0)
";

    /// Every arbitrary start is counted, once, canonical, within the
    /// declared range, its ages channel after channel; and every start
    /// `--init random` draws (400 seeds) is one of them.
    #[test]
    fn the_arbitrary_starts_are_what_init_random_draws() {
        let mut inst = test_instance(TWO_TYPES, "chain:2", &[]);
        let starts = Starts::arbitrary(&inst).expect("few enough");
        // 7 messages (ask's 2 x 3, and ack); 0 to 2 of them a channel;
        // two channels; x 1 or 2 at each of two processes.
        let per_channel = 1 + 7 + 49;
        assert_eq!(starts.count(), 4 * per_channel * per_channel);
        let all: Vec<Config> = starts.iter().collect();
        assert_eq!(all.len() as u128, starts.count());
        let set: HashSet<Config> = all.iter().cloned().collect();
        assert_eq!(set.len(), all.len(), "each start once");
        for cfg in &all {
            let mut canonical = cfg.clone();
            canonical.canonicalize();
            assert!(canonical == *cfg, "canonical: {cfg:?}");
            let seqs: Vec<u64> = cfg.chans.queues.iter().flatten().map(|m| m.seq).collect();
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "channel after channel: {cfg:?}"
            );
            assert!(cfg.chans.queues.iter().all(|q| q.len() <= 2));
        }
        for seed in 0..400 {
            inst.rng = rand::SeedableRng::seed_from_u64(seed);
            let mut drawn = inst.initial(&InitMode::Random, &[]).expect("a start");
            drawn.canonicalize();
            assert!(set.contains(&drawn), "seed {seed}: {drawn:?}");
        }
    }

    /// More contents than one channel may list are refused, with how
    /// many.
    #[test]
    fn too_many_contents_are_refused() {
        let wide = TWO_TYPES
            .replace("0..2)", "0..999)")
            .replace("random 0..2", "random 0..3");
        let inst = test_instance(&wide, "chain:2", &[]);
        match Starts::arbitrary(&inst) {
            Err(super::super::Refusal::Unsupported(why)) => {
                assert!(why.contains("narrow them"), "{why}")
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => panic!("refused"),
        }
        // One message value, but channels of 65,536: few contents, each
        // long.
        let long = "message m\nchannel capacity 65536\nvar x: bool\n\
                    process { a :: receive m from q -> x := true }\nlegitimate: true\n";
        let inst = test_instance(long, "chain:2", &[]);
        assert!(Starts::arbitrary(&inst).is_err(), "refused");
    }
}
