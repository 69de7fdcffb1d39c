//! `argmin` and `argmax` over a collection in Promela (and through them
//! `min` and `max`, which read the keys of the member chosen): unrolled
//! over the members, as a chain of conditional expressions, each member
//! chosen where it qualifies and beats every other that does. A member
//! beats another with better keys, or equal keys and the smaller id (of
//! integers, the smaller), which is the order in which the runtime's scan
//! keeps the first best (`compile::quantifiers`).

use super::expr::{array_comparison, conjunction};
use super::{Tr, Untranslatable, Val};
use crate::check::ir::{Best, Cmp, Coll};

/// What the chain gives where no member qualifies: no process, so that a
/// read through it fails SPIN's bounds check and an assignment of it its
/// domain's assertion, as the runtime faults.
const NO_MEMBER: i64 = -1;

/// A member that may be chosen: its value, the condition that it
/// qualifies (`None`: it always does) and its keys.
type Candidate = (i64, Option<String>, Vec<String>);

impl Tr<'_> {
    /// The member `b` chooses.
    pub(super) fn best(&self, b: &Best) -> Result<String, Untranslatable> {
        let nodes = !matches!(b.coll, Coll::Range(..));
        if !nodes && b.filter.is_some() {
            return Err(Untranslatable::new(
                "`argmin`/`argmax`/`min`/`max` over a filtered range of integers",
                Some(b.span),
            ));
        }
        let mut candidates: Vec<Candidate> = Vec::new();
        for m in self.members(&b.coll)? {
            let candidate = self.with(b.slot, Val::Const(m), |t| {
                let filter = match &b.filter {
                    None => None,
                    Some(f) => match t.bconstant(f) {
                        Some(false) => return Ok(None),
                        Some(true) => None,
                        None => Some(t.bexpr(f)?),
                    },
                };
                // Read of the members that qualify.
                let keys = b
                    .keys
                    .iter()
                    .map(|k| t.maybe().iexpr(k))
                    .collect::<Result<_, _>>()?;
                Ok(Some((m, filter, keys)))
            })?;
            candidates.extend(candidate);
        }
        let rank = |m: i64| if nodes { self.topo.id(m as usize) } else { m };
        let mut chain = format!("({NO_MEMBER})");
        for (i, (m, filter, keys)) in candidates.iter().enumerate().rev() {
            let mut chosen: Vec<String> = filter.iter().cloned().collect();
            for (j, (other, other_filter, other_keys)) in candidates.iter().enumerate() {
                if i == j {
                    continue;
                }
                let ties_win = rank(*m) < rank(*other);
                let cmp = match (b.max, ties_win) {
                    (false, true) => Cmp::Le,
                    (false, false) => Cmp::Lt,
                    (true, true) => Cmp::Ge,
                    (true, false) => Cmp::Gt,
                };
                let pairs: Vec<(String, String)> = keys
                    .iter()
                    .cloned()
                    .zip(other_keys.iter().cloned())
                    .collect();
                let beats = array_comparison(cmp, &pairs);
                chosen.push(match other_filter {
                    Some(f) => format!("(!({f}) || {beats})"),
                    None => beats,
                });
            }
            chain = format!("({} -> {m} : {chain})", conjunction(chosen));
        }
        Ok(chain)
    }
}
