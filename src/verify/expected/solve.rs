//! Whether legitimacy is reached with probability 1 whatever the choices
//! (a graph question), and the expected time to it when it is (value
//! iteration, each choice taken to make it longest).

use super::flat::Flat;
use super::{Choice, Model};
use crate::verify::{tell, Progress, Refusal};

/// Value iteration stops once a sweep changes no value by more than this,
/// relative to the value (or absolutely below 1).
pub const TOLERANCE: f64 = 1e-12;

/// The most sweeps value iteration makes before it gives up.
const MOST_SWEEPS: usize = 1_000_000;

/// What a run's time counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// One per step.
    Steps,
    /// One per move (a step of k movers makes k).
    Moves,
}

/// The expected time to legitimacy from each configuration, and how many
/// sweeps it took.
pub struct Solution {
    /// Per configuration (0 where legitimate).
    pub values: Vec<f64>,
    /// The sweeps of value iteration.
    pub sweeps: usize,
}

/// A start from which, with the worst choices, legitimacy is reached with
/// probability less than 1, if there is one; with a configuration where
/// the choices can keep every run from then on outside legitimacy.
pub fn no_sure_arrival(model: &Model) -> Option<(u32, u32)> {
    let n = model.configs.len();
    // Where the choices can keep every run outside legitimacy for ever:
    // whatever the movers drawn, some choice leads only back among them.
    let mut kept: Vec<bool> = model.legit.iter().map(|&l| !l).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..n {
            if !kept[s] {
                continue;
            }
            let stays = model.outcomes[s].iter().all(|o| {
                o.weight <= 0.0
                    || o.choices
                        .iter()
                        .any(|c| c.to.iter().all(|&(t, p)| p <= 0.0 || kept[t as usize]))
            });
            if !stays {
                kept[s] = false;
                changed = true;
            }
        }
    }
    let trap = (0..n).find(|&s| kept[s])? as u32;
    // Every configuration from which some way (with positive probability)
    // leads there: backwards over the steps.
    let mut before: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (s, outcomes) in model.outcomes.iter().enumerate() {
        for o in outcomes.iter().filter(|o| o.weight > 0.0) {
            for c in &o.choices {
                for &(t, p) in &c.to {
                    if p > 0.0 {
                        before[t as usize].push(s as u32);
                    }
                }
            }
        }
    }
    let mut bad = kept;
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| bad[s as usize]).collect();
    while let Some(t) = stack.pop() {
        for &s in &before[t as usize] {
            if !bad[s as usize] {
                bad[s as usize] = true;
                stack.push(s);
            }
        }
    }
    let start = (0..model.starts).find(|&s| bad[s])? as u32;
    Some((start, trap))
}

/// The expected `cost` to legitimacy from each configuration, each choice
/// taken to make it longest: Gauss-Seidel value iteration from 0 until a
/// sweep changes no value by more than [`TOLERANCE`]. Only where
/// [`no_sure_arrival`] finds nothing (else some values are infinite).
pub fn expected(
    model: &Model,
    cost: Cost,
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let each = |c: &Choice| match cost {
        Cost::Steps => 1.0,
        Cost::Moves => f64::from(c.moves),
    };
    let order: Vec<u32> = (0..model.legit.len() as u32)
        .filter(|&s| !model.legit[s as usize])
        .collect();
    iterate(&Flat::of(model, each), &order, progress)
}

/// The expected rounds to legitimacy from each configuration of `model`
/// (of `processes` processes), at a round's start, each choice taken to
/// make it longest: [`expected`] over the model lifted to configurations
/// and the processes their round still owes (at most `most` of them).
pub fn expected_rounds(
    model: &Model,
    processes: usize,
    most: usize,
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let (lifted, order) = super::rounds::lift(model, processes, most)?;
    let mut solution = iterate(&lifted, &order, progress)?;
    solution.values.truncate(model.legit.len());
    Ok(solution)
}

/// Gauss-Seidel value iteration over `flat` from 0, each sweep updating
/// the configurations in `order` (those outside legitimacy).
fn iterate(flat: &Flat, order: &[u32], progress: Option<Progress>) -> Result<Solution, Refusal> {
    let mut values = vec![0.0f64; flat.len()];
    for sweep in 1..=MOST_SWEEPS {
        if sweep % 16 == 0 {
            tell(progress, "expected: value iteration", sweep as u64, 0)?;
        }
        let change = flat.sweep(order, &mut values);
        if change <= TOLERANCE {
            return Ok(Solution {
                values,
                sweeps: sweep,
            });
        }
    }
    Err(Refusal::Unsupported(format!(
        "value iteration did not settle within {MOST_SWEEPS} sweeps"
    )))
}
