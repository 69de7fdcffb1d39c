//! The central daemon's draws taken from the generator a few words ahead,
//! so that a step can ask the cache for what the next steps will read
//! without cloning the generator (a clone copies its whole buffer: a
//! fifth of the time at a million processes). The draws
//! are the same as `rng.gen_range(0..len)`'s on the same stream, and the
//! words drawn ahead are given back at the end, so runs do not change.

use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;

/// How many words the draws may be taken ahead (a power of two).
const AHEAD: usize = 8;

/// Words drawn from the generator and not used yet, in a ring buffer,
/// oldest first.
#[derive(Debug, Default)]
pub(crate) struct DrawsAhead {
    words: [u64; AHEAD],
    head: usize,
    count: usize,
    /// The generator's word position of the oldest (a `u64` is two 32-bit
    /// words of the stream).
    first_position: u128,
}

impl DrawsAhead {
    /// The next 64-bit word of the stream.
    #[inline]
    fn next_word(&mut self, rng: &mut ChaCha8Rng) -> u64 {
        if self.count == 0 {
            return rng.next_u64();
        }
        let word = self.words[self.head];
        self.head = (self.head + 1) % AHEAD;
        self.count -= 1;
        self.first_position += 2;
        word
    }

    /// The word `k` places ahead (`k < AHEAD`), drawn now if it was not.
    #[inline(always)]
    fn peek(&mut self, rng: &mut ChaCha8Rng, k: usize) -> u64 {
        if self.count <= k {
            self.fill(rng);
        }
        self.words[(self.head + k) % AHEAD]
    }

    /// Draws words ahead until this keeps as many as it can: a step uses
    /// about one word, so the scans then go several steps without coming
    /// here.
    #[inline(never)]
    fn fill(&mut self, rng: &mut ChaCha8Rng) {
        while self.count < AHEAD {
            if self.count == 0 {
                self.first_position = rng.get_word_pos();
            }
            self.words[(self.head + self.count) % AHEAD] = rng.next_u64();
            self.count += 1;
        }
    }

    /// An index below `len` (at least 1): what `rng.gen_range(0..len)`
    /// draws from the same stream (rand's widening multiplication, with
    /// its rejection zone). Always in line: the central batches call it
    /// once a step.
    #[inline(always)]
    pub(crate) fn index(&mut self, rng: &mut ChaCha8Rng, len: usize) -> usize {
        if self.count == 0 {
            // Nothing drawn ahead (the usual case where steps do not look
            // ahead): rand's own draw.
            return rng.gen_range(0..len);
        }
        let zone = rejection_zone(len);
        loop {
            let wide = u128::from(self.next_word(rng)) * len as u128;
            if wide as u64 <= zone {
                return (wide >> 64) as usize;
            }
        }
    }

    /// The indices the `N` draws after the next one give if they draw
    /// below `len` too: guesses at later draws, rejected words skipped, in
    /// one pass over the words ahead. `None` where the last is further
    /// ahead than the words this keeps.
    #[inline]
    pub(crate) fn guess_after_next<const N: usize>(
        &mut self,
        rng: &mut ChaCha8Rng,
        len: usize,
    ) -> Option<[usize; N]> {
        let zone = rejection_zone(len);
        let mut guesses = [0; N];
        // The next draw's word is skipped as it is accepted.
        let mut accepted = 0;
        for i in 0..AHEAD {
            let wide = u128::from(self.peek(rng, i)) * len as u128;
            if wide as u64 <= zone {
                if accepted > 0 {
                    guesses[accepted - 1] = (wide >> 64) as usize;
                    if accepted == N {
                        return Some(guesses);
                    }
                }
                accepted += 1;
            }
        }
        None
    }

    /// Puts the generator back where the first word drawn ahead was, as if
    /// none had been drawn.
    pub(crate) fn give_back(&mut self, rng: &mut ChaCha8Rng) {
        if self.count > 0 {
            rng.set_word_pos(self.first_position);
            self.count = 0;
        }
    }
}

/// The highest low half of a word's product with `len` that rand (0.8)
/// accepts when it draws below `len`.
#[inline]
fn rejection_zone(len: usize) -> u64 {
    let range = len as u64;
    (range << range.leading_zeros()).wrapping_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Draws through `DrawsAhead`, looking ahead between them, give what
    /// `gen_range` gives, and the generator goes on as if nothing had been
    /// drawn ahead: for lengths where rand rejects often (just past a
    /// power of two) and rarely, and across the generator's refills.
    #[test]
    fn draws_are_gen_range_s_and_the_generator_goes_on_the_same() {
        let mut lengths: Vec<usize> = (1..200).collect();
        for k in [10, 20, 31, 40, 62] {
            lengths.extend([(1usize << k) - 1, 1 << k, (1 << k) + 1, 3 << (k - 1)]);
        }
        for seed in 0..4 {
            for &len in &lengths {
                let mut plain = ChaCha8Rng::seed_from_u64(seed);
                let mut ahead_rng = ChaCha8Rng::seed_from_u64(seed);
                let mut ahead = DrawsAhead::default();
                for step in 0..100 {
                    let len = len + step % 3;
                    if step % 5 != 0 {
                        ahead.guess_after_next::<2>(&mut ahead_rng, len);
                    }
                    let want = plain.gen_range(0..len);
                    assert_eq!(
                        ahead.index(&mut ahead_rng, len),
                        want,
                        "len {len} step {step}"
                    );
                }
                ahead.give_back(&mut ahead_rng);
                assert_eq!(ahead_rng.next_u32(), plain.next_u32(), "len {len}");
                assert_eq!(ahead_rng.gen_range(0..len), plain.gen_range(0..len));
            }
        }
    }

    /// The guesses are the draws when the length stays, rejected
    /// words included (rand rejects one in two at a power of two).
    #[test]
    fn guesses_are_the_draws() {
        for len in [1000, 1024, (1 << 20) - 1, (1 << 20) + 1] {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let mut ahead = DrawsAhead::default();
            let mut guessed = 0;
            for _ in 0..1000 {
                let guess = ahead.guess_after_next::<2>(&mut rng, len);
                ahead.index(&mut rng, len);
                let second = ahead.index(&mut rng, len);
                let third = ahead.index(&mut rng, len);
                if let Some(guess) = guess {
                    guessed += 1;
                    assert_eq!(guess, [second, third], "len {len}");
                }
            }
            // At a power of two, three words of eight are accepted 86% of
            // the time.
            assert!(guessed > 800, "len {len}: {guessed} of 1000");
        }
    }
}
