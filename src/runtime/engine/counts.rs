//! Moves per role and action, counted by each kind of step where it
//! knows them: a central step by the action it ran, a step that lists its
//! movers from that list, a column step from the column of actions chosen
//! before it.

use super::Simulation;
use crate::compile::Compiled;

impl Simulation {
    /// How many moves each action of each role made since the run began:
    /// per role, its actions' counts in the order of its compiled actions.
    pub fn moves_per_action(&self) -> impl Iterator<Item = &[u64]> + '_ {
        let ends = self.first_action.iter().skip(1).map(|&f| f as usize);
        let ends = ends.chain([self.progress.moved.len()]);
        self.first_action
            .iter()
            .zip(ends)
            .map(|(&from, to)| &self.progress.moved[from as usize..to])
    }

    /// Counts the last step's moves per action (a step that lists its
    /// movers and actions).
    pub(super) fn count_moves(&mut self) {
        let progress = &mut self.progress;
        let last = &progress.last;
        for (&p, &a) in last.movers.iter().zip(&last.actions) {
            let role = progress.procs[p as usize].role as usize;
            progress.moved[self.first_action[role] as usize + a as usize] += 1;
        }
    }

    /// Counts the moves of a column step: every process whose chosen
    /// action before it, in `chosen`, is one. Over each run of one role,
    /// one pass per action, chunk by chunk in 16-bit lanes (the
    /// vectorized kernel the column step counts enabled processes with;
    /// a count in 64-bit lanes cost four times as much).
    pub(super) fn count_column_moves(&mut self, chosen: &[u16]) {
        use crate::compile::columns::{count_equal, CHUNK};
        for &(first, end, role) in &self.runs_of_a_role {
            let from = self.first_action[role] as usize;
            let to = self
                .first_action
                .get(role + 1)
                .map_or(self.progress.moved.len(), |&f| f as usize);
            for (a, moved) in self.progress.moved[from..to].iter_mut().enumerate() {
                let a = a as u16;
                *moved += chosen[first..end]
                    .chunks(CHUNK)
                    .map(|c| count_equal(c, a) as u64)
                    .sum::<u64>();
            }
        }
    }
}

/// Where each role's actions begin in a table of every role's actions.
pub(super) fn first_actions(code: &Compiled) -> Vec<u32> {
    let mut at = 0;
    code.roles
        .iter()
        .map(|r| {
            let here = at;
            at += r.actions.len() as u32;
            here
        })
        .collect()
}

/// The runs of consecutive processes with one role: (first, end, role).
pub(super) fn role_runs(role_of: &[u32]) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (p, &r) in role_of.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.2 == r as usize => run.1 = p + 1,
            _ => runs.push((p, p + 1, r as usize)),
        }
    }
    runs
}
