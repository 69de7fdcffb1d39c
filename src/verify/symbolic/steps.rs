//! The moves of a step between two concrete configurations the diagrams
//! relate, found by the step relation itself: which processes moved, and
//! which of each one's moves gives its row after. Checked by taking the
//! step, so a run the symbolic engine reports replays as it says.

use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::{Move, RunError};
use crate::state::Config;

/// The moves of a step of `daemon` from `from` to `to` (`every`: with
/// every choice), if there is one; with `mover`, one where that process
/// moves, if it is enabled (a step a fair cycle takes for it).
pub(super) fn moves_between(
    inst: &Instance,
    daemon: &Daemon,
    every: bool,
    (from, to): (&Config, &Config),
    mover: Option<usize>,
) -> Result<Option<Vec<Move>>, RunError> {
    let mut rel = inst.step_relation();
    let stride = inst.code.stride;
    let row = |cfg: &Config, p: usize| cfg.rows[p * stride..(p + 1) * stride].to_vec();
    let mut listed = Vec::new();
    // Per process: its moves that leave its row as in `to`.
    let mut fitting: Vec<Vec<Move>> = Vec::with_capacity(inst.topo.n());
    let mut enabled = Vec::new();
    for p in 0..inst.topo.n() {
        rel.moves_into(from, p, every, &mut listed)?;
        if !listed.is_empty() {
            enabled.push(p);
        }
        let want = row(to, p);
        let fits = listed
            .iter()
            .filter(|m| {
                rel.moved_row_of(from, m)
                    .is_ok_and(|r| r.iter().map(|c| c.get()).eq(want.iter().copied()))
            })
            .cloned()
            .collect();
        fitting.push(fits);
    }
    let changed: Vec<usize> = (0..inst.topo.n())
        .filter(|&p| row(from, p) != row(to, p))
        .collect();
    let mover = mover.filter(|&p| enabled.contains(&p));
    let movers: Vec<usize> = match daemon {
        Daemon::Synchronous => enabled,
        Daemon::Central if mover.is_some() => mover.into_iter().collect(),
        _ if changed.is_empty() => mover
            .or_else(|| (0..inst.topo.n()).find(|&p| !fitting[p].is_empty()))
            .into_iter()
            .collect(),
        _ => {
            let mut movers = changed;
            if let Some(p) = mover.filter(|p| !movers.contains(p)) {
                movers.push(p);
                movers.sort_unstable();
            }
            movers
        }
    };
    let mut step = Vec::with_capacity(movers.len());
    for p in movers {
        match fitting[p].first() {
            Some(m) => step.push(m.clone()),
            None => return Ok(None),
        }
    }
    let fits = rel
        .successor_of(from, &step)
        .is_ok_and(|next| next.rows == to.rows);
    Ok(fits.then_some(step))
}
