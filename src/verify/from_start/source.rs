//! Where a thread reads the configurations it expands.

use super::super::reached::{Reached, Unkept};
use crate::runtime::space::Space;
use crate::state::Config;

/// Where a thread reads the configurations it expands, and turns those
/// their steps lead to into what the store keeps (a trait, so that each
/// kind has its own expander code, with nothing to dispatch per step).
pub(super) trait Configs: Sync {
    /// The store, where it is read.
    fn store(&self) -> Option<&Reached>;
    /// Configuration `i`'s code, in a store of codes.
    fn code(&self, i: u32) -> Option<u64>;
    /// Overwrites `cfg` (a configuration of the same instance) with
    /// configuration `i`.
    fn get_into(&self, i: u32, cfg: &mut Config);
    /// `cfg` (in canonical form) as the store keeps it (whole, its bytes
    /// appended to `encoded`); `None` for values outside the domains, in a
    /// store of codes.
    fn unkept(&self, cfg: &Config, encoded: &mut Vec<u8>) -> Option<Unkept>;
}

impl Configs for Reached {
    #[inline]
    fn store(&self) -> Option<&Reached> {
        Some(self)
    }

    #[inline]
    fn code(&self, i: u32) -> Option<u64> {
        Reached::code(self, i)
    }

    fn get_into(&self, i: u32, cfg: &mut Config) {
        Reached::get_into(self, i, cfg);
    }

    fn unkept(&self, cfg: &Config, encoded: &mut Vec<u8>) -> Option<Unkept> {
        Reached::unkept(self, cfg, encoded)
    }
}

/// A copy of the codes of configurations `first..` of a store of codes
/// of `space`: read while the store numbers others, and grows.
pub(super) struct Codes<'r> {
    pub(super) space: &'r Space,
    pub(super) first: u32,
    pub(super) codes: Vec<u64>,
}

impl Configs for Codes<'_> {
    #[inline]
    fn store(&self) -> Option<&Reached> {
        None
    }

    #[inline]
    fn code(&self, i: u32) -> Option<u64> {
        Some(self.codes[(i - self.first) as usize])
    }

    fn get_into(&self, i: u32, cfg: &mut Config) {
        self.space
            .decode_into(self.codes[(i - self.first) as usize], cfg);
    }

    fn unkept(&self, cfg: &Config, _: &mut Vec<u8>) -> Option<Unkept> {
        Some(Unkept::Code(self.space.index(cfg)? as u64))
    }
}
