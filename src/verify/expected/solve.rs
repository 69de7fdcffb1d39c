//! Whether legitimacy is reached with probability 1 whatever the choices
//! (a graph question), and the expected time to it when it is (value
//! iteration, each choice taken to make it longest, its values certified
//! from above where it can: optimistic value iteration, Hartmanns and
//! Kaminski, CAV 2020).

use super::flat::Flat;
use super::{Choice, Model};
use crate::verify::{tell, Progress, Refusal};

/// How far below the exact values the certified ones may be: relative to
/// the value, absolutely below 1.
pub const CERTIFIED_WITHIN: f64 = 1e-9;

/// The changes of a sweep (relative to the value, absolutely below 1) at
/// which upper bounds are guessed and checked, in turn (a check costs about
/// a sweep); value iteration stops at the first that checks, or
/// uncertified at the last. A guess checks once the values are close
/// enough that one step's cost outweighs what a sweep still adds: a
/// change of about the certified precision over the expected steps.
const GUESS_AT: [f64; 7] = [1e-10, 3e-11, 1e-11, 3e-12, 1e-12, 3e-13, 1e-13];

/// The change at which value iteration stops when no guess checks (the
/// last of [`GUESS_AT`]).
pub const TOLERANCE: f64 = GUESS_AT[GUESS_AT.len() - 1];

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

/// The expected time to legitimacy from each configuration, how many
/// sweeps it took, and whether the values are certified.
pub struct Solution {
    /// Per configuration (0 where legitimate): at most the exact values,
    /// up to rounding (value iteration approaches them from below).
    pub values: Vec<f64>,
    /// The sweeps of value iteration (the checks of guesses not
    /// counted).
    pub sweeps: usize,
    /// Whether an upper bound was found within [`CERTIFIED_WITHIN`] of
    /// every value: then no value falls short of the exact one by more.
    pub certified: bool,
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
/// taken to make it longest: Gauss-Seidel value iteration from 0, certified
/// from above where it can be (see [`iterate`]). Only where
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
    let margin = Margin {
        steps: None,
        reported: model.legit.len(),
    };
    iterate(&Flat::of(model, each), &order, margin, progress)
}

/// The expected rounds to legitimacy from each configuration of `model`
/// (of `processes` processes), at a round's start, each choice taken to
/// make it longest: [`expected`] over the model lifted to configurations
/// and the processes their round still owes (at most `most` of them).
/// `steps` are the expected steps from each configuration, [`expected`]'s:
/// most steps begin no round, and the guesses of upper bounds lean on them.
pub fn expected_rounds(
    model: &Model,
    processes: usize,
    most: usize,
    steps: &[f64],
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let lifted = super::rounds::lift(model, processes, most)?;
    let steps: Vec<f64> = lifted.configs.iter().map(|&c| steps[c as usize]).collect();
    let margin = Margin {
        steps: Some(&steps),
        reported: model.legit.len(),
    };
    let mut solution = iterate(&lifted.flat, &lifted.order, margin, progress)?;
    solution.values.truncate(model.legit.len());
    Ok(solution)
}

/// Gauss-Seidel value iteration over `flat` from 0, each sweep updating
/// the configurations in `order` (those outside legitimacy). A sweep's
/// change bounds nothing (a chain that mixes slowly changes little a
/// sweep while far from its limit), so once it falls to each of
/// [`GUESS_AT`] in turn, values a little above are guessed to bound the
/// exact ones and checked: where one sweep from them lowers or keeps every
/// value, they are a pre-fixpoint of the monotone operator whose least
/// fixpoint the exact values are, so they bound them from above.
fn iterate(
    flat: &Flat,
    order: &[u32],
    margin: Margin,
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let mut values = vec![0.0f64; flat.len()];
    let mut upper = Vec::new();
    let (mut sweeps, mut certified) = (0, false);
    for at in GUESS_AT {
        settle(flat, order, &mut values, at, &mut sweeps, progress)?;
        guess(&values, order, &margin, &mut upper);
        certified = flat.bounds_from_above(order, &upper);
        if certified {
            break;
        }
    }
    Ok(Solution {
        values,
        sweeps,
        certified,
    })
}

/// What an upper bound guessed above the values may add to them.
struct Margin<'a> {
    /// The expected steps from each state, where a choice may cost nothing
    /// (rounds); else every choice costs at least 1 and the values serve.
    steps: Option<&'a [f64]>,
    /// The states whose values are reported, the first ones: the others'
    /// guesses may lie further above them.
    reported: usize,
}

/// Upper bounds to check, into `upper`: each value `v` raised by half of
/// [`CERTIFIED_WITHIN`] of itself and by a multiple of its expected steps
/// `h` (the margin's steps, or the values themselves), the multiple the
/// largest that keeps the whole within [`CERTIFIED_WITHIN`] of `max(v, 1)`
/// where values are reported. Whatever a choice costs, `h` exceeds its
/// successors' by at least 1 (the step), and `v` by the choice's cost, so
/// a guess checks once the values are closer to the exact ones than that.
fn guess(values: &[f64], order: &[u32], margin: &Margin, upper: &mut Vec<f64>) {
    let h = |s: usize| margin.steps.map_or(values[s], |h| h[s]);
    let most = order
        .iter()
        .map(|&s| s as usize)
        .filter(|&s| s < margin.reported)
        .map(|s| h(s) / values[s].max(1.0))
        .fold(0.0f64, f64::max);
    let half = CERTIFIED_WITHIN / 2.0;
    let per_step = match most > 0.0 {
        true => half / most,
        false => half,
    };
    // Legitimate configurations keep their 0.
    upper.clear();
    upper.extend_from_slice(values);
    for &s in order {
        let s = s as usize;
        upper[s] += half * values[s] + per_step * h(s);
    }
}

/// Sweeps `values` until a sweep changes none by more than `at`, counting
/// the sweeps in `sweeps`.
fn settle(
    flat: &Flat,
    order: &[u32],
    values: &mut [f64],
    at: f64,
    sweeps: &mut usize,
    progress: Option<Progress>,
) -> Result<(), Refusal> {
    while *sweeps < MOST_SWEEPS {
        *sweeps += 1;
        if sweeps.is_multiple_of(16) {
            tell(progress, "expected: value iteration", *sweeps as u64, 0)?;
        }
        if flat.sweep(order, values) <= at {
            return Ok(());
        }
    }
    Err(Refusal::Unsupported(format!(
        "value iteration did not settle within {MOST_SWEEPS} sweeps"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration (0) that leaves for legitimacy (1) with probability
    /// `q` a step and else stays: E = 1/q steps; with `detour`, the choice
    /// instead of a step that costs that much and leads to legitimacy.
    fn waiting(q: f64, detour: Option<f64>) -> Flat {
        let mut flat = Flat::new();
        flat.outcome(1.0);
        flat.choice(1.0);
        flat.successor(0, 1.0 - q);
        flat.successor(1, q);
        if let Some(cost) = detour {
            flat.choice(cost);
            flat.successor(1, 1.0);
        }
        flat.config();
        flat.config();
        flat
    }

    fn solved(flat: &Flat) -> Solution {
        let margin = Margin {
            steps: None,
            reported: flat.len(),
        };
        iterate(flat, &[0], margin, None).unwrap()
    }

    #[test]
    fn a_chain_that_settles_is_certified_within_the_precision() {
        for q in [0.5, 0.01, 1e-3] {
            let s = solved(&waiting(q, None));
            let exact = 1.0 / q;
            assert!(s.certified, "q = {q}");
            assert!(
                s.values[0] <= exact * (1.0 + 1e-12),
                "q = {q}: {}",
                s.values[0]
            );
            assert!(exact - s.values[0] <= CERTIFIED_WITHIN * exact, "q = {q}");
        }
    }

    /// Mixing this slowly, a sweep changes the value by less than 1e-13 of
    /// it while it is still more than 1e-9 short: the stopping rule alone
    /// would have claimed a precision the values do not have.
    #[test]
    fn a_chain_that_mixes_slowly_is_not_certified() {
        let q = 5e-5;
        let s = solved(&waiting(q, None));
        let exact = 1.0 / q;
        assert!(
            exact - s.values[0] > CERTIFIED_WITHIN * exact,
            "{}",
            s.values[0]
        );
        assert!(!s.certified);
    }

    /// The slowest choice is taken, whichever: waiting (1/q) or the detour.
    #[test]
    fn each_choice_is_taken_to_be_slowest() {
        for (q, cost, exact) in [(0.5, 3.0, 3.0), (0.25, 3.0, 4.0)] {
            let s = solved(&waiting(q, Some(cost)));
            assert!(s.certified);
            assert!(s.values[0] <= exact * (1.0 + 1e-12));
            assert!(
                exact - s.values[0] <= CERTIFIED_WITHIN * exact,
                "{}",
                s.values[0]
            );
        }
    }

    #[test]
    fn a_guess_below_the_exact_values_does_not_check() {
        let flat = waiting(0.01, None);
        assert!(!flat.bounds_from_above(&[0], &[100.0 * (1.0 - 1e-9), 0.0]));
        assert!(!flat.bounds_from_above(&[0], &[100.0, 0.0]));
        assert!(flat.bounds_from_above(&[0], &[100.0 * (1.0 + 1e-9), 0.0]));
    }
}
