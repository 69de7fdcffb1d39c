//! Every move of a process in a configuration ([`StepRelation::moves_into`]):
//! each of its enabled actions (see [`crate::runtime::choose`]), for each
//! member of the action's binder whose guard holds, with each sequence of
//! values its draws can take. The verifier explores them all; a step of
//! the step relation takes one per mover ([`StepRelation::successor_of`]).

use crate::compile::Fault;
use crate::compile::{Draws, NoneEnabled};
use crate::runtime::choose::{enabled_actions, Move};
use crate::runtime::step::{
    guard_fault, run_action, statement_fault, Pick, RunError, StepRelation,
};
use crate::state::Config;
use std::cell::Cell;

/// The most sequences of values one move's draws may take: past it the
/// verifier refuses to list them one by one.
pub const MOST_DRAW_OUTCOMES: usize = 1 << 16;

impl StepRelation<'_> {
    /// Every move of process `p` in `cfg`, into `out` (empty where it is
    /// not enabled): with `every`, each enabled action (see
    /// `runtime/choose.rs`) for each member of its binder whose
    /// guard holds; else its first enabled action only, for the first
    /// member, as runs take it. Either way, an action that draws once per
    /// sequence of values its draws can take, in lexicographic order.
    pub fn moves_into(
        &mut self,
        cfg: &Config,
        p: usize,
        every: bool,
        out: &mut Vec<Move>,
    ) -> Result<(), RunError> {
        out.clear();
        let role = &self.code.roles[self.code.role_of.of(p)];
        let actions = if every {
            let env = self.env(cfg, p, &NoneEnabled);
            let mut actions = Vec::new();
            enabled_actions(role, &env, &mut actions)
                .map_err(|(i, fault)| guard_fault(role, p, i, 0, fault))?;
            actions
        } else {
            self.first_enabled(cfg, p)?.into_iter().collect()
        };
        for a in actions {
            let action = &role.actions[a as usize];
            let members = match (&action.binder, every) {
                (Some(b), true) => {
                    let env = self.env(cfg, p, &NoneEnabled);
                    (b.members)(&env)
                        .map_err(|fault| guard_fault(role, p, a as usize, 0, fault))?
                        .into_iter()
                        .map(Some)
                        .collect()
                }
                _ => vec![None],
            };
            for member in members {
                let mut first = Move {
                    process: p as u32,
                    action: a,
                    member,
                    draws: None,
                };
                if !action.draws {
                    out.push(first);
                    continue;
                }
                for draws in self.draw_sequences(cfg, &first)? {
                    first.draws = Some(draws);
                    out.push(first.clone());
                }
            }
        }
        Ok(())
    }

    /// Every sequence of values the draws of move `m` can take, in
    /// lexicographic order: each found by running the move with a prefix
    /// given and the rest at their ranges' lowest values, which also says
    /// the ranges of the draws after the prefix. A move that faults part
    /// way has the values drawn up to the fault (the step relation reports
    /// the fault when the step is taken).
    fn draw_sequences(&mut self, cfg: &Config, m: &Move) -> Result<Vec<Vec<i64>>, RunError> {
        let p = m.process as usize;
        let action = &self.code.roles[self.code.role_of.of(p)].actions[m.action as usize];
        let mut out = Vec::new();
        let mut prefixes = vec![Vec::new()];
        let mut pending = 1usize;
        while let Some(prefix) = prefixes.pop() {
            // A fault part way leaves the values drawn up to it, which
            // are all this sequence has.
            let ranges = self.draw_ranges(cfg, m, prefix.clone());
            // The same values lead to the same draws: the prefix's are
            // made again (fewer only where the statement faults before).
            let given = prefix.len().min(ranges.len());
            let full: Vec<i64> = prefix[..given]
                .iter()
                .copied()
                .chain(ranges[given..].iter().map(|r| r.0))
                .collect();
            // The next sequences: the last draw's next values first.
            for j in given..ranges.len() {
                let (lo, hi) = ranges[j];
                let more = u64::try_from(i128::from(hi) - i128::from(lo)).unwrap_or(u64::MAX);
                pending = pending.saturating_add(usize::try_from(more).unwrap_or(usize::MAX));
                if pending > MOST_DRAW_OUTCOMES {
                    return Err(statement_fault(
                        action,
                        p,
                        0,
                        Box::new(Fault {
                            span: action.span,
                            message: format!(
                                "`{}` can draw more than {MOST_DRAW_OUTCOMES} sequences of values at process {p}, more than are explored one by one",
                                action.label
                            ),
                            help: "draw from narrower ranges (a parameter), or measure the program with runs (`guarded sweep`)".into(),
                        }),
                    ));
                }
                for v in (full[j] + 1..=hi).rev() {
                    let mut next = full[..j].to_vec();
                    next.push(v);
                    prefixes.push(next);
                }
            }
            out.push(full);
        }
        Ok(out)
    }

    /// The probability that a run's draws take the values of move `m`
    /// (one of [`StepRelation::moves_into`]): each draw uniform over its
    /// range as the move makes it (a range may follow from an earlier
    /// draw), so the product of one over each range's size; 1 for a move
    /// that does not draw.
    pub fn draw_probability(&mut self, cfg: &Config, m: &Move) -> f64 {
        let Some(values) = &m.draws else {
            return 1.0;
        };
        self.draw_ranges(cfg, m, values.clone())
            .iter()
            .map(|&(lo, hi)| 1.0 / ((i128::from(hi) - i128::from(lo) + 1) as f64))
            .product()
    }

    /// The ranges of the draws move `m` makes when its draws take
    /// `given` (those after the given ones at their lowest values): the
    /// move is run, and a fault part way left for the step relation to
    /// report (the draws up to it are all it makes).
    fn draw_ranges(&mut self, cfg: &Config, m: &Move, given: Vec<i64>) -> Vec<(i64, i64)> {
        let before = std::mem::replace(&mut *self.buf.fx.draws.borrow_mut(), Draws::given(given));
        let pick = Pick {
            action: m.action,
            member: m.member,
            draws: None,
        };
        let p = m.process as usize;
        let _ = run_action(
            self.code, self.topo, &cfg.rows, &cfg.chans, p, pick, 0, &self.buf,
        );
        let drawn = std::mem::replace(&mut *self.buf.fx.draws.borrow_mut(), before);
        let Draws::Given { ranges, .. } = drawn else {
            unreachable!("given above")
        };
        ranges
    }

    /// Process `p`'s row after it moves alone with action `a` in `cfg`,
    /// for a program without effects (no edge variables, messages or
    /// draws), where a step's successor is the configuration with each
    /// mover's row replaced by this row: the rows of a move set are those
    /// of its movers alone.
    pub(crate) fn moved_row(&self, cfg: &Config, p: u32, a: u32) -> Result<&[Cell<i64>], RunError> {
        // Edge variables' writes land in the row too; messages do not.
        debug_assert!(self.code.capacity.is_none());
        let (code, buf) = (self.code, &self.buf);
        let pick = Pick::action(a);
        run_action(
            code, self.topo, &cfg.rows, &cfg.chans, p as usize, pick, 0, buf,
        )?;
        Ok(&buf.scratch)
    }

    /// [`StepRelation::moved_row`] of move `m` (one of
    /// [`StepRelation::moves_into`], in a program without effects).
    pub(crate) fn moved_row_of(&self, cfg: &Config, m: &Move) -> Result<&[Cell<i64>], RunError> {
        debug_assert!(self.code.capacity.is_none());
        let (code, buf) = (self.code, &self.buf);
        let p = m.process as usize;
        run_action(
            code,
            self.topo,
            &cfg.rows,
            &cfg.chans,
            p,
            Pick::from(m),
            0,
            buf,
        )?;
        Ok(&buf.scratch)
    }
}
