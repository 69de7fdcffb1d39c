//! The central daemon's draws taken from the generator a few words ahead,
//! so that a step can ask the cache for what the next steps will read
//! without cloning the generator (a clone copies its whole buffer: a
//! fifth of the time at a million processes). The draws
//! are the same as `rng.gen_range(0..len)`'s on the same stream, and the
//! words drawn ahead are given back at the end, so runs do not change.

use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;

/// How many words the draws may be taken ahead (at most 64: a bit each).
const AHEAD: usize = 16;

/// Words drawn from the generator and not used yet, oldest first, each
/// with whether a draw at the length of the time it was drawn accepts
/// it: the guesses at later draws then skip the words they will reject
/// without multiplying each again.
#[derive(Debug, Default)]
pub(crate) struct DrawsAhead {
    words: [u64; AHEAD],
    /// The first word not used yet, and the end of those drawn.
    next: usize,
    end: usize,
    /// Bit `i`: word `i` accepted at its length.
    accepted: u64,
    /// The generator's word position of the first not used (a `u64` is
    /// two 32-bit words of the stream).
    first_position: u128,
}

impl DrawsAhead {
    /// The next 64-bit word of the stream.
    #[inline]
    fn next_word(&mut self, rng: &mut ChaCha8Rng) -> u64 {
        if self.next == self.end {
            return rng.next_u64();
        }
        let word = self.words[self.next];
        self.next += 1;
        self.first_position += 2;
        word
    }

    /// Draws words ahead until this keeps as many as it can, the unused
    /// ones moved to the front, each marked as a draw below `len` would
    /// take it or not: a step uses about one word, so the guesses go
    /// several steps without coming here.
    #[inline(never)]
    fn fill(&mut self, rng: &mut ChaCha8Rng, len: usize) {
        let kept = self.end - self.next;
        if kept == 0 {
            self.first_position = rng.get_word_pos();
        }
        // A few words: a call of `memmove` costs more.
        for i in 0..kept {
            self.words[i] = self.words[self.next + i];
        }
        let mut accepted = self.accepted.checked_shr(self.next as u32).unwrap_or(0);
        let zone = rejection_zone(len);
        for (i, word) in self.words.iter_mut().enumerate().skip(kept) {
            *word = rng.next_u64();
            let low = (u128::from(*word) * len as u128) as u64;
            accepted |= u64::from(low <= zone) << i;
        }
        self.accepted = accepted;
        self.next = 0;
        self.end = AHEAD;
    }

    /// An index below `len` (at least 1): what `rng.gen_range(0..len)`
    /// draws from the same stream (rand's widening multiplication, with
    /// its rejection zone). Always in line: the central batches call it
    /// once a step.
    #[inline(always)]
    pub(crate) fn index(&mut self, rng: &mut ChaCha8Rng, len: usize) -> usize {
        if self.next == self.end {
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

    /// The indices the two draws after the next one give if they draw
    /// below `len` too and accept the words a draw accepted at the length
    /// of the time each was drawn ahead: guesses at later draws (a
    /// length differs by one a step, and rand rejects few words but
    /// where a length is just past a power of two). `None` where the
    /// words ahead do not hold three accepted.
    #[inline]
    pub(crate) fn guess_after_next(
        &mut self,
        rng: &mut ChaCha8Rng,
        len: usize,
    ) -> Option<[usize; 2]> {
        let ahead = |d: &Self| {
            // The next draw's word is the first accepted: skipped.
            let mut left = d.accepted.checked_shr(d.next as u32).unwrap_or(0);
            left &= left.wrapping_sub(1);
            let second = left.trailing_zeros() as usize;
            left &= left.wrapping_sub(1);
            let third = left.trailing_zeros() as usize;
            (d.next + third < d.end).then_some([d.next + second, d.next + third])
        };
        let [second, third] = match ahead(self) {
            Some(at) => at,
            None => {
                self.fill(rng, len);
                ahead(self)?
            }
        };
        let at = |k: usize| ((u128::from(self.words[k]) * len as u128) >> 64) as usize;
        Some([at(second), at(third)])
    }

    /// Puts the generator back where the first word drawn ahead and not
    /// used was, as if none had been drawn.
    pub(crate) fn give_back(&mut self, rng: &mut ChaCha8Rng) {
        if self.next < self.end {
            rng.set_word_pos(self.first_position);
        }
        self.next = 0;
        self.end = 0;
        self.accepted = 0;
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
                        ahead.guess_after_next(&mut ahead_rng, len);
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
                let guess = ahead.guess_after_next(&mut rng, len);
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
