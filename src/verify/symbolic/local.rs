//! Each process's moves as a relation over the bits of what it reads and
//! its own bits after the step, built by running its compiled guards and
//! statements on every value of what it reads (its row and its
//! neighbours'): the step relation's own answer, so the diagrams say what
//! runs do. Also where it is enabled, and where one of its moves faults.

use super::encoding::Encoding;
use super::Refusal;
use crate::load::Instance;
use crate::runtime::step::Move;
use crate::state::Config;
use oxidd::bdd::BDDFunction as F;
use oxidd::util::AllocResult;
use oxidd::BooleanFunction;

/// The most values of what one process reads that are run one by one.
pub(super) const MOST_VALUATIONS: u128 = 1 << 22;

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

/// Every valuation of `cells` in turn, as a configuration (the rest at
/// the base) and the cube of its places; `visit` is told both.
pub(super) fn each_valuation(
    enc: &Encoding,
    cells: &[usize],
    mut visit: impl FnMut(&Config, &F) -> Result<(), Refusal>,
) -> Result<u128, Refusal> {
    let total = cells
        .iter()
        .try_fold(1u128, |acc, &k| acc.checked_mul(enc.cells[k].values.len() as u128))
        .filter(|&t| t <= MOST_VALUATIONS)
        .ok_or_else(|| {
            Refusal::Unsupported(format!(
                "a process reads more than {MOST_VALUATIONS} values of its neighbourhood, more than the symbolic engine tabulates; use --engine explicit"
            ))
        })?;
    let mut cfg = enc.base().clone();
    let mut places = vec![0usize; cells.len()];
    // Cubes of the prefixes: the cube of cells[..j] is prefix[j].
    let mut prefix = vec![enc.truth(); cells.len() + 1];
    let mut from = 0;
    for _ in 0..total {
        for j in from..cells.len() {
            let c = &enc.cells[cells[j]];
            cfg.rows[c.at] = c.values[places[j]];
            prefix[j + 1] = prefix[j]
                .and(&enc.place(cells[j], places[j], false).map_err(oom)?)
                .map_err(oom)?;
        }
        visit(&cfg, &prefix[cells.len()])?;
        // The next valuation: the last cell varies fastest.
        let mut j = cells.len();
        while j > 0 {
            j -= 1;
            places[j] += 1;
            if places[j] < enc.cells[cells[j]].values.len() {
                break;
            }
            places[j] = 0;
        }
        from = j;
    }
    Ok(total)
}

/// The diagrams' node limit was reached.
pub(super) fn oom<E>(_: E) -> Refusal {
    Refusal::OutOfNodes
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
    let mut rel = inst.step_relation();
    let (mut moves, mut enabled, mut faults) = (enc.falsity(), enc.falsity(), enc.falsity());
    let mut listed = Vec::<Move>::new();
    let mut moves_listed = 0u128;
    let cells = read_cells(inst, enc, p);
    let valuations = each_valuation(enc, &cells, |cfg, cube| {
        rel.moves_into(cfg, p, every, &mut listed)
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?;
        if listed.is_empty() {
            return Ok(());
        }
        enabled = enabled.or(cube).map_err(oom)?;
        let mut after = enc.falsity();
        let mut faulted = false;
        for m in &listed {
            match rel.moved_row_of(cfg, m) {
                Ok(new) => {
                    let new: Vec<i64> = new.iter().map(|c| c.get()).collect();
                    match primed_row(enc, cfg, row.start, &new).map_err(oom)? {
                        Some(cube) => {
                            after = after.or(&cube).map_err(oom)?;
                            moves_listed += 1;
                        }
                        None => faulted = true,
                    }
                }
                Err(_) => faulted = true,
            }
        }
        moves = moves.or(&cube.and(&after).map_err(oom)?).map_err(oom)?;
        if faulted {
            faults = faults.or(cube).map_err(oom)?;
        }
        Ok(())
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
        valuations,
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
