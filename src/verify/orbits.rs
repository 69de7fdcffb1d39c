//! Exploring one configuration of each orbit under the instance's
//! symmetries ([`super::symmetry`]): from every configuration, the ones
//! that stand for their orbits are numbered and evaluated; from a start,
//! each configuration reached is kept as the one standing for its orbit.
//! Every step leads to the configuration standing for where it goes, so
//! the searches run unchanged over the orbits, and their verdicts and
//! worst cases are those of every configuration (each is the same at every
//! member of an orbit). The runs they report go from orbit to orbit; they
//! are taken back to runs between configurations, each move taken back by
//! the symmetry that led to its configuration's orbit, and a cycle
//! between orbits followed round until it closes.

use super::evaluate::evaluate;
use super::states::States;
use super::symmetry::Symmetry;
use super::{every_configuration, Choices, Explorer, Progress, Refusal, Run};
use crate::load::Instance;
use crate::runtime::space::Space;
use crate::runtime::step::Move;
use crate::state::Config;
use rayon::prelude::*;

/// How many configurations a thread looks at a time for those standing
/// for their orbits.
const BLOCK: u64 = 1 << 14;

impl<'a> Explorer<'a> {
    /// [`Explorer::with_progress`], by orbits under the instance's
    /// symmetries, exploring the moves `choices` says.
    pub fn by_orbits(
        inst: &'a Instance,
        progress: Option<Progress<'a>>,
        choices: Choices,
    ) -> Result<Self, Refusal> {
        let (space, count) = every_configuration(inst)?;
        let mut ex = Explorer::empty(inst, progress, States::All(space.clone()), None);
        ex.choices = choices;
        let symmetry = Symmetry::find(inst, ex.every_move());
        let reps = standing_for_orbits(&space, &symmetry, count as u64, progress)?;
        let rel = inst.step_relation();
        let mut chosen = Vec::new();
        for (i, &code) in reps.iter().enumerate() {
            if (i as u64).is_multiple_of(super::PROGRESS_EVERY) {
                ex.tell("evaluating the orbits", i as u64, reps.len() as u64)?;
            }
            let cfg = space.config(u128::from(code));
            let e = evaluate(&rel, &cfg, &mut chosen)?;
            ex.record(i as u32, e);
        }
        ex.count = reps.len() as u32;
        ex.states = States::Orbits { space, reps };
        ex.symmetry = Some(symmetry);
        Ok(ex)
    }

    /// How many symmetries the exploration goes by (1: none but the
    /// identity, or it explores every configuration).
    pub fn symmetries(&self) -> usize {
        self.symmetry.as_ref().map_or(1, Symmetry::order)
    }

    /// The number of `cfg` (of the one standing for its orbit, under
    /// symmetries), and the symmetry that takes it there.
    pub(super) fn number_of(&self, cfg: &Config) -> Option<(u32, usize)> {
        match &self.symmetry {
            None => Some((self.states.index(cfg)?, 0)),
            Some(sym) => {
                let (canonical, k) = sym.canonical(cfg);
                Some((self.states.index(&canonical)?, k))
            }
        }
    }

    /// Whether `cfg` is configuration `i` (the one standing for its orbit,
    /// under symmetries): [`Explorer::number_of`] gives `i`.
    pub(super) fn leads_to(&self, cfg: &Config, i: u32) -> bool {
        match &self.symmetry {
            None => self.states.is(i, cfg),
            Some(_) => self.number_of(cfg).map(|(j, _)| j) == Some(i),
        }
    }

    /// `run`, a run between orbits, as a run between configurations from
    /// its start: each step's moves taken back by the symmetry that led to
    /// its configuration's orbit (none before the first); with
    /// `cycle_from`, its steps from there on (a cycle between orbits) are
    /// followed round again until they close a cycle of configurations.
    pub(super) fn concrete(&self, run: Run, cycle_from: Option<usize>) -> Run {
        let Some(sym) = &self.symmetry else {
            return run;
        };
        let mut rel = self.relation();
        let mut at = run.start.clone();
        let mut k = 0;
        let mut steps = Vec::with_capacity(run.steps.len());
        let back_of = |moves: &[Move], k: usize| {
            let mut back: Vec<Move> = moves.iter().map(|m| sym.move_back(k, m)).collect();
            back.sort_unstable_by_key(|m| m.process);
            back
        };
        let mut take = |moves: &Vec<Move>, at: &mut Config, k: &mut usize| {
            let back = back_of(moves, *k);
            let next = rel.successor_of(at, &back);
            steps.push(back);
            match next {
                Ok(next) => {
                    *k = sym.canonical(&next).1;
                    *at = next;
                    true
                }
                // A faulting step ends the run.
                Err(_) => false,
            }
        };
        for moves in &run.steps {
            if !take(moves, &mut at, &mut k) {
                break;
            }
        }
        if let Some(from) = cycle_from {
            // Where the cycle began among configurations, and round again
            // until it is back there (at most once per symmetry).
            let begin = {
                let mut rel = self.relation();
                let mut c = run.start.clone();
                let mut j = 0;
                for moves in &run.steps[..from] {
                    let back = back_of(moves, j);
                    match rel.successor_of(&c, &back) {
                        Ok(next) => {
                            j = sym.canonical(&next).1;
                            c = next;
                        }
                        Err(_) => break,
                    }
                }
                c
            };
            let cycle = &run.steps[from..];
            let mut rounds = 1;
            while at != begin && rounds < sym.order() && !cycle.is_empty() {
                for moves in cycle {
                    if !take(moves, &mut at, &mut k) {
                        break;
                    }
                }
                rounds += 1;
            }
        }
        Run {
            start: run.start,
            steps,
            delays: run.delays,
        }
    }
}

/// The indices of the configurations of `space` (`count` of them) that
/// stand for their orbits under `symmetry`, in increasing order, found on
/// every thread.
fn standing_for_orbits(
    space: &Space,
    symmetry: &Symmetry,
    count: u64,
    progress: Option<Progress>,
) -> Result<Vec<u64>, Refusal> {
    if symmetry.is_trivial() {
        return Ok((0..count).collect());
    }
    let mut reps = Vec::new();
    let batch = BLOCK * rayon::current_num_threads() as u64 * 4;
    let mut first = 0;
    while first < count {
        super::tell(progress, "finding the orbits", first, count)?;
        let end = count.min(first + batch);
        let blocks: Vec<Vec<u64>> = (first..end)
            .step_by(BLOCK as usize)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| {
                let mut cfg = space.config(u128::from(start));
                let mut canonical = cfg.clone();
                let mut out = Vec::new();
                for i in start..end.min(start + BLOCK) {
                    space.decode_into(i, &mut cfg);
                    symmetry.canonical_into(&cfg, &mut canonical);
                    if canonical.rows == cfg.rows {
                        out.push(i);
                    }
                }
                out
            })
            .collect();
        reps.extend(blocks.into_iter().flatten());
        first = end;
    }
    Ok(reps)
}
