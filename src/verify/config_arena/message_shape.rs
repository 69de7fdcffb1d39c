//! What an instance's messages carry, as the arena packs them.

use crate::state::channels::{Channels, MAX_FIELDS};
use crate::verify::bits_for;

/// What an instance's messages carry: per type, how many fields (those
/// past them are 0), and whether the program runs in ticks (where a
/// message has ticks to go; in rounds, none); per type, each field's
/// smallest value and the bits its values take (empty where unknown).
#[derive(Clone, Debug, Default)]
pub(crate) struct MessageShape {
    pub(crate) arity: Vec<u8>,
    pub(crate) timed: bool,
    pub(crate) domains: Vec<Vec<(i64, u32)>>,
    /// The process each channel leads to ([`Channels::receivers`]): the
    /// messages are kept receiver by receiver ([`Channels::by_receiver`]).
    pub(crate) receivers: Vec<u32>,
}

impl MessageShape {
    /// The shape of `inst`'s messages.
    pub(crate) fn of(inst: &crate::load::Instance) -> Self {
        use crate::compile::VarDomain;
        let n = inst.topo.n() as i64;
        let field = |d: &VarDomain| match *d {
            VarDomain::Bool => (0, 2),
            VarDomain::Range(lo, hi) => (lo, hi.saturating_sub(lo).saturating_add(1)),
            VarDomain::Enum(len) => (0, len as i64),
            VarDomain::Node => (0, n),
        };
        MessageShape {
            arity: inst
                .prog
                .messages
                .iter()
                .map(|m| m.fields.len() as u8)
                .collect(),
            timed: inst.runs_in_ticks(),
            domains: inst
                .code
                .message_domains
                .iter()
                .map(|fields| {
                    fields
                        .iter()
                        .map(|d| {
                            let (lo, size) = field(d);
                            (lo, bits_for(size.max(1) as u128))
                        })
                        .collect()
                })
                .collect(),
            receivers: Channels::receivers(&inst.topo),
        }
    }

    /// The process channel `arc` leads to.
    #[inline]
    pub(crate) fn receiver(&self, arc: u32) -> u32 {
        self.receivers.get(arc as usize).copied().unwrap_or(0)
    }

    /// The bits of a packed message's channel (among `arcs`) and type.
    pub(super) fn bits(&self, arcs: usize) -> (u32, u32) {
        (bits_for(arcs as u128), bits_for(self.domains.len() as u128))
    }

    /// Whether every packed message of every type fits in a word.
    pub(super) fn fits_words(&self, (arc_bits, kind_bits): (u32, u32)) -> bool {
        self.domains
            .iter()
            .all(|fields| arc_bits + kind_bits + fields.iter().map(|f| f.1).sum::<u32>() <= 64)
    }

    /// How many fields a message of type `kind` has (every one, for a type
    /// this shape does not know).
    pub(super) fn arity(&self, kind: u16) -> usize {
        self.arity
            .get(usize::from(kind))
            .map_or(MAX_FIELDS, |&a| usize::from(a))
    }
}
