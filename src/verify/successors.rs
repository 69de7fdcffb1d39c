//! The steps from a configuration of the state space, without building
//! configurations. In a program without effects (no edge variables,
//! messages or draws) a step replaces each mover's row by the row its
//! action computes from the configuration before the step, and nothing
//! else: so each enabled process's move is run once
//! ([`StepRelation::moved_row`]), kept as what it adds to the
//! configuration's index, and a move set's successor is the index plus its
//! movers' changes, whatever the number of move sets (2^k - 1 for k enabled
//! processes under the distributed daemon). Tests hold it to the step
//! relation's successor on every configuration and move set.

use super::Refusal;
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::space::Space;
use crate::runtime::step::StepRelation;
use crate::state::Config;

/// A step: the successor's number, how many processes move, and which
/// (as bits; 0 with more than 64 processes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Succ {
    pub(super) to: u32,
    pub(super) moves: u32,
    pub(super) movers: u64,
}

/// The engine: the step relation and buffers it reuses.
pub(super) struct Successors<'a> {
    space: &'a Space,
    rel: StepRelation<'a>,
    cfg: Config,
    stride: usize,
    /// Per process: its first enabled action, or `NO_ACTION`.
    chosen: Vec<u16>,
    /// The enabled processes and what each one's move adds to the index.
    moves: Vec<(u32, i64)>,
    /// Per process: the processes the locally-central daemon keeps apart
    /// from it (those it reads and those that read it), as bits.
    apart: Vec<u64>,
}

impl<'a> Successors<'a> {
    /// The engine for `inst` over `space`, when its steps are as above
    /// and a move set fits in a word (at most 64 processes).
    pub(super) fn new(inst: &'a Instance, space: &'a Space) -> Option<Self> {
        let n = inst.topo.n();
        if inst.code.has_effects || n > 64 {
            return None;
        }
        let apart = (0..n)
            .map(|p| {
                let topo = &inst.topo;
                topo.nbrs(p)
                    .iter()
                    .chain(topo.readers(p))
                    .fold(0u64, |m, &q| m | 1 << q)
            })
            .collect();
        Some(Successors {
            space,
            rel: inst.step_relation(),
            cfg: space.config(0),
            stride: inst.code.stride,
            chosen: Vec::with_capacity(n),
            moves: Vec::with_capacity(n),
            apart,
        })
    }

    /// Reads configuration `i` and which processes are enabled there.
    pub(super) fn load(&mut self, i: u32) -> Result<(), Refusal> {
        self.space.decode_into(u64::from(i), &mut self.cfg);
        self.rel
            .chosen_into(&self.cfg, &mut self.chosen)
            .map_err(|e| Refusal::Runtime(Box::new((e, self.cfg.clone()))))
    }

    /// The enabled processes of the loaded configuration, as bits.
    pub(super) fn enabled_bits(&self) -> u64 {
        self.chosen
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != NO_ACTION)
            .fold(0, |m, (p, _)| m | 1 << p)
    }

    /// Runs every enabled process's move in the loaded configuration `i`;
    /// false when one faults or leaves the state space (the caller then
    /// takes the step relation's own way, which reports it).
    pub(super) fn run_moves(&mut self, i: u32) -> bool {
        self.moves.clear();
        let stride = self.stride;
        for p in 0..self.chosen.len() {
            let a = self.chosen[p];
            if a == NO_ACTION {
                continue;
            }
            let Ok(after) = self.rel.moved_row(&self.cfg, p as u32, u32::from(a)) else {
                return false;
            };
            let before = &self.cfg.rows[p * stride..(p + 1) * stride];
            let mut delta = 0i128;
            for (s, (&old, &new)) in before.iter().zip(after).enumerate() {
                match self.space.delta(p * stride + s, old, new) {
                    Some(d) => delta += d,
                    None => return false,
                }
            }
            let to = i64::from(i) as i128 + delta;
            if u32::try_from(to).is_err() {
                return false;
            }
            self.moves.push((p as u32, delta as i64));
        }
        true
    }

    /// The steps `daemon` allows from configuration `i` (loaded, its moves
    /// run), in the order of [`Daemon::move_sets`].
    pub(super) fn steps(&self, i: u32, daemon: &Daemon, out: &mut Vec<Succ>) {
        out.clear();
        if self.moves.is_empty() {
            return;
        }
        let at = |d: i64| (i64::from(i) + d) as u32;
        match daemon {
            Daemon::Central => out.extend(self.moves.iter().map(|&(p, d)| Succ {
                to: at(d),
                moves: 1,
                movers: 1 << p,
            })),
            Daemon::Synchronous => {
                let sum = self.moves.iter().map(|m| m.1).sum();
                out.push(Succ {
                    to: at(sum),
                    moves: self.moves.len() as u32,
                    movers: self.enabled_bits(),
                });
            }
            Daemon::Distributed | Daemon::LocallyCentral => {
                let apart = matches!(daemon, Daemon::LocallyCentral).then_some(&self.apart[..]);
                subsets(&self.moves, apart, (i64::from(i), 0, 0), out);
            }
            Daemon::Schedule(_) => unreachable!("the verifier explores no schedule"),
        }
    }
}

/// Appends every non-empty extension of the move set `(index, size, members)`
/// by moves of `rest`, in [`Daemon::move_sets`]'s lexicographic order;
/// with `apart`, only sets with no two processes kept apart.
fn subsets(rest: &[(u32, i64)], apart: Option<&[u64]>, set: (i64, u32, u64), out: &mut Vec<Succ>) {
    let (index, size, members) = set;
    for (k, &(p, d)) in rest.iter().enumerate() {
        if apart.is_some_and(|a| a[p as usize] & members != 0) {
            continue;
        }
        let with = (index + d, size + 1, members | 1 << p);
        out.push(Succ {
            to: with.0 as u32,
            moves: with.1,
            movers: with.2,
        });
        subsets(&rest[k + 1..], apart, with, out);
    }
}
