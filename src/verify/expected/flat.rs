//! A model laid out for value iteration: every configuration's outcomes,
//! choices and successors in flat arrays, each configuration's together,
//! so that a sweep reads them as streams (a model of vectors in vectors
//! cost a pointer chase per choice: some 4 ns a successor on Herman's ring
//! of 9 lifted to rounds, 252,452 states). Each entry says where its parts
//! start; they end where the next entry's start (a last entry closes each
//! array).
//!
//! Where no choice is left to an adversary (each outcome one choice, as
//! under a daemon that draws its movers), a configuration's outcomes are
//! merged as it ends into one distribution over distinct successors: the
//! value is linear in them, so the sweep computes the same value from
//! fewer terms (Herman's ring of 7 under the distributed daemon: 3^k
//! outcomes and draws of k enabled processes reach at most 128
//! configurations).

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
    /// While a configuration is merged: per successor number, its place
    /// (plus one) among the merged successors; 0 where not met yet. Reset
    /// where touched, so that a merge costs its own successors.
    merged_at: Vec<u32>,
    /// While a configuration is merged: its successors merged so far, and
    /// their probabilities (kept between configurations, not allocated
    /// for each).
    merged: Vec<(u32, f64)>,
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
            merged_at: Vec::new(),
            merged: Vec::new(),
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

    /// The bytes its arrays hold (as allocated).
    pub(super) fn bytes(&self) -> u64 {
        let words = (self.configs.capacity() + self.to.capacity() + self.merged_at.capacity()) * 4;
        let pairs =
            (self.outcomes.capacity() + self.choices.capacity() + self.merged.capacity()) * 16;
        (words + pairs + self.probability.capacity() * 8) as u64
    }

    /// The configurations laid out.
    pub(super) fn len(&self) -> usize {
        self.configs.len() - 1
    }

    /// Ends the configuration whose parts came since the last one ended,
    /// merged where each of its outcomes is one choice.
    pub(super) fn config(&mut self) {
        self.merge_last();
        self.configs.push(self.outcomes.len() as u32 - 1);
    }

    /// Merges the configuration being built, where each of its outcomes
    /// has one choice, into one outcome of one choice: the choices' costs
    /// and successors by their outcomes' probabilities, each successor
    /// once (at its first place, its probabilities summed in order). The
    /// value a sweep computes is the same sum, grouped; one outcome of one
    /// choice whose successors are distinct is left as it is.
    fn merge_last(&mut self) {
        let first = self.configs[self.configs.len() - 1] as usize;
        let end = self.outcomes.len() - 1;
        let one_choice_each =
            (first..end).all(|o| self.outcomes[o + 1].1 - self.outcomes[o].1 == 1);
        if first == end || !one_choice_each {
            return;
        }
        let c0 = self.outcomes[first].1 as usize;
        let t0 = self.choices[c0].1 as usize;
        let mut cost = 0.0;
        let mut merged = std::mem::take(&mut self.merged);
        merged.clear();
        for o in first..end {
            let (weight, c) = self.outcomes[o];
            let (choice_cost, from) = self.choices[c as usize];
            let until = self.choices[c as usize + 1].1;
            cost += weight * choice_cost;
            for k in from as usize..until as usize {
                let t = self.to[k];
                if self.merged_at.len() <= t as usize {
                    self.merged_at.resize(t as usize + 1, 0);
                }
                let p = weight * self.probability[k];
                match self.merged_at[t as usize] {
                    0 => {
                        merged.push((t, p));
                        self.merged_at[t as usize] = merged.len() as u32;
                    }
                    at => merged[at as usize - 1].1 += p,
                }
            }
        }
        for &(t, _) in &merged {
            self.merged_at[t as usize] = 0;
        }
        if end - first == 1 && merged.len() == self.to.len() - t0 {
            self.merged = merged;
            return;
        }
        self.to.truncate(t0);
        self.probability.truncate(t0);
        for &(t, p) in &merged {
            self.to.push(t);
            self.probability.push(p);
        }
        self.merged = merged;
        self.choices.truncate(c0);
        self.choices.push((cost, t0 as u32));
        self.choices.push((0.0, self.to.len() as u32));
        self.outcomes.truncate(first);
        self.outcomes.push((1.0, c0 as u32));
        self.outcomes.push((0.0, c0 as u32 + 1));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two outcomes of one choice each, which reach configuration 1 both:
    /// merged into one outcome of one choice, each successor once, and the
    /// same value.
    #[test]
    fn outcomes_of_one_choice_each_are_merged_into_distinct_successors() {
        let mut flat = Flat::new();
        flat.outcome(0.25);
        flat.choice(1.0);
        flat.successor(1, 0.5);
        flat.successor(2, 0.5);
        flat.outcome(0.75);
        flat.choice(3.0);
        flat.successor(1, 1.0);
        flat.config();
        assert_eq!(flat.outcomes[..2], [(1.0, 0), (0.0, 1)]);
        assert_eq!(flat.choices[..2], [(2.5, 0), (0.0, 2)]);
        assert_eq!(flat.to, [1, 2]);
        assert_eq!(flat.probability, [0.875, 0.125]);
        let values = [0.0, 8.0, 16.0];
        // 0.25 * (1 + 4 + 8) + 0.75 * (3 + 8), as the outcomes give it.
        assert_eq!(flat.bellman(0, &values), 11.5);
    }

    /// An outcome of two choices is an adversary's: the configuration is
    /// left as it is; the next one is merged on its own.
    #[test]
    fn outcomes_with_choices_are_left_as_they_are() {
        let mut flat = Flat::new();
        flat.outcome(1.0);
        flat.choice(1.0);
        flat.successor(1, 1.0);
        flat.choice(1.0);
        flat.successor(1, 1.0);
        flat.config();
        flat.outcome(0.5);
        flat.choice(1.0);
        flat.successor(0, 1.0);
        flat.outcome(0.5);
        flat.choice(1.0);
        flat.successor(0, 1.0);
        flat.config();
        assert_eq!(flat.len(), 2);
        assert_eq!(flat.configs, [0, 1, 2]);
        assert_eq!(flat.choices[..3], [(1.0, 0), (1.0, 1), (1.0, 2)]);
        assert_eq!(flat.to, [1, 1, 0]);
        assert_eq!(flat.probability, [1.0, 1.0, 1.0]);
        assert_eq!(flat.bellman(1, &[4.0, 0.0]), 5.0);
    }
}
