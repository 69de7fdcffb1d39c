//! Topologies: the built-in families, edge-list and DOT files, and process
//! ids. Graphs are built as lists of arcs and then frozen into compact
//! adjacency arrays that the runtime indexes directly (petgraph serves the
//! algorithms and exporters, from [`Topology::to_graph`]).
//!
//! An arc `u -> v` means information flows from `u` to `v`: `v` reads `u`'s
//! variables, so `u` is among `v`'s neighbours. Undirected edges are arcs both
//! ways.

mod arcs;
pub mod dot;
mod error;
mod families;
mod files;
mod ids;
mod spec;

pub use error::{BuildError, FilePlace};
use files::from_arcs;
pub use files::{edge_list, orient_if_ring};
pub use ids::{assign_ids, Ids};
pub use spec::{build, named_file, FAMILIES, MAX_PROCESSES};

use petgraph::graph::{DiGraph, NodeIndex};
use rand_chacha::ChaCha8Rng;

/// The number of processes from which an undirected ring makes its
/// neighbours' rows only when first asked for: where the table would take
/// 256 KB. Smaller ones keep the rows, so that a step that reads them
/// (verify's, on small instances) takes no detour.
pub const RINGS_ROWS_ON_DEMAND: usize = 1 << 15;

/// Marks a missing `left`/`right`/`parent`.
pub const NONE: u32 = u32::MAX;

/// A frozen topology of `n` processes.
#[derive(Clone, Debug)]
pub struct Topology {
    /// How it was named (`ring:8`, `dot:g.dot`).
    pub name: String,
    /// Where each process's neighbours begin in `nbr`; empty where every
    /// process has `degree` of them (no table of 4 bytes a process).
    nbr_start: Vec<u32>,
    degree: usize,
    /// The neighbours' rows; empty on large rings (see
    /// [`RINGS_ROWS_ON_DEMAND`]), whose rows are made in `rows_on_demand`
    /// when first asked for (a run on a ring computes its neighbours and,
    /// under the common daemons, never asks: no table of 8 bytes a
    /// process, 12 on a directed ring).
    nbr: Vec<u32>,
    rows_on_demand: Option<std::sync::OnceLock<Rows>>,
    /// Who reads each process, as `nbr_start` and `nbr` (but `rdr_start`
    /// is always listed where there are readers' rows); empty where every
    /// arc has its reverse (`undirected`): then the readers are the
    /// neighbours. Empty too on large directed rings, as `nbr`.
    rdr_start: Vec<u32>,
    rdr: Vec<u32>,
    undirected: bool,
    /// The number of processes.
    n: usize,
    /// How `left` and `right` neighbours are found.
    sides: Sides,
    /// Left and right neighbours where they are listed (`Sides::Listed`;
    /// `NONE` where there is none): see [`Topology::left`].
    left: Vec<u32>,
    right: Vec<u32>,
    /// Whether `left` / `right` exist at all in this family.
    pub has_left: bool,
    /// See `has_left`.
    pub has_right: bool,
    /// Tree parent for rooted trees (`NONE` at the root); empty off trees.
    pub parent: Vec<u32>,
    /// Process ids where some are not the indices (empty where they all
    /// are, the default): see [`Topology::id`].
    ids: Vec<i64>,
    /// Node attributes from a DOT file other than `id`: (process, name, value text).
    pub attrs: Vec<(u32, String, String)>,
    /// For `ring:N` (true) and `uring:N` (false): process i's left is i-1
    /// and its right i+1 (mod n), so the runtime can compute neighbours
    /// instead of looking them up.
    pub regular_ring: Option<bool>,
    /// Per process, the channel from each of its readers to it (in the
    /// readers' order): made when a program with messages first asks, so
    /// that one without pays nothing for it.
    into: std::sync::OnceLock<Vec<u32>>,
}

/// A ring's rows, made on demand (see [`RINGS_ROWS_ON_DEMAND`]): the
/// neighbours', and on a directed ring where each process's readers begin
/// and the readers'.
#[derive(Clone, Debug, Default)]
struct Rows {
    nbr: Vec<u32>,
    rdr_start: Vec<u32>,
    rdr: Vec<u32>,
}

/// Where a topology's `left` and `right` neighbours come from: computed on
/// the families that have them (no table of 8 bytes a process), listed for
/// a ring read from a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sides {
    /// No process has them.
    None,
    /// `ring:N` and `uring:N`: i - 1 and i + 1 (mod n); `uring` has no right.
    Ring,
    /// `chain:N`: i - 1 and i + 1 where they exist.
    Chain,
    /// In `left` and `right`.
    Listed,
}

impl Topology {
    /// The left neighbour of `p`, or [`NONE`].
    #[inline]
    pub fn left(&self, p: usize) -> u32 {
        match self.sides {
            Sides::Ring if p == 0 => self.n as u32 - 1,
            Sides::Ring | Sides::Chain if p > 0 => p as u32 - 1,
            Sides::Listed => self.left[p],
            _ => NONE,
        }
    }

    /// The right neighbour of `p`, or [`NONE`].
    #[inline]
    pub fn right(&self, p: usize) -> u32 {
        match self.sides {
            Sides::Ring if !self.has_right => NONE,
            Sides::Ring if p + 1 == self.n => 0,
            Sides::Ring | Sides::Chain if p + 1 < self.n => p as u32 + 1,
            Sides::Listed => self.right[p],
            _ => NONE,
        }
    }

    /// Process `p`'s id.
    #[inline]
    pub fn id(&self, p: usize) -> i64 {
        if self.ids.is_empty() {
            p as i64
        } else {
            self.ids[p]
        }
    }

    /// Every process's id, by process.
    pub fn ids(&self) -> std::borrow::Cow<'_, [i64]> {
        if self.ids.is_empty() {
            (0..self.n as i64).collect::<Vec<_>>().into()
        } else {
            self.ids.as_slice().into()
        }
    }

    /// The ids as kept: empty where every id is its process's index (no
    /// table of 8 bytes a process), for loops that read them in place.
    pub fn kept_ids(&self) -> &[i64] {
        &self.ids
    }

    /// Gives process `p` the id `id`.
    pub(crate) fn set_id(&mut self, p: usize, id: i64) {
        if self.ids.is_empty() {
            self.ids = (0..self.n as i64).collect();
        }
        self.ids[p] = id;
    }

    /// Every process's left neighbour (or [`NONE`]), by process.
    pub fn lefts(&self) -> Vec<u32> {
        (0..self.n).map(|p| self.left(p)).collect()
    }

    /// Every process's right neighbour (or [`NONE`]), by process.
    pub fn rights(&self) -> Vec<u32> {
        (0..self.n).map(|p| self.right(p)).collect()
    }

    /// Bytes held by the topology's tables.
    pub fn memory_bytes(&self) -> usize {
        let words = self.nbr_start.capacity()
            + self.nbr.capacity()
            + self
                .rows_on_demand
                .as_ref()
                .and_then(|rows| rows.get())
                .map_or(0, |r| {
                    r.nbr.capacity() + r.rdr_start.capacity() + r.rdr.capacity()
                })
            + self.rdr_start.capacity()
            + self.rdr.capacity()
            + self.left.capacity()
            + self.right.capacity()
            + self.parent.capacity();
        words * 4
            + self.ids.capacity() * 8
            + self.attrs.capacity() * std::mem::size_of::<(u32, String, String)>()
    }

    /// The topology as a petgraph graph (arcs point the way information
    /// flows), for algorithms and exporters; the runtime uses the frozen arrays.
    pub fn to_graph(&self) -> DiGraph<(), ()> {
        let mut g = DiGraph::with_capacity(self.n(), self.arcs());
        for _ in 0..self.n() {
            g.add_node(());
        }
        for v in 0..self.n() {
            for &u in self.nbrs(v) {
                g.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v), ());
            }
        }
        g
    }

    /// The number of processes.
    pub fn n(&self) -> usize {
        self.n
    }
    /// The processes whose variables `p` may read, in increasing index order.
    #[inline]
    pub fn nbrs(&self, p: usize) -> &[u32] {
        let (from, to) = self.nbr_span(p);
        // The bounds check indexing makes anyway tells rows made on
        // demand: the kept ones cost nothing more.
        match self.nbr.get(from..to) {
            Some(row) => row,
            None => self.row_on_demand(from, to),
        }
    }
    /// Makes the rows made on demand now: what will read neighbour lists
    /// at every step says so (a quantifier over neighbours, the
    /// locally-central daemon), so that [`Topology::keep_rows_made`] keeps
    /// them.
    pub fn want_rows(&self) {
        if self.rows_on_demand.is_some() {
            self.rows_made();
        }
    }

    /// Keeps the rows made on demand as rows made when built, where they
    /// have been made ([`Topology::want_rows`]; `nbrs` takes a detour to
    /// reach the others): called once the program is compiled and once
    /// the daemon is known.
    pub fn keep_rows_made(&mut self) {
        if let Some(rows) = self.rows_on_demand.take() {
            match rows.into_inner() {
                Some(made) => {
                    (self.nbr, self.rdr_start, self.rdr) = (made.nbr, made.rdr_start, made.rdr)
                }
                None => self.rows_on_demand = Some(std::sync::OnceLock::new()),
            }
        }
    }
    /// The rows made on demand, made now if need be.
    fn rows_made(&self) -> &Rows {
        let rows = self.rows_on_demand.as_ref().expect("rows made on demand");
        rows.get_or_init(|| families::ring_rows_made(self.n, self.undirected))
    }
    /// `nbr[from..to]` of the rows made on demand.
    #[cold]
    #[inline(never)]
    fn row_on_demand(&self, from: usize, to: usize) -> &[u32] {
        &self.rows_made().nbr[from..to]
    }
    /// Where `p`'s readers begin and end in `rdr`, and `rdr`, on a
    /// directed topology.
    #[inline]
    fn readers_span(&self, p: usize) -> (usize, usize, &[u32]) {
        match self.rdr_start.get(p..p + 2) {
            Some(&[from, to]) => (from as usize, to as usize, &self.rdr),
            _ => self.readers_span_on_demand(p),
        }
    }
    /// [`Topology::readers_span`] in the rows made on demand.
    #[cold]
    #[inline(never)]
    fn readers_span_on_demand(&self, p: usize) -> (usize, usize, &[u32]) {
        let rows = self.rows_made();
        let (from, to) = (rows.rdr_start[p], rows.rdr_start[p + 1]);
        (from as usize, to as usize, &rows.rdr)
    }
    /// How many neighbours `p` has.
    #[inline]
    pub fn nbr_count(&self, p: usize) -> usize {
        let (from, to) = self.nbr_span(p);
        to - from
    }
    /// Where `p`'s neighbours begin and end in the flat list.
    #[inline]
    fn nbr_span(&self, p: usize) -> (usize, usize) {
        if self.nbr_start.is_empty() {
            (p * self.degree, (p + 1) * self.degree)
        } else {
            (self.nbr_start[p] as usize, self.nbr_start[p + 1] as usize)
        }
    }

    /// The processes that read `p`.
    #[inline]
    pub fn readers(&self, p: usize) -> &[u32] {
        if self.undirected {
            // The same lists: no second table.
            return self.nbrs(p);
        }
        let (from, to, rdr) = self.readers_span(p);
        &rdr[from..to]
    }
    /// The position of `q` in `p`'s neighbour list.
    #[inline]
    pub fn nbr_pos(&self, p: usize, q: usize) -> Option<usize> {
        self.nbrs(p).binary_search(&(q as u32)).ok()
    }
    /// The channel from `p` to its neighbour `q`: one per entry of the
    /// neighbour lists, numbered like them.
    #[inline]
    pub fn arc(&self, p: usize, q: usize) -> Option<usize> {
        self.nbr_pos(p, q).map(|k| self.nbr_span(p).0 + k)
    }
    /// The channel from each of `p`'s readers ([`Topology::readers`], in
    /// that order) to `p`: where a process's messages come from, without
    /// a search of each reader's list.
    #[inline]
    pub fn arcs_into(&self, p: usize) -> &[u32] {
        let into = self.into.get_or_init(|| {
            (0..self.n)
                .flat_map(|q| {
                    self.readers(q).iter().map(move |&s| {
                        let arc = self.arc(s as usize, q).expect("a reader lists it");
                        arc as u32
                    })
                })
                .collect()
        });
        let (from, to) = if self.undirected {
            self.nbr_span(p)
        } else {
            let (from, to, _) = self.readers_span(p);
            (from, to)
        };
        &into[from..to]
    }
    /// The number of channels (entries of all neighbour lists).
    pub fn arcs(&self) -> usize {
        match self.nbr_start.last() {
            Some(&end) => end as usize,
            None => self.n * self.degree,
        }
    }

    /// The graph's edges: a pair of processes that read each other counts
    /// once, as does a one-way arc (a `uring`'s).
    pub fn edge_count(&self) -> usize {
        (0..self.n())
            .map(|p| {
                let one_way =
                    |&&q: &&u32| (p as u32) < q || !self.nbrs(q as usize).contains(&(p as u32));
                self.nbrs(p).iter().filter(one_way).count()
            })
            .sum()
    }

    /// The largest number of neighbours of any process.
    pub fn max_degree(&self) -> usize {
        match self.nbr_start.is_empty() {
            true if self.n > 0 => self.degree,
            _ => (0..self.n()).map(|p| self.nbr_count(p)).max().unwrap_or(0),
        }
    }
    /// Whether `q` is `p` or one of `p`'s neighbours. In line: every read
    /// through a node variable asks it.
    #[inline]
    pub fn is_self_or_nbr(&self, p: usize, q: usize) -> bool {
        p == q || self.nbrs(p).binary_search(&(q as u32)).is_ok()
    }
    /// Whether every arc has its reverse (each process reads those that
    /// read it).
    pub fn is_undirected(&self) -> bool {
        self.undirected
    }
    /// Whether `p` and `q` are adjacent in either direction.
    pub fn adjacent(&self, p: usize, q: usize) -> bool {
        self.nbrs(p).binary_search(&(q as u32)).is_ok()
            || self.readers(p).binary_search(&(q as u32)).is_ok()
    }

    /// Freezes built arcs into adjacency arrays; the arcs are dropped. The
    /// readers get a table of their own only where some arc lacks its
    /// reverse.
    fn freeze(name: String, built: Arcs) -> Topology {
        let n = built.n;
        let arcs = || {
            built
                .list
                .iter()
                .map(|&(u, v)| (u as usize, v as usize))
                .filter(|(u, v)| u != v)
        };
        let (nbr_start, nbr) = csr(n, arcs().map(|(u, v)| (v, u as u32)));
        let nbrs = |p: usize| &nbr[nbr_start[p] as usize..nbr_start[p + 1] as usize];
        let undirected = (0..n).all(|p| {
            nbrs(p)
                .iter()
                .all(|&q| nbrs(q as usize).binary_search(&(p as u32)).is_ok())
        });
        let (rdr_start, rdr) = if undirected {
            (Vec::new(), Vec::new())
        } else {
            csr(n, arcs().map(|(u, v)| (u, v as u32)))
        };
        // Every process with as many neighbours (rings, grids on a torus,
        // complete graphs): where each begins is computed.
        let degree = nbr_start.get(1).map_or(0, |&d| d as usize);
        let uniform = nbr_start
            .windows(2)
            .all(|w| (w[1] - w[0]) as usize == degree);
        let mut nbr_start = nbr_start;
        if uniform {
            nbr_start = Vec::new();
        }
        drop(built);
        let rows = (nbr_start, degree, nbr);
        Topology::of_rows(name, n, rows, (rdr_start, rdr), undirected)
    }

    /// A topology of `n` processes with no sides, ids or attributes, from
    /// its neighbours' rows as [`Topology::freeze`] keeps them (where each
    /// begins, or none and the one degree; the rows) and its readers'.
    fn of_rows(
        name: String,
        n: usize,
        (nbr_start, degree, nbr): (Vec<u32>, usize, Vec<u32>),
        (rdr_start, rdr): (Vec<u32>, Vec<u32>),
        undirected: bool,
    ) -> Topology {
        Topology {
            name,
            nbr_start,
            degree,
            nbr,
            rows_on_demand: None,
            rdr_start,
            rdr,
            undirected,
            n,
            sides: Sides::None,
            left: Vec::new(),
            right: Vec::new(),
            has_left: false,
            has_right: false,
            parent: Vec::new(),
            ids: Vec::new(),
            attrs: Vec::new(),
            regular_ring: None,
            into: std::sync::OnceLock::new(),
        }
    }
}

/// Compressed rows: for each process, its sorted, distinct partners.
fn csr(n: usize, pairs: impl Iterator<Item = (usize, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for (k, _) in pairs.clone() {
        start[k + 1] += 1;
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let mut flat = vec![0u32; start[n] as usize];
    let mut fill = start.clone();
    for (k, v) in pairs {
        flat[fill[k] as usize] = v;
        fill[k] += 1;
    }
    // Sort each row and drop repeated arcs, compacting in place.
    let mut out_start = Vec::with_capacity(n + 1);
    out_start.push(0u32);
    let mut w = 0usize;
    for k in 0..n {
        let (a, b) = (start[k] as usize, start[k + 1] as usize);
        flat[a..b].sort_unstable();
        let row_start = w;
        for i in a..b {
            if w == row_start || flat[w - 1] != flat[i] {
                flat[w] = flat[i];
                w += 1;
            }
        }
        out_start.push(w as u32);
    }
    flat.truncate(w);
    flat.shrink_to_fit();
    (out_start, flat)
}

/// The arcs of a topology being built, before [`Topology::freeze`]: a
/// plain list (8 bytes an arc; a petgraph graph took 16 an arc and 8 a
/// process, and a ring of 10^6 peaked at it while frozen).
struct Arcs {
    n: usize,
    /// (u, v): v reads u (arcs point the way information flows).
    list: Vec<(u32, u32)>,
}

impl Arcs {
    /// No arcs yet between `n` processes.
    fn new(n: usize) -> Self {
        Arcs {
            n,
            list: Vec::with_capacity(2 * n),
        }
    }
    /// An arc from `u` to `v`: `v` reads `u`.
    fn arc(&mut self, u: usize, v: usize) {
        self.list.push((u as u32, v as u32));
    }
    /// An edge: `u` and `v` read each other.
    fn edge(&mut self, u: usize, v: usize) {
        self.arc(u, v);
        self.arc(v, u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_file_a_spec_reads_is_the_one_build_asks_for() {
        for spec in [
            "file:g/edges.txt",
            "dot:a.dot",
            "ring:8",
            "petersen",
            "random:5:0.5",
        ] {
            let asked = std::cell::RefCell::new(None);
            let read = |path: &str| {
                *asked.borrow_mut() = Some(path.to_string());
                Err("no file here".to_string())
            };
            let _ = build(spec, &mut ChaCha8Rng::seed_from_u64(0), &read);
            assert_eq!(
                named_file(spec).map(str::to_string),
                asked.into_inner(),
                "{spec}"
            );
        }
    }

    fn t(spec: &str) -> Topology {
        build(spec, &mut ChaCha8Rng::seed_from_u64(1), &|_| {
            Err("no files".into())
        })
        .unwrap()
    }

    /// Readers are those whose neighbour lists name the process (one
    /// table shared with the neighbours where every arc has its reverse),
    /// and a topology is undirected exactly when they are the neighbours.
    #[test]
    fn readers_are_those_that_read() {
        let directed = from_arcs("dot:d".into(), 4, &[(0, 1), (1, 2), (2, 0), (3, 0)], true);
        let tops = [
            "ring:5", "uring:5", "chain:4", "star:4", "grid:2x3", "tree:7", "random:9",
        ]
        .map(t)
        .into_iter()
        .chain([directed]);
        for top in tops {
            let n = top.n();
            let mut symmetric = true;
            for p in 0..n {
                let readers: Vec<u32> = (0..n as u32)
                    .filter(|&v| top.nbrs(v as usize).contains(&(p as u32)))
                    .collect();
                assert_eq!(top.readers(p), &readers[..], "{} at {p}", top.name);
                symmetric &= readers == top.nbrs(p);
            }
            assert_eq!(top.is_undirected(), symmetric, "{}", top.name);
        }
    }

    #[test]
    fn rings_chains_and_unidirectional_rings() {
        let r = t("ring:5");
        assert_eq!(r.nbrs(0), &[1, 4]);
        assert_eq!((r.left(0), r.right(0)), (4, 1));
        let u = t("uring:5");
        assert_eq!(u.nbrs(0), &[4]);
        assert_eq!(u.readers(0), &[1]);
        assert!(!u.has_right);
        let c = t("chain:3");
        assert_eq!(c.left(0), NONE);
        assert_eq!(c.nbrs(1), &[0, 2]);
    }

    #[test]
    fn families_have_the_right_shape() {
        assert_eq!(t("grid:3x4").n(), 12);
        assert_eq!(t("torus:3x3").nbrs(0).len(), 4);
        assert_eq!(t("hypercube:3").nbrs(5).len(), 3);
        assert_eq!(t("complete:5").nbrs(2).len(), 4);
        assert_eq!(t("star:5").nbrs(0).len(), 4);
        let tree = t("tree:30");
        assert_eq!(tree.to_graph().edge_count(), 2 * 29);
        assert!(tree.parent.iter().skip(1).all(|p| *p != NONE));
        let g = t("random:40");
        assert_eq!(petgraph::algo::connected_components(&g.to_graph()), 1);
    }

    #[test]
    fn bad_specs_are_refused() {
        let b = |s: &str| {
            build(s, &mut ChaCha8Rng::seed_from_u64(1), &|_| {
                Err("no files".into())
            })
            .unwrap_err()
            .to_string()
        };
        assert!(b("rign:5").contains("did you mean `ring`"));
        assert!(b("ring").contains("needs a size"));
        assert!(b("ring:x").contains("not a process count"));
        assert!(b("grid:3").contains("ROWSxCOLS"));
    }

    #[test]
    fn cycles_read_from_files_are_rings() {
        let mut t = edge_list("c", "0 1\n1 2\n2 3\n3 0\n").unwrap();
        orient_if_ring(&mut t);
        assert_eq!((t.left(0), t.right(0), t.left(2), t.right(2)), (3, 1, 1, 3));
        let mut u = crate::topology::dot::parse("u", "digraph { 0 -> 1 -> 2 -> 0 }").unwrap();
        orient_if_ring(&mut u);
        assert_eq!((u.left(0), u.has_right), (2, false));
        let mut s = edge_list("s", "0 1\n0 2\n0 3\n").unwrap();
        orient_if_ring(&mut s);
        assert!(!s.has_left);
    }

    #[test]
    fn a_wrong_line_of_a_file_is_placed() {
        let e = edge_list("e", "0 1\n# x\n1 two\n").unwrap_err();
        let place = e.place.clone().expect("a place in the file");
        assert_eq!((place.path.as_str(), place.span), ("e", (10, 13)));
        assert_eq!(e.to_string(), "e:3: `two` is not a process index");
        // A place at the start of its line is on that line.
        let e = edge_list("e", "0 1\nx 2\n").unwrap_err();
        assert_eq!(e.to_string(), "e:2: `x` is not a process index");
        let d = crate::topology::dot::parse("d", "graph { a -> b }").unwrap_err();
        assert_eq!(d.place.expect("a place").span, (10, 12));
    }

    #[test]
    fn ids() {
        let mut r = t("ring:4");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        assign_ids(&mut r, &"random:10..20".parse().unwrap(), &mut rng).unwrap();
        assert!(r.ids().iter().all(|i| (10..=20).contains(i)));
        assert!(assign_ids(&mut r, &"1,1,2,3".parse().unwrap(), &mut rng)
            .unwrap_err()
            .contains("distinct"));
        assert!(assign_ids(&mut r, &"1,2".parse().unwrap(), &mut rng).is_err());
    }
}
