//! Symmetry: permutations of an instance's processes that map every run to
//! a run, so that the verifier may explore one configuration of each orbit.
//! A symmetry is an automorphism of the topology (found by petgraph's VF2
//! search, arcs kept) that keeps each process's role and whatever of the
//! processes' identities the program observes
//! ([`crate::check::ir::observes`]): none but the identity where it reads
//! indices or ids; `left`/`right`, the tree's parent or the neighbours'
//! order where it reads those. It moves a configuration's rows with the
//! processes, each per-neighbour (and edge) value with its neighbour,
//! each node value to the process's image, and each channel with its ends.
//!
//! Of a configuration's images the smallest (rows lexicographically, then
//! channels) stands for its orbit. Every property the verifier checks, and
//! every worst case, is the same at every member of an orbit; its runs
//! are taken back to runs from the configurations they start at
//! ([`Symmetry::apply`] of the inverse).

use crate::check::ir::observes;
use crate::compile::VarDomain;
use crate::load::Instance;
use crate::runtime::step::Move;
use crate::state::Config;
use petgraph::graph::{DiGraph, NodeIndex};
use std::cmp::Ordering;

/// The most symmetries kept: VF2 lists a complete graph's n! of them, and
/// a part of them, each still a symmetry, still picks a member of each
/// orbit (only fewer orbits are merged).
const MOST: usize = 1 << 12;

/// The most automorphisms of the topology looked at: where the program
/// keeps few of them (a star's leaves in their order, under `--choice
/// first` with a binder over neighbours) the n! others are not all
/// listed to be refused (a star of 12: 23 s; of 21: days).
const MOST_EXAMINED: usize = 1 << 16;

/// About the most arcs and processes visited in all to find them: VF2
/// finds each next automorphism of a dense graph in about as many steps
/// as it has arcs, so fewer are looked at on large dense graphs (about
/// 4 s of work; complete graphs are listed without VF2).
const MOST_VISITED: usize = 1 << 27;

/// One symmetry: where it sends each process, where it takes each from,
/// and per cell of an image the cell of the configuration it comes from.
struct Perm {
    to: Vec<u32>,
    from: Vec<u32>,
    source_cell: Vec<u32>,
    /// Per channel of an image, the channel it comes from (empty without
    /// channels).
    source_arc: Vec<u32>,
}

/// The symmetries of an instance, the identity first.
pub(super) struct Symmetry {
    perms: Vec<Perm>,
    stride: usize,
    /// Per slot of a row: whether it holds a process (moved by σ).
    node_slot: Vec<bool>,
    /// Per action of each role: whether its binder ranges over processes.
    member_is_process: Vec<Vec<bool>>,
    role_of: crate::compile::RoleMap,
    /// The process each channel leads to: images are kept as the search
    /// keeps configurations, messages numbered receiver by receiver.
    receivers: Vec<u32>,
}

impl Symmetry {
    /// The symmetries of `inst` where each process makes `every_move` of
    /// its moves (else the first alone, whose binder member depends on the
    /// neighbours' order).
    pub(super) fn find(inst: &Instance, every_move: bool) -> Symmetry {
        let (topo, code) = (&inst.topo, &inst.code);
        let n = topo.n();
        let stride = code.stride;
        let node_slot: Vec<bool> = code.domains.iter().map(|d| *d == VarDomain::Node).collect();
        let member_is_process = inst
            .prog
            .roles
            .iter()
            .zip(&code.roles)
            .map(|(role, compiled)| {
                compiled
                    .actions
                    .iter()
                    .map(|a| {
                        let ir = role.actions.iter().find(|x| x.label == a.label);
                        ir.and_then(|x| x.binder.as_ref())
                            .is_some_and(|b| !matches!(b.coll, crate::check::ir::Coll::Range(..)))
                    })
                    .collect()
            })
            .collect();
        let mut symmetry = Symmetry {
            perms: vec![identity(n, stride, topo.arcs(), code.capacity.is_some())],
            stride,
            node_slot,
            member_is_process,
            role_of: code.role_of.clone(),
            receivers: crate::state::channels::Channels::receivers(topo),
        };
        let seen = observes(&inst.prog);
        let order = seen.order || (!every_move && seen.binder_over_processes);
        if seen.identity || n < 2 {
            return symmetry;
        }
        // Processes of one role (and one kept value of each other role's
        // variables) may map to each other.
        let kept: Vec<Vec<Option<i64>>> = (0..n)
            .map(|p| {
                (0..inst.prog.vars.len())
                    .map(|v| code.fixed_at(v, p))
                    .collect()
            })
            .collect();
        let same =
            |a: usize, b: usize| code.role_of.of(a) == code.role_of.of(b) && kept[a] == kept[b];
        let keeps = |to: &[usize], side: &[u32], wanted: bool| {
            !wanted
                || (0..n).all(|p| match side[p] {
                    crate::topology::NONE => side[to[p]] == crate::topology::NONE,
                    q => side[to[p]] == to[q as usize] as u32,
                })
        };
        let (lefts, rights) = (topo.lefts(), topo.rights());
        each_automorphism(topo, same, |to| {
            if to.iter().enumerate().all(|(p, &q)| p == q) {
                return true;
            }
            let kept_order = !order
                || (0..n).all(|p| {
                    let (mine, theirs) = (topo.nbrs(p), topo.nbrs(to[p]));
                    mine.iter()
                        .zip(theirs)
                        .all(|(&q, &r)| to[q as usize] as u32 == r)
                });
            let tree = topo.parent.is_empty() || keeps(to, &topo.parent, seen.tree);
            if kept_order && keeps(to, &lefts, seen.left) && keeps(to, &rights, seen.right) && tree
            {
                symmetry.perms.push(perm(inst, to));
            }
            symmetry.perms.len() < MOST
        });
        symmetry
    }

    /// How many symmetries (the identity included).
    pub(super) fn order(&self) -> usize {
        self.perms.len()
    }

    /// Whether the identity is the only one.
    pub(super) fn is_trivial(&self) -> bool {
        self.perms.len() == 1
    }

    /// Cell `cell` of the image of `rows` under symmetry `k`.
    #[inline]
    fn image_cell(&self, k: usize, rows: &[i64], cell: usize) -> i64 {
        let perm = &self.perms[k];
        let v = rows[perm.source_cell[cell] as usize];
        if self.node_slot[cell % self.stride] {
            perm.to[v as usize] as i64
        } else {
            v
        }
    }

    /// The image of `cfg` under symmetry `k`, into `out`.
    pub(super) fn apply_into(&self, k: usize, cfg: &Config, out: &mut Config) {
        out.rows.clear();
        out.rows
            .extend((0..cfg.rows.len()).map(|c| self.image_cell(k, &cfg.rows, c)));
        out.chans.clone_from(&cfg.chans);
        for (a, &from) in self.perms[k].source_arc.iter().enumerate() {
            out.chans.queues[a].clone_from(&cfg.chans.queues[from as usize]);
        }
        self.canonicalize(out);
    }

    /// `cfg` in the form images are compared in: messages numbered
    /// receiver by receiver (a symmetry maps receivers to receivers).
    fn canonicalize(&self, cfg: &mut Config) {
        cfg.chans.canonicalize_by_receiver(&self.receivers);
    }

    /// The image of `cfg` under symmetry `k`.
    pub(super) fn apply(&self, k: usize, cfg: &Config) -> Config {
        let mut out = cfg.clone();
        self.apply_into(k, cfg, &mut out);
        out
    }

    /// The configuration standing for `cfg`'s orbit (its smallest image)
    /// into `out`, and the symmetry that gives it.
    pub(super) fn canonical_into(&self, cfg: &Config, out: &mut Config) -> usize {
        let cells = cfg.rows.len();
        let mut best = 0;
        out.clone_from(cfg);
        self.canonicalize(out);
        for k in 1..self.perms.len() {
            // Cell by cell: most images differ from the best in a cell or two.
            let mut order = Ordering::Equal;
            for c in 0..cells {
                order = self.image_cell(k, &cfg.rows, c).cmp(&out.rows[c]);
                if order != Ordering::Equal {
                    break;
                }
            }
            if order == Ordering::Equal && !cfg.chans.queues.is_empty() {
                let image = self.apply(k, cfg);
                order = channels_order(&image, out);
            }
            if order == Ordering::Less {
                self.apply_into(k, cfg, out);
                best = k;
            }
        }
        best
    }

    /// `cfg`, or under `symmetry` the configuration standing for its orbit
    /// (made in `canonical`).
    pub(super) fn orbit<'c>(
        symmetry: Option<&Symmetry>,
        cfg: &'c Config,
        canonical: &'c mut Config,
    ) -> &'c Config {
        match symmetry {
            Some(sym) => {
                sym.canonical_into(cfg, canonical);
                canonical
            }
            None => cfg,
        }
    }

    /// The configuration standing for `cfg`'s orbit, and the symmetry that
    /// gives it.
    pub(super) fn canonical(&self, cfg: &Config) -> (Config, usize) {
        let mut out = cfg.clone();
        let k = self.canonical_into(cfg, &mut out);
        (out, k)
    }

    /// The processes `bits` (at most 64) moved by symmetry `k`.
    pub(super) fn map_bits(&self, k: usize, bits: u64) -> u64 {
        if k == 0 {
            return bits;
        }
        super::successors::Bits(bits).fold(0, |m, p| m | 1 << self.perms[k].to[p])
    }

    /// The move `m` (of a configuration `c`) as the same move of the
    /// configuration `c` is the image of under symmetry `k`: its process,
    /// and a binder member that is a process, taken back by `k`.
    pub(super) fn move_back(&self, k: usize, m: &Move) -> Move {
        let from = &self.perms[k].from;
        let p = from[m.process as usize];
        let role = self.role_of.of(p as usize);
        let process_member = self.member_is_process[role][m.action as usize];
        Move {
            process: p,
            action: m.action,
            member: m.member.map(|q| {
                if process_member {
                    i64::from(from[q as usize])
                } else {
                    q
                }
            }),
            draws: m.draws.clone(),
        }
    }
}

/// Orders two configurations of equal rows by their channels.
fn channels_order(a: &Config, b: &Config) -> Ordering {
    let key = |c: &Config| -> Vec<(usize, u16, [i64; crate::state::channels::MAX_FIELDS], u64)> {
        c.chans
            .queues
            .iter()
            .enumerate()
            .flat_map(|(q, msgs)| msgs.iter().map(move |m| (q, m.kind, m.fields, m.seq)))
            .collect()
    };
    let (ka, kb) = (key(a), key(b));
    a.chans
        .queues
        .iter()
        .map(|q| q.len())
        .cmp(b.chans.queues.iter().map(|q| q.len()))
        .then_with(|| ka.cmp(&kb))
}

/// Calls `each` with automorphisms of `topo` (arcs kept) that map each
/// process to one `same` as it, the identity first, until it returns
/// false or enough were looked at ([`MOST_EXAMINED`]; on large dense
/// graphs, [`MOST_VISITED`] arcs and processes). A complete graph's are
/// the permutations within its classes, listed without VF2, which takes
/// about n^3 steps for the first one alone there.
fn each_automorphism(
    topo: &crate::topology::Topology,
    same: impl Fn(usize, usize) -> bool,
    mut each: impl FnMut(&[usize]) -> bool,
) {
    let n = topo.n();
    if topo.is_undirected() && topo.arcs() == n * (n - 1) {
        // Permutations in lexicographic order, kept where each process
        // goes to one of its class.
        let mut to: Vec<usize> = (0..n).collect();
        for _ in 0..MOST_EXAMINED {
            if to.iter().enumerate().all(|(p, &q)| same(p, q)) && !each(&to) {
                return;
            }
            let Some(i) = (0..n - 1).rev().find(|&i| to[i] < to[i + 1]) else {
                return;
            };
            let j = (i + 1..n)
                .rev()
                .find(|&j| to[j] > to[i])
                .expect("a larger one after i");
            to.swap(i, j);
            to[i + 1..].reverse();
        }
        return;
    }
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    for p in 0..n {
        g.add_node(p);
    }
    for v in 0..n {
        for &u in topo.nbrs(v) {
            g.add_edge(NodeIndex::new(u as usize), NodeIndex::new(v), ());
        }
    }
    let mut node_match = |a: &usize, b: &usize| same(*a, *b);
    let mut edge_match = |_: &(), _: &()| true;
    let (gr, g2) = (&g, &g);
    let Some(found) = petgraph::algo::isomorphism::subgraph_isomorphisms_iter(
        &gr,
        &g2,
        &mut node_match,
        &mut edge_match,
    ) else {
        return;
    };
    let examined = (MOST_VISITED / (topo.arcs() + n)).clamp(16, MOST_EXAMINED);
    for to in found.take(examined) {
        if !each(&to) {
            return;
        }
    }
}

/// The identity on `n` processes of `stride` cells and `arcs` channels.
fn identity(n: usize, stride: usize, arcs: usize, channels: bool) -> Perm {
    Perm {
        to: (0..n as u32).collect(),
        from: (0..n as u32).collect(),
        source_cell: (0..(n * stride) as u32).collect(),
        source_arc: if channels {
            (0..arcs as u32).collect()
        } else {
            Vec::new()
        },
    }
}

/// The symmetry sending process `p` to `to[p]`: where each cell and each
/// channel of an image comes from.
fn perm(inst: &Instance, to: &[usize]) -> Perm {
    let (topo, code) = (&inst.topo, &inst.code);
    let (n, stride) = (topo.n(), code.stride);
    let mut from = vec![0u32; n];
    for (p, &q) in to.iter().enumerate() {
        from[q] = p as u32;
    }
    let mut source_cell = vec![0u32; n * stride];
    for t in 0..n {
        let p = from[t] as usize;
        for v in 0..inst.prog.vars.len() {
            let slots = code.slots(v);
            for (k, slot) in slots.clone().enumerate() {
                // A per-neighbour value goes with its neighbour.
                let source = if code.per_nbr[v] {
                    match topo.nbrs(t).get(k) {
                        Some(&q) => {
                            let back = from[q as usize] as usize;
                            slots.start + topo.nbr_pos(p, back).unwrap_or(k)
                        }
                        None => slot,
                    }
                } else {
                    slot
                };
                source_cell[t * stride + slot] = (p * stride + source) as u32;
            }
        }
    }
    let source_arc = if code.capacity.is_some() {
        let mut arcs = vec![0u32; topo.arcs()];
        for t in 0..n {
            for &u in topo.nbrs(t) {
                let (p, q) = (from[t] as usize, from[u as usize] as usize);
                if let (Some(a), Some(b)) = (topo.arc(t, u as usize), topo.arc(p, q)) {
                    arcs[a] = b as u32;
                }
            }
        }
        arcs
    } else {
        Vec::new()
    };
    Perm {
        to: to.iter().map(|&q| q as u32).collect(),
        from,
        source_cell,
        source_arc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete graph's symmetries are the permutations within its
    /// classes, listed without VF2 (which took minutes to find 4,096 of
    /// complete:1000's): all kept, each fixing a process of another role.
    #[test]
    fn complete_graphs_are_permuted_within_their_classes() {
        let src = "var x: 0..0 = 0\nprocess { a :: true -> x := x }\nlegitimate: true\n";
        let big = super::super::test_instance(src, "complete:1000", &[]);
        assert_eq!(Symmetry::find(&big, true).order(), MOST);
        let roles = "var x: 0..0 = 0\nprocess where index == 0 { a :: true -> x := x }\n\
                     process where index != 0 { b :: true -> x := x }\nlegitimate: true\n";
        let two = super::super::test_instance(roles, "complete:6", &[]);
        let sym = Symmetry::find(&two, true);
        assert_eq!(sym.order(), 120, "the 5! permutations of the others");
        assert!(sym.perms.iter().all(|p| p.to[0] == 0));
    }
}
