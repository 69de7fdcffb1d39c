//! Configurations as bits: each free cell of the state space (a value of
//! a process that varies) is the place of its value among the cell's
//! values, in as many bits as that takes, most significant first. Each bit
//! has a primed copy right after it in the order (the value after a step),
//! so that a process's step relates neighbouring levels, and the cells
//! follow the processes' order, so that neighbours on a ring or a chain
//! sit close together.

use crate::runtime::space::Space;
use crate::state::Config;
use crate::verify::bits_for;
use oxidd::bdd::{BDDFunction as F, BDDManagerRef};
use oxidd::util::num::F64;
use oxidd::util::{AllocResult, OptBool, SatCountCache};
use oxidd::{BooleanFunction, Manager, ManagerRef, Subst};

/// One free cell: where it is in the rows, its values, and the variable
/// numbers of its unprimed bits (most significant first; each primed bit
/// is the next variable).
pub(super) struct Cell {
    pub(super) at: usize,
    pub(super) values: Vec<i64>,
    bits: Vec<u32>,
}

/// The bits of every configuration of an instance.
pub(super) struct Encoding {
    pub(super) mref: BDDManagerRef,
    pub(super) cells: Vec<Cell>,
    /// Per cell of the rows: its free cell, if it is one.
    cell_at: Vec<Option<usize>>,
    vars: Vec<F>,
    /// Every code that is a configuration (a cell's bits may spell a place
    /// past its values).
    pub(super) universe: F,
    /// The configuration every other is a change of (cells that do not
    /// vary hold their one value).
    base: Config,
    /// Every unprimed and every primed variable, as cubes.
    pub(super) unprimed: F,
    pub(super) primed: F,
    /// Renames unprimed to primed, and back.
    pub(super) to_primed: Subst<F>,
    pub(super) to_unprimed: Subst<F>,
    /// Bytes the tables a process's moves are run into may take (half the
    /// memory budget).
    pub(super) table_bytes: u64,
}

impl Encoding {
    /// The bits of `space`'s configurations (a space without edge
    /// variables, whose cells vary independently), in a manager of at
    /// most `nodes` nodes.
    pub(super) fn new(space: &Space, nodes: usize, threads: u32) -> AllocResult<Self> {
        let free = space.free_cells().unwrap_or_default();
        let base = space.config(0);
        let mut cells = Vec::with_capacity(free.len());
        let mut cell_at = vec![None; base.rows.len()];
        let mut next = 0u32;
        for at in free {
            let values = space.values_at(at).unwrap_or(&[]).to_vec();
            let width = bits_for(values.len() as u128);
            cell_at[at] = Some(cells.len());
            cells.push(Cell {
                at,
                values,
                bits: (0..width).map(|i| next + 2 * i).collect(),
            });
            next += 2 * width;
        }
        // The apply cache is allocated whole at once: a few million
        // entries serve the largest instances, and cost little to start.
        let cache = (nodes / 16).clamp(1 << 12, 1 << 22);
        let mref = oxidd::bdd::new_manager(nodes, cache, threads);
        let vars: Vec<F> = mref.with_manager_exclusive(|m| {
            AllocResult::from_iter(m.add_vars(next).map(|i| F::var(m, i)))
        })?;
        let t = mref.with_manager_shared(|m| F::t(m));
        let (mut unprimed, mut primed) = (t.clone(), t.clone());
        for (v, var) in vars.iter().enumerate() {
            if v % 2 == 0 {
                unprimed = unprimed.and(var)?;
            } else {
                primed = primed.and(var)?;
            }
        }
        let evens: Vec<u32> = (0..next).step_by(2).collect();
        let odds: Vec<u32> = (1..next).step_by(2).collect();
        let to_primed = Subst::new(
            evens.clone(),
            odds.iter().map(|&v| vars[v as usize].clone()).collect(),
        );
        let to_unprimed = Subst::new(
            odds,
            evens.iter().map(|&v| vars[v as usize].clone()).collect(),
        );
        let mut enc = Encoding {
            mref,
            cells,
            cell_at,
            vars,
            universe: t.clone(),
            base,
            unprimed,
            primed,
            to_primed,
            to_unprimed,
            table_bytes: u64::MAX,
        };
        for k in 0..enc.cells.len() {
            let mut any = enc.falsity();
            for i in 0..enc.cells[k].values.len() {
                any = any.or(&enc.place(k, i, false)?)?;
            }
            enc.universe = enc.universe.and(&any)?;
        }
        Ok(enc)
    }

    /// The constant true.
    pub(super) fn truth(&self) -> F {
        self.mref.with_manager_shared(|m| F::t(m))
    }

    /// The constant false.
    pub(super) fn falsity(&self) -> F {
        self.mref.with_manager_shared(|m| F::f(m))
    }

    /// The free cell at cell `at` of the rows, if it is one.
    pub(super) fn cell_at(&self, at: usize) -> Option<usize> {
        self.cell_at.get(at).copied().flatten()
    }

    /// Cell `k` holds its `i`-th value (after the step, `primed`).
    pub(super) fn place(&self, k: usize, i: usize, primed: bool) -> AllocResult<F> {
        let bits = &self.cells[k].bits;
        let mut cube = self.truth();
        for (j, &v) in bits.iter().enumerate() {
            let var = &self.vars[(v + u32::from(primed)) as usize];
            let set = (i >> (bits.len() - 1 - j)) & 1 == 1;
            cube = if set {
                cube.and(var)?
            } else {
                cube.and(&var.not()?)?
            };
        }
        Ok(cube)
    }

    /// How many bits cell `k`'s places take.
    pub(super) fn width(&self, k: usize) -> usize {
        self.cells[k].bits.len()
    }

    /// The `j`-th unprimed bit of cell `k` (most significant first).
    pub(super) fn bit(&self, k: usize, j: usize) -> &F {
        &self.vars[self.cells[k].bits[j] as usize]
    }

    /// Cell `k` keeps its value through the step.
    pub(super) fn keeps(&self, k: usize) -> AllocResult<F> {
        let mut same = self.truth();
        for &v in &self.cells[k].bits {
            let (x, y) = (&self.vars[v as usize], &self.vars[v as usize + 1]);
            same = same.and(&x.equiv(y)?)?;
        }
        Ok(same)
    }

    /// The configuration `cfg` alone.
    pub(super) fn single(&self, cfg: &Config) -> AllocResult<F> {
        let mut cube = self.truth();
        for (k, c) in self.cells.iter().enumerate() {
            let i = c
                .values
                .iter()
                .position(|&v| v == cfg.rows[c.at])
                .unwrap_or(0);
            cube = cube.and(&self.place(k, i, false)?)?;
        }
        Ok(cube)
    }

    /// Every configuration of `space` (a space of the same rows whose
    /// cells take some of their values here: the arbitrary starts).
    pub(super) fn within(&self, space: &Space) -> AllocResult<F> {
        let base = space.config(0);
        let mut set = self.universe.clone();
        for (k, c) in self.cells.iter().enumerate() {
            let one = [base.rows[c.at]];
            let values = space.values_at(c.at).unwrap_or(&one);
            let mut any = self.falsity();
            for v in values {
                if let Some(i) = c.values.iter().position(|x| x == v) {
                    any = any.or(&self.place(k, i, false)?)?;
                }
            }
            set = set.and(&any)?;
        }
        Ok(set)
    }

    /// The configuration of `set` first in the state space's order (each
    /// cell's earlier values first, the first cell's most significant),
    /// if `set` has one.
    pub(super) fn first(&self, set: &F) -> AllocResult<Option<Config>> {
        let set = set.and(&self.universe)?;
        Ok(set
            .pick_cube(|_, _, _| false)
            .map(|cube| self.decode(&cube)))
    }

    /// The configuration a cube's unprimed bits spell (bits it leaves
    /// open taken as 0).
    fn decode(&self, cube: &[OptBool]) -> Config {
        let mut cfg = self.base.clone();
        for c in &self.cells {
            let place = c.bits.iter().fold(0usize, |acc, &v| {
                (acc << 1) | usize::from(cube[v as usize] == OptBool::True)
            });
            cfg.rows[c.at] = c.values[place.min(c.values.len() - 1)];
        }
        cfg
    }

    /// How many configurations `set` holds (saturating).
    pub(super) fn count(&self, set: &F) -> u128 {
        let levels = self.vars.len() as u32;
        // Primed bits are left open in a set of configurations: each
        // counts twice.
        let half = levels / 2;
        if levels < 127 {
            let all: u128 = set.sat_count(
                levels,
                &mut SatCountCache::<u128, std::hash::RandomState>::default(),
            );
            all >> half
        } else {
            let all: F64 = set.sat_count(
                levels,
                &mut SatCountCache::<F64, std::hash::RandomState>::default(),
            );
            let n = all.0 / 2f64.powi(half as i32);
            if n >= u128::MAX as f64 {
                u128::MAX
            } else {
                n as u128
            }
        }
    }

    /// The configuration every other is a change of.
    pub(super) fn base(&self) -> &Config {
        &self.base
    }

    /// Nodes in the manager now.
    pub(super) fn nodes(&self) -> usize {
        self.mref.with_manager_shared(|m| m.num_inner_nodes())
    }
}
