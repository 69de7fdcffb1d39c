//! A step of a program that runs in ticks: one tick of the step relation
//! in [`crate::runtime::tick`], the delays drawn from the run's generator;
//! then every process is looked at again (a tick moves most of them), and
//! the tick counts as a step and a round.

use super::*;
use crate::diagnostic::counted;
use crate::runtime::tick;
use crate::state::channels::Channels;

impl Simulation {
    /// The tick relation of this simulation's instance (a program that
    /// runs in ticks): the definition its ticks follow, as a pure function
    /// on configurations.
    pub fn tick_relation(&self) -> tick::TickRelation<'_> {
        tick::TickRelation::new(&self.prog, &self.code, &self.topo, &self.config())
    }

    pub(super) fn tick_step(&mut self) -> Result<Outcome, RunError> {
        self.settle();
        // A schedule's line gives the tick's delays.
        let listed = match &self.daemon {
            Daemon::Schedule(lines) => match lines.get(self.progress.schedule_pos) {
                None => return Ok(Outcome::ScheduleDone),
                Some(line) => match &line.delays {
                    Some(delays) => Some((line.line, delays.clone())),
                    None => {
                        return Err(RunError::Schedule {
                            line: line.line,
                            message: "the program runs in ticks: a line is a tick, `tick D1 D2 ...`, the delays of the messages sent in it".into(),
                        })
                    }
                },
            },
            _ => None,
        };
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
        let made = tick::tick_moves(prog, code, topo, state, chans, step_no, buf, tick_buf, last);
        // A tick that fails, or that its line refuses, leaves nothing changed.
        let undo = |chans: &mut Channels, last: &mut StepRecord, e: RunError| {
            tick::undo_channels(topo, chans, last);
            last.movers.clear();
            last.actions.clear();
            Err(e)
        };
        if let Err(e) = made {
            return undo(chans, last, e);
        }
        let (lo, hi) = code.delay.unwrap_or((1, 1));
        if let Some((line, delays)) = &listed {
            let refuse = |message: String| RunError::Schedule {
                line: *line,
                message,
            };
            if delays.len() != last.sent.len() {
                let message = format!(
                    "tick {step_no} sends {}, but the line gives {}",
                    counted(last.sent.len() as u64, "message"),
                    counted(delays.len() as u64, "delay")
                );
                return undo(chans, last, refuse(message));
            }
            if let Some(d) = delays.iter().find(|&&d| !(lo..=hi).contains(&d)) {
                let message = format!(
                    "a delay of {}, outside the program's `delay {lo}..{hi}`",
                    counted(u64::from(*d), "tick")
                );
                return undo(chans, last, refuse(message));
            }
        }
        tick::land_tick(code, state, tick_buf);
        match listed {
            None => tick::end_tick((code, topo), state, chans, (last, tick_buf), |least| {
                rng.gen_range(lo - 1..=hi - 1).max(least)
            }),
            Some((_, delays)) => {
                let mut each = delays.iter();
                tick::end_tick((code, topo), state, chans, (last, tick_buf), |_| {
                    each.next().map_or(0, |d| d - 1)
                });
                progress.schedule_pos += 1;
            }
        }
        last.tick = last.movers.is_empty();
        self.count_moves();
        let progress = &mut self.progress;
        progress.steps = step_no;
        progress.moves += progress.last.movers.len() as u64;
        progress.rounds_done += 1;
        progress.steps_in_round = 0;
        self.reevaluate_all()?;
        self.progress.in_round.clear_all();
        self.progress.start_round();
        self.update_legitimacy(true)?;
        Ok(Outcome::Moved)
    }
}
