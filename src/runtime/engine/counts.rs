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
