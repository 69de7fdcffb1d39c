//! The built-in families of topologies, each built as a list of arcs and
//! frozen into adjacency arrays; rings and chains also get their `left` and
//! `right` neighbours, trees their parents.

use super::{Arcs, Rows, Sides, Topology, NONE, RINGS_ROWS_ON_DEMAND};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A ring of `n` processes: undirected (`ring`, both neighbours) or
/// directed (`uring`, each process reads its predecessor).
pub(super) fn ring(name: String, n: usize, undirected: bool) -> Topology {
    let mut t = if n >= 3 {
        ring_rows(name, n, undirected)
    } else {
        let mut g = Arcs::new(n);
        for i in 0..n {
            let j = (i + 1) % n;
            if undirected {
                g.edge(i, j);
            } else {
                g.arc(i, j);
            }
        }
        Topology::freeze(name, g)
    };
    t.has_left = true;
    t.has_right = undirected;
    t.regular_ring = Some(undirected);
    t.sides = Sides::Ring;
    t
}

/// The rows [`Topology::freeze`] makes of a ring of at least three
/// processes, written as they are rather than listed as arcs and sorted
/// (a quarter of a ring of 10^6's set-up); on a ring of
/// [`RINGS_ROWS_ON_DEMAND`] processes or more, made when first asked for.
fn ring_rows(name: String, n: usize, undirected: bool) -> Topology {
    let degree = if undirected { 2 } else { 1 };
    if n >= RINGS_ROWS_ON_DEMAND {
        let none = (Vec::new(), Vec::new());
        let mut t = Topology::of_rows(name, n, (Vec::new(), degree, Vec::new()), none, undirected);
        t.rows_on_demand = Some(std::sync::OnceLock::new());
        return t;
    }
    let rows = ring_rows_made(n, undirected);
    let readers = (rows.rdr_start, rows.rdr);
    Topology::of_rows(name, n, (Vec::new(), degree, rows.nbr), readers, undirected)
}

/// The rows of a ring of `n >= 3` processes: each process's neighbours
/// are the one before it and, undirected, the one after, in increasing
/// order; directed, its reader is the one after it (undirected, the
/// readers are the neighbours: no rows of their own).
pub(super) fn ring_rows_made(n: usize, undirected: bool) -> Rows {
    let before = |p: usize| (if p == 0 { n - 1 } else { p - 1 }) as u32;
    let after = |p: usize| (if p + 1 == n { 0 } else { p + 1 }) as u32;
    if undirected {
        let nbr = (0..n)
            .flat_map(|p| {
                let (b, a) = (before(p), after(p));
                [b.min(a), b.max(a)]
            })
            .collect();
        Rows {
            nbr,
            ..Rows::default()
        }
    } else {
        Rows {
            nbr: (0..n).map(before).collect(),
            rdr_start: (0..=n as u32).collect(),
            rdr: (0..n).map(after).collect(),
        }
    }
}

/// A chain: process 0 has no `left`, the last no `right`.
pub(super) fn chain(name: String, n: usize) -> Topology {
    let mut g = Arcs::new(n);
    for i in 1..n {
        g.edge(i - 1, i);
    }
    let mut t = Topology::freeze(name, g);
    t.has_left = true;
    t.has_right = true;
    t.sides = Sides::Chain;
    t
}

/// A star with process 0 at its centre.
pub(super) fn star(name: String, n: usize) -> Topology {
    let mut g = Arcs::new(n);
    for i in 1..n {
        g.edge(0, i);
    }
    Topology::freeze(name, g)
}

/// Every pair of processes joined.
pub(super) fn complete(name: String, n: usize) -> Topology {
    let mut g = Arcs::new(n);
    for i in 0..n {
        for j in i + 1..n {
            g.edge(i, j);
        }
    }
    Topology::freeze(name, g)
}

/// The Petersen graph: an outer ring 0..4, spokes to 5..9, and the inner
/// pentagram (5 + i to 5 + (i + 2) mod 5); 10 processes, 15 edges, every
/// process of degree 3, no cycle shorter than 5.
pub(super) fn petersen(name: String) -> Topology {
    let mut g = Arcs::new(10);
    for i in 0..5 {
        g.edge(i, (i + 1) % 5);
        g.edge(i, i + 5);
        g.edge(5 + i, 5 + (i + 2) % 5);
    }
    Topology::freeze(name, g)
}

/// An `r` by `c` grid, row by row; a torus wraps around (in a dimension of
/// more than 2, where wrapping adds an edge).
pub(super) fn grid(name: String, r: usize, c: usize, torus: bool) -> Topology {
    let mut g = Arcs::new(r * c);
    let at = |i: usize, j: usize| i * c + j;
    for i in 0..r {
        for j in 0..c {
            if j + 1 < c {
                g.edge(at(i, j), at(i, j + 1));
            } else if torus && c > 2 {
                g.edge(at(i, j), at(i, 0));
            }
            if i + 1 < r {
                g.edge(at(i, j), at(i + 1, j));
            } else if torus && r > 2 {
                g.edge(at(i, j), at(0, j));
            }
        }
    }
    Topology::freeze(name, g)
}

/// The `d`-dimensional hypercube: processes whose numbers differ in one bit.
pub(super) fn hypercube(name: String, d: usize) -> Topology {
    let n = 1usize << d;
    let mut g = Arcs::new(n);
    for i in 0..n {
        for b in 0..d {
            let j = i ^ (1 << b);
            if i < j {
                g.edge(i, j);
            }
        }
    }
    Topology::freeze(name, g)
}

/// A random tree rooted at 0: each process's parent is drawn among the
/// processes before it.
pub(super) fn tree(name: String, n: usize, rng: &mut ChaCha8Rng) -> Topology {
    let mut g = Arcs::new(n);
    let mut parent = vec![NONE; n];
    for (i, p) in parent.iter_mut().enumerate().skip(1) {
        let j = rng.gen_range(0..i);
        *p = j as u32;
        g.edge(j, i);
    }
    let mut t = Topology::freeze(name, g);
    t.parent = parent;
    t
}

/// A random connected graph: a random spanning tree keeps it connected,
/// then each other pair is joined with probability `p` (default: about
/// two more edges per process).
pub(super) fn random(name: String, n: usize, p: Option<f64>, rng: &mut ChaCha8Rng) -> Topology {
    let p = p.unwrap_or_else(|| default_edge_probability(n));
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    // FxHash: SipHash took half the set-up of `random:1000` (500,000 look-ups),
    // and its random keys made set-up's instruction count vary from run to run.
    let mut adj = rustc_hash::FxHashSet::default();
    let mut g = Arcs::new(n);
    for i in 1..n {
        let j = rng.gen_range(0..i);
        let (a, b) = (order[i].min(order[j]), order[i].max(order[j]));
        adj.insert((a, b));
        g.edge(a, b);
    }
    if n <= EVERY_PAIR_DRAWN_UP_TO {
        for a in 0..n {
            for b in a + 1..n {
                if !adj.contains(&(a, b)) && rng.gen_bool(p) {
                    g.edge(a, b);
                }
            }
        }
    } else {
        for (a, b) in pairs_drawn(n, p, rng) {
            if !adj.contains(&(a, b)) {
                g.edge(a, b);
            }
        }
    }
    Topology::freeze(name, g)
}

/// The probability of each edge beyond the spanning tree where `random:N`
/// gives none: about two such edges a process.
pub(super) fn default_edge_probability(n: usize) -> f64 {
    if n > 1 {
        (2.0 / (n as f64 - 1.0)).min(1.0)
    } else {
        0.0
    }
}

/// Up to this many processes `random:N` draws once for every pair, as it
/// always has (seeds name the same graphs); past it, the pairs are drawn
/// by skipping ([`pairs_drawn`]), which takes time in the edges drawn
/// rather than in the pairs (a million processes: 5 * 10^11 pairs).
pub(super) const EVERY_PAIR_DRAWN_UP_TO: usize = 5_000;

/// Each pair `(a, b)`, `a < b < n`, with probability `p`, independently
/// (G(n, p)), in increasing order: the gap to the next pair drawn is
/// geometric (Batagelj and Brandes, "Efficient generation of large random
/// networks", 2005), so the cost follows the pairs drawn, not all pairs.
fn pairs_drawn(n: usize, p: f64, rng: &mut ChaCha8Rng) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    if p <= 0.0 {
        return pairs;
    }
    if p >= 1.0 {
        return (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
    }
    let log_q = (1.0 - p).ln();
    // Pair (w, v) with w < v; v from 1, w the offset within v's pairs.
    let (mut v, mut w) = (1usize, -1i64);
    while v < n {
        let r: f64 = rng.gen();
        // A gap past every pair left ends the loop below.
        let gap = ((1.0 - r).ln() / log_q).floor();
        w = w
            .saturating_add(1)
            .saturating_add(gap.min(i64::MAX as f64 / 2.0) as i64);
        while v < n && w >= v as i64 {
            w -= v as i64;
            v += 1;
        }
        if v < n {
            pairs.push((w as usize, v));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past [`EVERY_PAIR_DRAWN_UP_TO`], pairs are drawn by skipping: each
    /// once, in order, inside the processes, as many as expected (about
    /// p times the pairs; bounds seven deviations wide), none at p = 0 and
    /// all at p = 1; the same pairs for the same seed.
    #[test]
    fn pairs_drawn_by_skipping_are_each_pair_with_its_probability() {
        use rand::SeedableRng;
        let draw = |n, p, seed| pairs_drawn(n, p, &mut ChaCha8Rng::seed_from_u64(seed));
        for (n, p) in [(2000, 0.01), (300, 0.5), (50_000, 0.00004)] {
            let pairs = draw(n, p, 1);
            assert_eq!(pairs, draw(n, p, 1));
            assert!(pairs
                .windows(2)
                .all(|w| (w[0].1, w[0].0) < (w[1].1, w[1].0)));
            assert!(pairs.iter().all(|&(a, b)| a < b && b < n));
            let all = (n * (n - 1) / 2) as f64;
            let (mean, deviation) = (p * all, (p * (1.0 - p) * all).sqrt());
            let drawn = pairs.len() as f64;
            assert!(
                (drawn - mean).abs() < 7.0 * deviation,
                "{n} {p}: {drawn} of {mean}"
            );
            // Spread over the pairs: those of the first half of the
            // processes are a quarter of them.
            let first = pairs.iter().filter(|&&(_, b)| b < n / 2).count() as f64;
            assert!(
                (first / drawn - 0.25).abs() < 0.05,
                "{n} {p}: {first} of {drawn}"
            );
        }
        assert!(draw(100, 0.0, 1).is_empty());
        assert_eq!(draw(50, 1.0, 1).len(), 50 * 49 / 2);
    }

    /// A random graph past [`EVERY_PAIR_DRAWN_UP_TO`] is connected (its
    /// spanning tree), without loops or repeated edges, with about two
    /// edges a process at the default probability.
    #[test]
    fn a_large_random_graph_is_connected_with_the_edges_expected() {
        use rand::SeedableRng;
        let n = 3 * EVERY_PAIR_DRAWN_UP_TO;
        let t = random("random".into(), n, None, &mut ChaCha8Rng::seed_from_u64(5));
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(p) = stack.pop() {
            let nbrs = t.nbrs(p);
            assert!(
                nbrs.windows(2).all(|w| w[0] < w[1]),
                "{p}: sorted, no repeats"
            );
            for &q in nbrs {
                assert_ne!(q as usize, p);
                if !std::mem::replace(&mut seen[q as usize], true) {
                    stack.push(q as usize);
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "connected");
        let edges = t.edge_count();
        assert!((19 * n / 10..21 * n / 10).contains(&edges), "{edges} edges");
    }

    /// A large ring makes its rows when first asked for, its neighbours'
    /// or (directed) its readers'; once made (as compiling a program that
    /// reads neighbour lists makes them), they are kept as rows made when
    /// built.
    #[test]
    fn large_rings_make_their_rows_on_demand() {
        let n = RINGS_ROWS_ON_DEMAND + 1;
        let last = n as u32 - 1;
        for undirected in [true, false] {
            for readers_first in [true, false] {
                let mut t = ring("r".into(), n, undirected);
                assert_eq!(t.memory_bytes(), 0);
                t.keep_rows_made();
                assert!(t.nbr.is_empty() && t.rows_on_demand.is_some());
                let (nbrs, readers): (&[u32], &[u32]) = match undirected {
                    true => (&[1, last], &[1, last]),
                    false => (&[last], &[1]),
                };
                if readers_first {
                    assert_eq!(t.readers(0), readers);
                }
                assert_eq!(t.nbrs(0), nbrs);
                assert_eq!(t.readers(0), readers);
                let bytes = if undirected { n * 8 } else { n * 12 + 4 };
                assert_eq!(t.memory_bytes(), bytes);
                t.keep_rows_made();
                assert!(t.rows_on_demand.is_none() && t.nbr.len() == nbrs.len() * n);
                assert_eq!(t.nbrs(0), nbrs);
                assert_eq!(t.readers(0), readers);
                assert_eq!(t.memory_bytes(), bytes);
            }
        }
    }

    /// Rings written row by row are the topologies their arcs freeze into.
    #[test]
    fn rings_written_as_rows_are_their_arcs_frozen() {
        for n in (3..40).chain([1000, 4099, RINGS_ROWS_ON_DEMAND]) {
            for undirected in [true, false] {
                let mut g = Arcs::new(n);
                for i in 0..n {
                    match undirected {
                        true => g.edge(i, (i + 1) % n),
                        false => g.arc(i, (i + 1) % n),
                    }
                }
                let frozen = Topology::freeze("r".into(), g);
                let mut written = ring_rows("r".into(), n, undirected);
                // Large, the rows are made when first asked for.
                let on_demand = |t: &Topology| t.rows_on_demand.as_ref().map(|r| r.get().is_some());
                let large = n >= RINGS_ROWS_ON_DEMAND;
                assert_eq!(on_demand(&written), large.then_some(false));
                assert_eq!(written.arcs(), frozen.arcs());
                for p in 0..n {
                    assert_eq!(written.readers(p), frozen.readers(p));
                    assert_eq!(written.nbrs(p), frozen.nbrs(p));
                }
                written.keep_rows_made();
                assert_eq!(
                    format!("{written:?}"),
                    format!("{frozen:?}"),
                    "{n} {undirected}"
                );
            }
        }
    }
}
