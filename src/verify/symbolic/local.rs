//! Each process's moves as a relation over the bits of what it reads and
//! its own bits after the step, built by running its compiled guards and
//! statements on every value of what it reads (its row and its
//! neighbours'): the step relation's own answer, so the diagrams say what
//! runs do. Also where it is enabled, and where one of its moves faults.

use super::encoding::Encoding;
use super::tabulate::{tabulate, Outcomes, MOST_VALUATIONS};
use super::Refusal;
use crate::load::Instance;
use crate::runtime::step::{Move, StepRelation};
use crate::state::Config;
use oxidd::bdd::BDDFunction as F;
use oxidd::util::AllocResult;
use oxidd::BooleanFunction;
use std::collections::HashMap;

/// One process's moves.
pub(super) struct Process {
    /// Pairs (configuration, its cells after one of its moves), over what
    /// it reads and its primed cells; no pair where the move faults.
    pub(super) moves: F,
    /// Where it is enabled.
    pub(super) enabled: F,
    /// Where one of its moves faults (or leaves a domain).
    pub(super) faults: F,
    /// Its cells keep their values.
    pub(super) keeps: F,
    /// Its moves summed over every value of what it reads, and how many
    /// such values there are: a configuration of the space holds each
    /// value as often as any other.
    pub(super) moves_listed: u128,
    pub(super) valuations: u128,
}

/// Why some process reads more values than are tabulated, if one does.
pub(super) fn too_many_valuations(inst: &Instance) -> Option<String> {
    let space = inst.space();
    (0..inst.topo.n()).find_map(|p| {
        let count = neighbourhood(inst, p)
            .filter_map(|at| space.values_at(at))
            .try_fold(1u128, |acc, values| acc.checked_mul(values.len() as u128))
            .unwrap_or(u128::MAX);
        (count > MOST_VALUATIONS).then(|| {
            format!("process {p} reads more than {MOST_VALUATIONS} values of its neighbourhood (its row and its neighbours'), more than are tabulated")
        })
    })
}

/// The cells of the rows of process `p` and its neighbours: what its
/// guards, moves and local predicates read.
fn neighbourhood(inst: &Instance, p: usize) -> impl Iterator<Item = usize> + '_ {
    let stride = inst.code.stride;
    inst.topo
        .nbrs(p)
        .iter()
        .map(|&q| q as usize)
        .chain([p])
        .flat_map(move |q| q * stride..(q + 1) * stride)
}

/// The free cells process `p` reads: its row and its neighbours'.
pub(super) fn read_cells(inst: &Instance, enc: &Encoding, p: usize) -> Vec<usize> {
    let mut cells: Vec<usize> = neighbourhood(inst, p)
        .filter_map(|at| enc.cell_at(at))
        .collect();
    cells.sort_unstable();
    cells.dedup();
    cells
}

/// The diagrams' node limit was reached.
pub(super) fn oom<E>(_: E) -> Refusal {
    Refusal::OutOfNodes
}

/// What process `p` does at one value of what it reads: whether it is
/// enabled, whether a move faults on the way (a runtime error), and each
/// move's row after it (`stride` values each).
struct MoveOutcomes<'a> {
    rel: StepRelation<'a>,
    p: usize,
    every: bool,
    listed: Vec<Move>,
    key: Vec<i64>,
    ids: HashMap<Vec<i64>, u32>,
    /// Per outcome number: its key, and at how many values it is.
    keys: Vec<Vec<i64>>,
    seen: Vec<u64>,
    /// Per outcome number, once tabulated: its moves' rows after them (over
    /// the primed cells), and whether a move faults.
    after: Vec<(F, bool)>,
}

impl Outcomes for MoveOutcomes<'_> {
    fn at(&mut self, cfg: &Config) -> Result<u32, Refusal> {
        self.rel
            .moves_into(cfg, self.p, self.every, &mut self.listed)
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
        self.key.clear();
        self.key.push(i64::from(!self.listed.is_empty()));
        self.key.push(0);
        for m in &self.listed {
            match self.rel.moved_row_of(cfg, m) {
                Ok(new) => self.key.extend(new.iter().map(|c| c.get())),
                Err(_) => self.key[1] = 1,
            }
        }
        let id = match self.ids.get(self.key.as_slice()) {
            Some(&id) => id,
            None => {
                let id = self.keys.len() as u32;
                self.ids.insert(self.key.clone(), id);
                self.keys.push(self.key.clone());
                self.seen.push(0);
                id
            }
        };
        self.seen[id as usize] += 1;
        Ok(id)
    }
}

/// Process `p`'s moves (`every`: every action and binder member it may
/// choose, else its first enabled action).
pub(super) fn process(
    inst: &Instance,
    enc: &Encoding,
    p: usize,
    every: bool,
) -> Result<Process, Refusal> {
    let stride = inst.code.stride;
    let row = p * stride..(p + 1) * stride;
    let mut table = tabulate(enc, &read_cells(inst, enc, p), || MoveOutcomes {
        rel: inst.step_relation(),
        p,
        every,
        listed: Vec::new(),
        key: Vec::new(),
        ids: HashMap::new(),
        keys: Vec::new(),
        seen: Vec::new(),
        after: Vec::new(),
    })?;
    // Each outcome's rows after its moves as cubes of the primed cells,
    // once; a row outside a domain is a fault.
    let mut moves_listed = 0u128;
    for o in table.outcomes_mut() {
        for (key, &seen) in o.keys.iter().zip(&o.seen) {
            let (mut after, mut left) = (enc.falsity(), false);
            for new in key[2..].chunks(stride) {
                match primed_row(enc, enc.base(), row.start, new).map_err(oom)? {
                    Some(cube) => {
                        after = after.or(&cube).map_err(oom)?;
                        moves_listed += u128::from(seen);
                    }
                    None => left = true,
                }
            }
            o.after.push((after, left || key[1] != 0));
        }
    }
    let moves = table.function(|o, id| Ok(o.after[id as usize].0.clone()))?;
    let enabled = table.function(|o, id| {
        Ok(match o.keys[id as usize][0] {
            0 => enc.falsity(),
            _ => enc.truth(),
        })
    })?;
    let faults = table.function(|o, id| {
        Ok(match o.after[id as usize].1 {
            true => enc.truth(),
            false => enc.falsity(),
        })
    })?;
    let mut keeps = enc.truth();
    for at in row {
        if let Some(k) = enc.cell_at(at) {
            keeps = keeps.and(&enc.keeps(k).map_err(oom)?).map_err(oom)?;
        }
    }
    Ok(Process {
        moves,
        enabled,
        faults,
        keeps,
        moves_listed,
        valuations: table.valuations,
    })
}

/// The cube of the primed cells of the row that starts at cell `start`,
/// holding `new`; `None` where a value is not one of its cell's (the
/// step faults: it leaves the domain).
fn primed_row(enc: &Encoding, cfg: &Config, start: usize, new: &[i64]) -> AllocResult<Option<F>> {
    let mut cube = enc.truth();
    for (j, &v) in new.iter().enumerate() {
        let at = start + j;
        match enc.cell_at(at) {
            Some(k) => match enc.cells[k].values.iter().position(|&x| x == v) {
                Some(i) => cube = cube.and(&enc.place(k, i, true)?)?,
                None => return Ok(None),
            },
            None if cfg.rows[at] != v => return Ok(None),
            None => {}
        }
    }
    Ok(Some(cube))
}
