//! What starts reach (`--from declared|random|FILE`), breadth first: each
//! layer the configurations first reached in as many steps, so that the
//! first layer that meets a set holds its nearest configurations, and a
//! run to any of them is found backwards, one layer at a time.

use super::encoding::Encoding;
use super::local::oom;
use super::relation::Relation;
use super::{Refusal, Symbolic, F};
use crate::state::Config;
use oxidd::BooleanFunction;

/// The configurations reached from the starts, by distance.
pub(super) struct Reach {
    /// `layers[k]`: first reached after k steps (`layers[0]`, the starts).
    layers: Vec<F>,
    /// Every configuration reached.
    pub(super) all: F,
}

impl Reach {
    /// What `starts` reach through `rel` (whose steps leave only the
    /// configurations a run goes on from).
    pub(super) fn new(sym: &Symbolic, rel: &Relation, starts: F) -> Result<Self, Refusal> {
        let enc = &sym.enc;
        let (mut all, mut layers) = (starts.clone(), vec![starts]);
        loop {
            let k = layers.len() as u64;
            sym.note("symbolic: reaching from the starts", k)?;
            let next = rel
                .post(enc, &layers[layers.len() - 1])
                .map_err(oom)?
                .and(&all.not().map_err(oom)?)
                .map_err(oom)?;
            if !next.satisfiable() {
                return Ok(Reach { layers, all });
            }
            all = all.or(&next).map_err(oom)?;
            layers.push(next);
        }
    }

    /// A configuration of `set` nearest the starts, if `set` meets what
    /// is reached.
    pub(super) fn nearest(&self, enc: &Encoding, set: &F) -> Result<Option<Config>, Refusal> {
        for layer in &self.layers {
            let here = layer.and(set).map_err(oom)?;
            if here.satisfiable() {
                return enc.first(&here).map_err(oom);
            }
        }
        Ok(None)
    }

    /// A shortest run from a start to `to` (reached): its start and the
    /// configurations after each step, `to` last.
    pub(super) fn path_to(
        &self,
        enc: &Encoding,
        rel: &Relation,
        to: &Config,
    ) -> Result<(Config, Vec<Config>), Refusal> {
        let broken = || Refusal::Unsupported("internal: a broken path (please report it)".into());
        let single = enc.single(to).map_err(oom)?;
        let k = self
            .layers
            .iter()
            .position(|l| l.and(&single).is_ok_and(|s| s.satisfiable()))
            .ok_or_else(broken)?;
        let mut back = vec![to.clone()];
        let mut at = single;
        for layer in self.layers[..k].iter().rev() {
            let before = rel.pre(enc, &at).map_err(oom)?.and(layer).map_err(oom)?;
            let cfg = enc.first(&before).map_err(oom)?.ok_or_else(broken)?;
            at = enc.single(&cfg).map_err(oom)?;
            back.push(cfg);
        }
        back.reverse();
        let start = back.remove(0);
        Ok((start, back))
    }
}
