//! A step of a program that runs in ticks: one tick of the step relation
//! in [`crate::runtime::tick`], the delays drawn from the run's generator;
//! then every process is looked at again (a tick moves most of them), and
//! the tick counts as a step and a round.

use super::*;
use crate::runtime::tick;

impl Simulation {
    pub(super) fn tick_step(&mut self) -> Result<Outcome, RunError> {
        self.settle();
        if self.is_silent() {
            return Ok(Outcome::Silent);
        }
        let step_no = self.progress.steps + 1;
        let Simulation {
            prog,
            code,
            topo,
            state,
            chans,
            rng,
            buf,
            tick_buf,
            progress,
            ..
        } = self;
        let last = &mut progress.last;
        tick::tick_moves(prog, code, topo, state, chans, step_no, buf, tick_buf, last)?;
        let (lo, hi) = code.delay.unwrap_or((1, 1));
        tick::end_tick(code, topo, state, chans, last, |least| {
            rng.gen_range(lo - 1..=hi - 1).max(least)
        });
        last.tick = last.movers.is_empty();
        let progress = &mut self.progress;
        progress.steps = step_no;
        progress.moves += progress.last.movers.len() as u64;
        progress.rounds_done += 1;
        progress.steps_in_round = 0;
        self.reevaluate_all()?;
        self.progress.in_round.clear_all();
        self.start_round();
        self.update_legitimacy(true)?;
        Ok(Outcome::Moved)
    }
}
