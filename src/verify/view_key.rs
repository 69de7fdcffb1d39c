//! A process's view (see `view_memo.rs`) packed in one 128-bit number,
//! where its values fit: each value in the bits its domain takes, so that
//! a view is hashed and compared as a number instead of as a list of
//! 64-bit values (on Chang and Roberts' ring of 7, a list of 13 values
//! took about 120 instructions to hash and compare; a number, about 20).
//! A value outside its domain (a field sent outside its own) does not
//! fit, and the view is kept as a list instead: each view has one form,
//! so the two never name one view twice.

use super::bits_for;
use super::config_arena::MessageShape;
use crate::compile::VarDomain;
use crate::load::Instance;
use crate::state::Config;

/// The most bits a packed view takes.
const BITS: u32 = 128;

/// How views are packed: each row cell's smallest value and bits, each
/// message type's fields', and per process whether its views can fit.
pub(super) struct ViewPacking {
    stride: usize,
    /// Per cell of a row: its smallest value, its bits and where they
    /// start in the row's.
    cells: Vec<(i64, u32, u32)>,
    messages: MessageShape,
    /// The bits of a process's number, of a row, of a head (its type: 0
    /// where empty, else the type plus one; the fields of the widest
    /// type; its rank by age among the heads, last), of a head's type and
    /// of its rank.
    process_bits: u32,
    row_bits: u32,
    head_bits: u32,
    kind_bits: u32,
    rank_bits: u32,
    /// Per process: whether its views fit when their values are in their
    /// domains (the most bits they can take is at most [`BITS`]).
    fits: Vec<bool>,
}

impl ViewPacking {
    /// The packing of `inst`'s views, where process `p` reads the rows of
    /// `rows_read[p]` and the heads of `arcs_into[p]`.
    pub(super) fn new(inst: &Instance, rows_read: &[Box<[u32]>], arcs_into: &[Box<[u32]>]) -> Self {
        let n = inst.topo.n() as i64;
        let domains: Vec<(i64, u32)> = inst
            .code
            .domains
            .iter()
            .map(|d| {
                let (lo, size) = match *d {
                    VarDomain::Bool => (0, 2),
                    VarDomain::Range(lo, hi) => (lo, i128::from(hi) - i128::from(lo) + 1),
                    VarDomain::Enum(len) => (0, len as i128),
                    VarDomain::Node => (0, i128::from(n)),
                };
                (lo, bits_for(size.max(1) as u128))
            })
            .collect();
        let messages = MessageShape::of(inst);
        let process_bits = bits_for(inst.topo.n() as u128);
        let kind_bits = bits_for(messages.domains.len() as u128 + 1);
        let row_bits: u32 = domains.iter().map(|c| c.1).sum();
        let cells = domains
            .iter()
            .scan(0, |at, &(lo, bits)| {
                let cell = (lo, bits, *at);
                *at += bits;
                Some(cell)
            })
            .collect();
        let fields_bits = messages
            .domains
            .iter()
            .map(|fields| fields.iter().map(|f| f.1).sum::<u32>())
            .max()
            .unwrap_or(0);
        // Every process's heads take the bits of the most heads any has.
        let most_arcs = arcs_into.iter().map(|a| a.len()).max().unwrap_or(0);
        let rank_bits = bits_for(most_arcs as u128);
        let head_bits = kind_bits + fields_bits + rank_bits;
        let fits = rows_read
            .iter()
            .zip(arcs_into)
            .map(|(rows, arcs)| {
                let most = u64::from(process_bits)
                    + rows.len() as u64 * u64::from(row_bits)
                    + arcs.len() as u64 * u64::from(head_bits);
                // A row and a head are gathered in a word, each value
                // shifted in below 64.
                most <= u64::from(BITS) && row_bits < 64 && head_bits < 64
            })
            .collect();
        ViewPacking {
            stride: inst.code.stride,
            cells,
            messages,
            process_bits,
            row_bits,
            head_bits,
            kind_bits,
            rank_bits,
            fits,
        }
    }

    /// Packs no view: each is kept as a list (for tests of that form).
    #[cfg(test)]
    pub(super) fn pack_none(&mut self) {
        self.fits.fill(false);
    }

    /// Each row of `cfg` gathered in a word, into `words`; a row with a
    /// value outside its domain (one below its smallest wraps to a large
    /// number) is `u64::MAX`, which no row in its domains is (a row takes
    /// fewer than 64 bits).
    pub(super) fn rows_into(&self, cfg: &Config, words: &mut Vec<u64>) {
        words.clear();
        if self.stride == 0 || self.row_bits >= 64 {
            // No values, or no row that fits a word (and no view packs).
            let none = if self.stride == 0 { 0 } else { u64::MAX };
            words.resize(self.fits.len(), none);
            return;
        }
        words.extend(cfg.rows.chunks_exact(self.stride).map(|row| {
            let (mut word, mut past) = (0u64, 0u64);
            for (&v, &(lo, bits, shift)) in row.iter().zip(&self.cells) {
                let x = v.wrapping_sub(lo) as u64;
                past |= x >> bits;
                word |= x << shift;
            }
            if past == 0 {
                word
            } else {
                u64::MAX
            }
        }));
    }

    /// Process `p`'s view in `cfg` packed, given `cfg`'s rows gathered
    /// (see [`ViewPacking::rows_into`]), reading the rows of `rows` and
    /// the heads of `arcs`; `None` where it does not fit. A process's
    /// most bits fit (`fits`), so no part can push past them.
    #[inline]
    pub(super) fn pack(
        &self,
        cfg: &Config,
        words: &[u64],
        p: usize,
        rows: &[u32],
        arcs: &[u32],
    ) -> Option<u128> {
        if !self.fits[p] {
            return None;
        }
        let (mut key, mut held) = (p as u128, self.process_bits);
        for &q in rows {
            let word = words[q as usize];
            if word == u64::MAX {
                return None;
            }
            key |= u128::from(word) << held;
            held += self.row_bits;
        }
        // Any bit past a field's own.
        let mut past = 0u64;
        let head_seq = |arc: u32| cfg.chans.queues[arc as usize].front().map(|m| m.seq);
        for &arc in arcs {
            let Some(head) = cfg.chans.queues[arc as usize].front() else {
                // Type 0: empty; the rest of the head's bits stay 0.
                held += self.head_bits;
                continue;
            };
            let mut word = u64::from(head.kind) + 1;
            let mut at = self.kind_bits;
            let fields = self.messages.domains.get(usize::from(head.kind))?;
            for (&f, &(lo, bits)) in head.fields.iter().zip(fields) {
                let x = f.wrapping_sub(lo) as u64;
                past |= x >> bits;
                word |= x << at;
                at += bits;
            }
            let older = arcs
                .iter()
                .filter(|&&a| head_seq(a).is_some_and(|s| s < head.seq))
                .count();
            word |= (older as u64) << (self.head_bits - self.rank_bits);
            key |= u128::from(word) << held;
            held += self.head_bits;
        }
        (past == 0).then_some(key)
    }
}
