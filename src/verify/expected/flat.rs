//! A model laid out for value iteration: every configuration's outcomes,
//! choices and successors in flat arrays, each configuration's together,
//! so that a sweep reads them as streams (a model of vectors in vectors
//! cost a pointer chase per choice: some 4 ns a successor on Herman's ring
//! of 9 lifted to rounds, 252,452 states). Each entry says where its parts
//! start; they end where the next entry's start (a last entry closes each
//! array).

use super::{Choice, Model};

/// Configurations, each with its outcomes; each outcome with its
/// choices; each choice with its successors and their probabilities.
pub(super) struct Flat {
    /// Per configuration: where its outcomes start.
    configs: Vec<u32>,
    /// Per outcome: its probability, and where its choices start.
    outcomes: Vec<(f64, u32)>,
    /// Per choice: its cost, and where its successors start.
    choices: Vec<(f64, u32)>,
    /// Per successor: its number, and apart (12 bytes a successor, not 16
    /// with padding), its probability.
    to: Vec<u32>,
    probability: Vec<f64>,
}

impl Flat {
    /// Nothing yet: configurations come with [`Flat::config`], their parts
    /// after each.
    pub(super) fn new() -> Self {
        Flat {
            configs: vec![0],
            outcomes: vec![(0.0, 0)],
            choices: vec![(0.0, 0)],
            to: Vec::new(),
            probability: Vec::new(),
        }
    }

    /// `model` laid out, each choice costing `each`.
    pub(super) fn of(model: &Model, each: impl Fn(&Choice) -> f64) -> Self {
        let mut flat = Flat::new();
        for outcomes in &model.outcomes {
            for o in outcomes {
                flat.outcome(o.weight);
                for c in &o.choices {
                    flat.choice(each(c));
                    c.to.iter().for_each(|&(t, p)| flat.successor(t, p));
                }
            }
            flat.config();
        }
        flat
    }

    /// Whether nothing is drawn: every outcome and successor certain (the
    /// daemon an adversary, no `random`). Then values are longest paths,
    /// which sweeps settle on exactly, in about as many as the paths are
    /// long.
    pub(super) fn certain(&self) -> bool {
        let outcomes = &self.outcomes[..self.outcomes.len() - 1];
        outcomes.iter().all(|&(w, _)| w == 1.0) && self.probability.iter().all(|&p| p == 1.0)
    }

    /// The configurations laid out.
    pub(super) fn len(&self) -> usize {
        self.configs.len() - 1
    }

    /// Ends the configuration whose parts came since the last one ended.
    pub(super) fn config(&mut self) {
        self.configs.push(self.outcomes.len() as u32 - 1);
    }

    /// Starts an outcome of probability `weight`.
    pub(super) fn outcome(&mut self, weight: f64) {
        let choices = self.choices.len() as u32 - 1;
        let last = self.outcomes.len() - 1;
        self.outcomes[last] = (weight, choices);
        self.outcomes.push((0.0, choices));
    }

    /// Starts a choice of the outcome last started, costing `cost`.
    pub(super) fn choice(&mut self, cost: f64) {
        let to = self.to.len() as u32;
        let last = self.choices.len() - 1;
        self.choices[last] = (cost, to);
        self.choices.push((0.0, to));
        // The outcome started last ends after this choice.
        let outcomes = self.outcomes.len() - 1;
        self.outcomes[outcomes].1 = self.choices.len() as u32 - 1;
    }

    /// A successor `t`, of probability `p`, of the choice last started.
    pub(super) fn successor(&mut self, t: u32, p: f64) {
        self.to.push(t);
        self.probability.push(p);
        let choices = self.choices.len() - 1;
        self.choices[choices].1 = self.to.len() as u32;
    }

    /// One Gauss-Seidel sweep over `values`, the configurations taken in
    /// `order`, each choice taken to make the value largest, and each value
    /// moved `relaxation` times as far as that (1: to it): the largest
    /// change relative to the value (or absolutely below 1).
    pub(super) fn sweep(&self, order: &[u32], values: &mut [f64], relaxation: f64) -> f64 {
        let mut change = 0.0f64;
        for &s in order {
            let s = s as usize;
            let moved = relaxation * (self.bellman(s, values) - values[s]);
            let new = values[s] + moved;
            change = change.max(moved.abs() / new.abs().max(1.0));
            values[s] = new;
        }
        change
    }

    /// Whether one sweep from `upper` (each value from the others as they
    /// were) would raise none of the configurations in `order`: then
    /// `upper` bounds the fixpoint from above. Each new value is raised by
    /// what its rounding can have taken from it (see [`Flat::rounded`]).
    pub(super) fn bounds_from_above(&self, order: &[u32], upper: &[f64]) -> bool {
        order.iter().all(|&s| {
            let s = s as usize;
            self.bellman(s, upper) * (1.0 + self.rounded(s)) <= upper[s]
        })
    }

    /// Whether one sweep from `lower` (none of its values negative) would
    /// lower none of the configurations in `order`, each new value lowered
    /// by what its rounding can have added to it: then, where the fixpoint
    /// is the only one, `lower` bounds it from below.
    pub(super) fn bounds_from_below(&self, order: &[u32], lower: &[f64]) -> bool {
        order.iter().all(|&s| {
            let s = s as usize;
            self.bellman(s, lower) * (1.0 - self.rounded(s)) >= lower[s]
        })
    }

    /// How far, relative to it, the rounding of configuration `s`'s new
    /// value can have moved it, where no term is negative: a chain of k
    /// roundings moves it less than k machine epsilons, and k is less than
    /// its successors, choices and outcomes together, and four.
    fn rounded(&self, s: usize) -> f64 {
        let (first, last) = (self.configs[s] as usize, self.configs[s + 1] as usize);
        let (c0, c1) = (
            self.outcomes[first].1 as usize,
            self.outcomes[last].1 as usize,
        );
        let (t0, t1) = (self.choices[c0].1, self.choices[c1].1);
        let roundings = (last - first + c1 - c0) as f64 + f64::from(t1 - t0) + 4.0;
        roundings * f64::EPSILON
    }

    /// The value of configuration `s` from the values of its successors:
    /// over its outcomes, by their probabilities, the largest over the
    /// outcome's choices of the choice's cost and its successors' values
    /// by their probabilities.
    #[inline]
    fn bellman(&self, s: usize, values: &[f64]) -> f64 {
        let mut new = 0.0;
        let (first, last) = (self.configs[s] as usize, self.configs[s + 1] as usize);
        for o in first..last {
            let ((weight, c0), (_, c1)) = (self.outcomes[o], self.outcomes[o + 1]);
            let mut best = 0.0f64;
            for c in c0 as usize..c1 as usize {
                let ((cost, t0), (_, t1)) = (self.choices[c], self.choices[c + 1]);
                let (t0, t1) = (t0 as usize, t1 as usize);
                let mut after = 0.0;
                for (&t, &p) in self.to[t0..t1].iter().zip(&self.probability[t0..t1]) {
                    after += p * values[t as usize];
                }
                best = best.max(cost + after);
            }
            new += weight * best;
        }
        new
    }
}
