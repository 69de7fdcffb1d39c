//! Process ids: how `--ids` names them, and how they are assigned to a
//! topology's processes (kept only where some id is not its index).

use super::Topology;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How process ids are assigned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ids {
    /// The id is the index.
    Index,
    /// An explicit list, one per process.
    List(Vec<i64>),
    /// Distinct values drawn uniformly from `lo..=hi`.
    Random(i64, i64),
    /// A random permutation of `0..n-1`.
    Shuffled,
}

impl std::str::FromStr for Ids {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "index" => return Ok(Ids::Index),
            "random" => return Ok(Ids::Shuffled),
            _ => {}
        }
        if let Some(range) = s.strip_prefix("random:") {
            let (lo, hi) = range
                .split_once("..")
                .ok_or_else(|| format!("expected `random:LO..HI`, found `{s}`"))?;
            let lo: i64 = lo
                .trim()
                .parse()
                .map_err(|_| format!("`{lo}` is not a number"))?;
            let hi: i64 = hi
                .trim()
                .parse()
                .map_err(|_| format!("`{hi}` is not a number"))?;
            if lo > hi {
                return Err(format!("empty id range {lo}..{hi}"));
            }
            return Ok(Ids::Random(lo, hi));
        }
        let list: Result<Vec<i64>, _> = s.split(',').map(|x| x.trim().parse::<i64>()).collect();
        list.map(Ids::List)
            .map_err(|_| format!("`{s}` is not `index`, `random`, `random:LO..HI` or a comma-separated list of numbers"))
    }
}

/// Assigns ids to the topology's processes.
pub fn assign_ids(topo: &mut Topology, ids: &Ids, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let n = topo.n();
    match ids {
        Ids::Index => {
            // DOT files may have given ids already; keep them.
        }
        Ids::Shuffled => {
            let mut v: Vec<i64> = (0..n as i64).collect();
            v.shuffle(rng);
            topo.ids = v;
        }
        Ids::List(v) => {
            if v.len() != n {
                return Err(format!(
                    "--ids lists {} ids but the topology has {n} processes",
                    v.len()
                ));
            }
            topo.ids = v.clone();
        }
        Ids::Random(lo, hi) => {
            let width = (*hi as i128 - *lo as i128 + 1) as u128;
            if width < n as u128 {
                return Err(format!(
                    "the range {lo}..{hi} has fewer than {n} distinct ids"
                ));
            }
            let mut seen = rustc_hash::FxHashSet::default();
            let mut v = Vec::with_capacity(n);
            while v.len() < n {
                let x = rng.gen_range(*lo..=*hi);
                if seen.insert(x) {
                    v.push(x);
                }
            }
            topo.ids = v;
        }
    }
    let mut sorted = topo.ids.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "id {} is given to two processes; ids must be distinct",
            w[0]
        ));
    }
    Ok(())
}
