//! SSLE on a random graph: a hand-written simulator (the baseline) against
//! `programs/ssle.gc` (with `repair=1`) run through the library: neighbour
//! quantifiers, tuples, sets and action priorities. Both start from the
//! interpreter's random configuration on the same graph and run the central
//! daemon for a fixed step budget (each batch from that same start).
//! `cargo bench --bench ssle`.

use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Simulation};
use guarded::runtime::init::InitMode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

const PROGRAM: &str = include_str!("../programs/ssle.gc");
const NONE: u32 = u32::MAX;
const SIZES: [usize; 2] = [1_000, 5_000];
const BUDGET: u64 = 5_000;

/// One process of the baseline.
#[derive(Clone, Copy)]
struct Node {
    parent: u32,
    leader: i64,
    level: i64,
    color: u8,
    done: bool,
}

/// The baseline: the SSLE table (with the repaired attachment) written out,
/// an enabled set kept incrementally, neighbours in CSR arrays.
#[derive(Clone)]
struct Baseline {
    nodes: Vec<Node>,
    start: Vec<u32>,
    adj: Vec<u32>,
    list: Vec<u32>,
    pos: Vec<u32>,
    rng: ChaCha8Rng,
}

type Key = (i64, i64);

impl Baseline {
    fn from(sim: &Simulation, seed: u64) -> Self {
        let var = |name: &str| sim.slots(name).expect("the program declares it").start;
        let (parent, leader, level, color, done) = (
            var("parent"),
            var("leader"),
            var("level"),
            var("color"),
            var("done"),
        );
        let n = sim.n();
        let nodes = (0..n)
            .map(|p| {
                let row = sim.row(p);
                Node {
                    parent: row[parent] as u32,
                    leader: row[leader],
                    level: row[level],
                    color: row[color] as u8,
                    done: row[done] != 0,
                }
            })
            .collect();
        let mut start = vec![0u32];
        let mut adj = Vec::new();
        for p in 0..n {
            adj.extend_from_slice(sim.topology().nbrs(p));
            start.push(adj.len() as u32);
        }
        let mut b = Baseline {
            nodes,
            start,
            adj,
            list: Vec::new(),
            pos: vec![NONE; n],
            rng: ChaCha8Rng::seed_from_u64(seed),
        };
        for p in 0..n {
            b.update(p);
        }
        b
    }

    fn nbrs(&self, p: usize) -> &[u32] {
        &self.adj[self.start[p] as usize..self.start[p + 1] as usize]
    }
    fn key(&self, p: usize) -> Key {
        (self.nodes[p].leader, self.nodes[p].level)
    }
    fn true_root(&self, p: usize) -> bool {
        self.nodes[p].parent as usize == p && self.key(p) == (p as i64, 0)
    }
    fn true_child(&self, p: usize) -> bool {
        let q = self.nodes[p].parent as usize;
        self.key(p) == (self.nodes[q].leader, self.nodes[q].level + 1)
            && self.nodes[p].leader < p as i64
    }
    fn false_root(&self, p: usize) -> bool {
        !self.true_root(p) && !self.true_child(p)
    }
    fn min_key_nbr(&self, p: usize) -> Key {
        self.nbrs(p)
            .iter()
            .map(|&q| self.key(q as usize))
            .min()
            .unwrap_or((i64::MAX, 0))
    }
    fn can_improve(&self, p: usize) -> bool {
        let (l, v) = self.min_key_nbr(p);
        (l, v + 1) < self.key(p)
    }
    /// The repaired Best_Nbr: the colour-1 neighbour that improves p's key
    /// most, ties to the smallest id.
    fn best_nbr(&self, p: usize) -> Option<usize> {
        let mine = self.key(p);
        self.nbrs(p)
            .iter()
            .map(|&q| q as usize)
            .filter(|&q| {
                self.nodes[q].color == 1 && (self.nodes[q].leader, self.nodes[q].level + 1) < mine
            })
            .min_by_key(|&q| (self.key(q), q))
    }
    fn child_of(&self, q: usize, p: usize) -> bool {
        self.nodes[q].parent as usize == p && self.true_child(q)
    }
    fn done_now(&self, p: usize) -> bool {
        let (l, v) = self.key(p);
        self.nbrs(p)
            .iter()
            .all(|&q| self.key(q as usize) <= (l, v + 1))
            && self
                .nbrs(p)
                .iter()
                .all(|&q| !self.child_of(q as usize, p) || self.nodes[q as usize].done)
    }
    /// The first enabled action (1..=6), or 0.
    fn action(&self, p: usize) -> u8 {
        let me = self.nodes[p];
        let tr = self.true_root(p);
        let tc = self.true_child(p);
        let no_false_kids = self
            .nbrs(p)
            .iter()
            .all(|&q| self.nodes[q as usize].parent as usize != p || !self.false_root(q as usize));
        if tr && no_false_kids && self.can_improve(p) && self.best_nbr(p).is_some() {
            return 1;
        }
        if !tr && !tc {
            return 2;
        }
        if tc && self.can_improve(p) {
            return 3;
        }
        let kids_all = |c: u8| {
            self.nbrs(p)
                .iter()
                .all(|&q| !self.child_of(q as usize, p) || self.nodes[q as usize].color == c)
        };
        let parent_color = self.nodes[me.parent as usize].color;
        if me.color == 0 && parent_color == 0 && kids_all(1) && (!tr || !me.done) {
            return 4;
        }
        let (l, v) = self.key(p);
        if me.color == 1
            && parent_color == 1
            && kids_all(0)
            && (!tr || !me.done)
            && self
                .nbrs(p)
                .iter()
                .all(|&q| self.key(q as usize) <= (l, v + 1))
        {
            return 5;
        }
        if me.done != self.done_now(p) {
            return 6;
        }
        0
    }
    fn update(&mut self, p: usize) {
        let on = self.action(p) != 0;
        let at = self.pos[p];
        if on && at == NONE {
            self.pos[p] = self.list.len() as u32;
            self.list.push(p as u32);
        } else if !on && at != NONE {
            let last = self.list.pop().expect("non-empty");
            if last as usize != p {
                self.list[at as usize] = last;
                self.pos[last as usize] = at;
            }
            self.pos[p] = NONE;
        }
    }
    fn central_step(&mut self) -> bool {
        if self.list.is_empty() {
            return false;
        }
        let p = self.list[self.rng.gen_range(0..self.list.len())] as usize;
        // Every right-hand side reads the configuration before the step.
        let done = self.done_now(p);
        let action = self.action(p);
        let best = if action == 1 { self.best_nbr(p) } else { None };
        let node = self.nodes[p];
        self.nodes[p] = match (action, best) {
            (1, Some(q)) => Node {
                parent: q as u32,
                leader: self.nodes[q].leader,
                level: self.nodes[q].level + 1,
                color: 0,
                done,
            },
            (2 | 3, _) => Node {
                parent: p as u32,
                leader: p as i64,
                level: 0,
                color: 0,
                done,
            },
            (4, _) => Node {
                color: 1,
                done,
                ..node
            },
            (5, _) => Node {
                color: 0,
                done,
                ..node
            },
            _ => Node { done, ..node },
        };
        self.update(p);
        for k in self.start[p]..self.start[p + 1] {
            self.update(self.adj[k as usize] as usize);
        }
        true
    }
}

fn interpreter(n: usize, seed: u64) -> Simulation {
    let setup = Setup {
        topology: Some(format!("random:{n}")),
        params: vec![("repair".into(), 1)],
        seed,
        init: InitMode::Random,
        daemon: Daemon::Central,
        ..Setup::default()
    };
    simulate(PROGRAM, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn central(c: &mut Criterion) {
    let mut g = c.benchmark_group("ssle-central");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(BUDGET));
    for n in SIZES {
        let mut sim = interpreter(n, 1);
        let base = Baseline::from(&sim, 1);
        // Both sides must be running the same protocol: the same action is
        // chosen at every process of the start.
        for p in 0..n {
            let theirs = sim.chosen_action(p).map(|a| a.label.clone());
            let ours = match base.action(p) {
                0 => None,
                k => Some(format!("A{k}")),
            };
            assert_eq!(theirs, ours, "process {p} of random:{n}");
        }
        g.bench_with_input(BenchmarkId::new("baseline", n), &n, |b, _| {
            b.iter_batched_ref(
                || base.clone(),
                |run| {
                    for _ in 0..BUDGET {
                        assert!(run.central_step(), "silent within the budget");
                    }
                },
                BatchSize::LargeInput,
            )
        });
        let start = sim.snapshot();
        g.bench_with_input(BenchmarkId::new("guarded", n), &n, |b, _| {
            b.iter_batched(
                || start.clone(),
                |snap| {
                    sim.restore(snap);
                    for _ in 0..BUDGET {
                        sim.step().expect("no runtime error");
                    }
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

#[path = "common/ratios.rs"]
mod ratios;

criterion_group!(benches, central);

fn main() {
    let started = std::time::SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios::print(&["ssle-central"], started);
}
