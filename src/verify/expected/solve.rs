//! Whether legitimacy is reached with probability 1 whatever the choices
//! (a graph question), and the expected time to it when it is (value
//! iteration, each choice taken to make it longest, its values certified
//! where it can be by bounds from below and above: optimistic value
//! iteration, Hartmanns and Kaminski, CAV 2020).

use super::flat::Flat;
use super::{Choice, Model};
use crate::verify::{tell, Progress, Refusal};

/// How far from the exact values the certified ones may be: relative to
/// the value, absolutely below 1.
pub const CERTIFIED_WITHIN: f64 = 1e-9;

/// The changes of a sweep (relative to the value, absolutely below 1) at
/// which bounds are guessed and checked, in turn (a check costs about two
/// sweeps); value iteration stops at the first that checks, or
/// uncertified at the last. A guess checks once the values are close
/// enough that one step's cost outweighs what a sweep still adds: a
/// change of about the certified precision over the expected steps.
const GUESS_AT: [f64; 7] = [1e-10, 3e-11, 1e-11, 3e-12, 1e-12, 3e-13, 1e-13];

/// The change at which value iteration stops when no guess checks (the
/// last of `GUESS_AT`).
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
#[derive(Clone)]
pub struct Solution {
    /// Per configuration (0 where legitimate).
    pub values: Vec<f64>,
    /// The sweeps of value iteration (the checks of guesses not
    /// counted).
    pub sweeps: usize,
    /// Whether bounds within [`CERTIFIED_WITHIN`] of the values, below
    /// and above, were found to hold: then no value is further from the
    /// exact one.
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
/// taken to make it longest: value iteration from 0, certified where it
/// can be (by `iterate`). Only where
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
/// and the processes their round still owes (at most `most` of them, in
/// the memory budget less what the model takes).
/// `steps` are the expected steps from each configuration, [`expected`]'s:
/// most steps begin no round, and the guessed bounds lean on them.
pub fn expected_rounds(
    model: &Model,
    processes: usize,
    most: usize,
    steps: &[f64],
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let budget = crate::memory::limit().saturating_sub(model.bytes);
    let lifted = super::rounds::lift(model, processes, (most, budget))?;
    let steps: Vec<f64> = lifted.configs.iter().map(|&c| steps[c as usize]).collect();
    let margin = Margin {
        steps: Some(&steps),
        reported: model.legit.len(),
    };
    let mut solution = iterate(&lifted.flat, &lifted.order, margin, progress)?;
    solution.values.truncate(model.legit.len());
    Ok(solution)
}

/// Value iteration over `flat` from 0, each sweep updating the
/// configurations in `order` (those outside legitimacy), over-relaxed (see
/// [`Sweeps`]). A sweep's change bounds nothing (a chain that mixes slowly
/// changes little a sweep while far from its limit), so once it falls to
/// each of [`GUESS_AT`] in turn, values a little below and a little above
/// are guessed to bound the exact ones and checked. Where every choice
/// leads to legitimacy with probability 1 (what [`no_sure_arrival`]
/// checks), the exact values are the one fixpoint of the monotone operator
/// a sweep applies: values that one application raises nowhere (a
/// pre-fixpoint) lie above it, values it lowers nowhere (a post-fixpoint)
/// below.
fn iterate(
    flat: &Flat,
    order: &[u32],
    margin: Margin,
    progress: Option<Progress>,
) -> Result<Solution, Refusal> {
    let mut sweeps = Sweeps::new(flat, order, progress);
    let mut values = vec![0.0f64; flat.len()];
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for at in GUESS_AT {
        sweeps.settle(&mut values, at)?;
        guess(&values, order, &margin, (&mut lower, &mut upper));
        if flat.bounds_from_above(order, &upper) && flat.bounds_from_below(order, &lower) {
            return Ok(Solution {
                values,
                sweeps: sweeps.done,
                certified: true,
            });
        }
    }
    Ok(Solution {
        values,
        sweeps: sweeps.done,
        certified: false,
    })
}

/// What bounds guessed around the values may take from them or add.
struct Margin<'a> {
    /// The expected steps from each state, where a choice may cost nothing
    /// (rounds); else every choice costs at least 1 and the values serve.
    steps: Option<&'a [f64]>,
    /// The states whose values are reported, the first ones: the others'
    /// bounds may lie further from them.
    reported: usize,
}

/// Bounds to check, into `lower` and `upper`: each value `v` less and
/// more a margin, the margin a part of [`CERTIFIED_WITHIN`] of `v` and a
/// multiple of its expected steps `h` (the margin's steps, or the values
/// themselves), the multiple the largest that keeps the margin within
/// [`CERTIFIED_WITHIN`] of `max(v, 1)` where values are reported.
/// Whatever a choice costs, `h` exceeds its successors' by at least 1 (the
/// step), and `v` by the choice's cost, so the bounds check once the
/// values are closer to the exact ones than that. Lower bounds are at
/// least 0, as the exact values are. Only the checks make the bounds
/// bounds: a guess that is wrong fails them.
fn guess(values: &[f64], order: &[u32], margin: &Margin, bounds: (&mut Vec<f64>, &mut Vec<f64>)) {
    let h = |s: usize| margin.steps.map_or(values[s], |h| h[s]);
    let most = order
        .iter()
        .map(|&s| s as usize)
        .filter(|&s| s < margin.reported)
        .map(|s| h(s) / values[s].max(1.0))
        .fold(0.0f64, f64::max);
    // A little under half each, so that the margin stays within the
    // precision relative to the exact value, not only to `v`.
    let part = 0.49 * CERTIFIED_WITHIN;
    let per_step = match most > 0.0 {
        true => part / most,
        false => part,
    };
    let (lower, upper) = bounds;
    // Legitimate configurations keep their 0.
    for bound in [&mut *lower, &mut *upper] {
        bound.clear();
        bound.extend_from_slice(values);
    }
    for &s in order {
        let s = s as usize;
        let by = part * values[s] + per_step * h(s);
        lower[s] = (values[s] - by).max(0.0);
        upper[s] = values[s] + by;
    }
}

/// Gauss-Seidel sweeps, over-relaxed where that converges faster: each
/// value moved further than a sweep would move it, by Young's rule for
/// the rate the first sweeps converge at, and kept so only if the sweeps
/// that follow converge faster than the first did (Herman's ring of 9
/// under the central daemon, rounds: 578 sweeps instead of 1,536; on
/// Herman's ring of 7 under the distributed daemon over-relaxing the rounds
/// would double their sweeps, and is dropped). Over-relaxed sweeps are not
/// sure to converge: where the changes grow instead, the sweeps start
/// again from 0 unrelaxed, which converges wherever legitimacy is reached
/// with probability 1.
struct Sweeps<'a> {
    flat: &'a Flat,
    order: &'a [u32],
    progress: Option<Progress<'a>>,
    /// How far each value moves, as a multiple of a sweep's move.
    relaxation: f64,
    /// The change of each [`RATE_OVER`]-th sweep, while the relaxation is
    /// being tried.
    changes: Vec<f64>,
    /// The smallest change a sweep has made since the sweeps (re)started.
    least: f64,
    /// The sweeps made.
    done: usize,
    /// Whether nothing is drawn (see [`Flat::certain`]).
    certain: bool,
}

/// The sweeps over which a rate of convergence is measured: the rate
/// unrelaxed over sweeps 8 to 16, relaxed over sweeps 24 to 32.
const RATE_OVER: usize = 8;

/// The most a value is moved, as a multiple of a sweep's move (on Herman's
/// ring of 9 under the central daemon, 1.7 diverged on the rounds).
const MOST_RELAXED: f64 = 1.4;

/// Changes this many times the least since the sweeps started are taken
/// for divergence.
const DIVERGING: f64 = 1e3;

impl<'a> Sweeps<'a> {
    fn new(flat: &'a Flat, order: &'a [u32], progress: Option<Progress<'a>>) -> Self {
        Sweeps {
            flat,
            order,
            progress,
            relaxation: 1.0,
            changes: Vec::new(),
            least: f64::INFINITY,
            done: 0,
            certain: flat.certain(),
        }
    }

    /// Sweeps `values` until a sweep changes none by more than `at`.
    fn settle(&mut self, values: &mut [f64], at: f64) -> Result<(), Refusal> {
        while self.done < MOST_SWEEPS {
            self.done += 1;
            if self.done.is_multiple_of(16) {
                tell(
                    self.progress,
                    "expected: value iteration",
                    self.done as u64,
                    0,
                )?;
            }
            let change = self.flat.sweep(self.order, values, self.relaxation);
            let diverging = !change.is_finite() || change > DIVERGING * self.least;
            if self.relaxation > 1.0 && diverging {
                self.relaxation = 1.0;
                self.least = f64::INFINITY;
                values.fill(0.0);
                continue;
            }
            self.least = self.least.min(change);
            self.relax(change);
            if change <= at {
                return Ok(());
            }
        }
        Err(Refusal::Unsupported(format!(
            "value iteration did not settle within {MOST_SWEEPS} sweeps"
        )))
    }

    /// Every [`RATE_OVER`] sweeps up to 32, notes the change; after sweep
    /// 16 relaxes the sweeps by Young's 2 / (1 + sqrt(1 - rate)) for the
    /// rate the changes fell at since sweep 8 (at most [`MOST_RELAXED`]);
    /// after sweep 32 keeps that only if the changes fell faster since
    /// sweep 24. Where nothing is drawn, never: sweeps settle exactly
    /// there, and relaxed only geometrically (Dijkstra's ring of 5 under an
    /// adversary, central: 53 sweeps relaxed, 21 not).
    fn relax(&mut self, change: f64) {
        if self.certain || self.done > 4 * RATE_OVER || !self.done.is_multiple_of(RATE_OVER) {
            return;
        }
        self.changes.push(change);
        let rate = |from: f64, to: f64| match from > 0.0 {
            true => (to / from).powf(1.0 / RATE_OVER as f64).min(1.0),
            false => 0.0,
        };
        match self.changes[..] {
            [earlier, later] => {
                let young = 2.0 / (1.0 + (1.0 - rate(earlier, later)).sqrt());
                self.relaxation = young.clamp(1.0, MOST_RELAXED);
            }
            [earlier, later, relaxed, then] if rate(relaxed, then) >= rate(earlier, later) => {
                self.relaxation = 1.0;
            }
            _ => {}
        }
    }
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

    /// A path of `n` certain steps to legitimacy is swept unrelaxed: the
    /// sweeps settle on its length exactly.
    #[test]
    fn where_nothing_is_drawn_sweeps_are_not_relaxed() {
        let n = 40;
        let mut flat = Flat::new();
        for s in 0..n {
            flat.outcome(1.0);
            flat.choice(1.0);
            flat.successor(s + 1, 1.0);
            flat.config();
        }
        flat.config();
        assert!(flat.certain());
        assert!(!waiting(0.5, None).certain());
        // Swept along the path, a sweep carries each value one step back:
        // 40 sweeps, where relaxing after 16 would overshoot.
        let order: Vec<u32> = (0..n).collect();
        let margin = Margin {
            steps: None,
            reported: flat.len(),
        };
        let s = iterate(&flat, &order, margin, None).unwrap();
        assert_eq!(s.values[0], f64::from(n));
        assert!(s.certified);
        assert!(s.sweeps <= n as usize + 1, "{} sweeps", s.sweeps);
    }

    #[test]
    fn a_guess_on_the_wrong_side_of_the_exact_values_does_not_check() {
        let flat = waiting(0.01, None);
        assert!(!flat.bounds_from_above(&[0], &[100.0 * (1.0 - 1e-9), 0.0]));
        assert!(!flat.bounds_from_above(&[0], &[100.0, 0.0]));
        assert!(flat.bounds_from_above(&[0], &[100.0 * (1.0 + 1e-9), 0.0]));
        assert!(!flat.bounds_from_below(&[0], &[100.0 * (1.0 + 1e-9), 0.0]));
        assert!(!flat.bounds_from_below(&[0], &[100.0, 0.0]));
        assert!(flat.bounds_from_below(&[0], &[100.0 * (1.0 - 1e-9), 0.0]));
    }
}
