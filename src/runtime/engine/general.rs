//! The general step: the daemon draws the movers (or a schedule or the
//! user names them), each mover's action is chosen, and the step relation
//! ([`crate::runtime::step`]) evaluates and lands it; then the bookkeeping
//! is brought up to date.

use super::*;

impl Simulation {
    pub(super) fn select(&mut self) -> Result<bool, RunError> {
        let lines = match &self.daemon {
            Daemon::Schedule(lines) => lines,
            daemon => {
                let progress = &mut self.progress;
                daemon.select(
                    &progress.enabled.list,
                    &self.topo,
                    &mut self.rng,
                    &mut self.marks,
                    &mut progress.last.movers,
                );
                return Ok(true);
            }
        };
        self.progress.last.movers.clear();
        let Some(line) = lines.get(self.progress.schedule_pos) else {
            return Ok(false);
        };
        self.progress.schedule_pos += 1;
        for &p in &line.procs {
            if p as usize >= self.topo.n() {
                return Err(RunError::Schedule {
                    line: line.line,
                    message: format!(
                        "process {p} does not exist (the topology has {})",
                        self.topo.n()
                    ),
                });
            }
            if self.progress.procs[p as usize].chosen == NO_ACTION {
                return Err(RunError::Schedule {
                    line: line.line,
                    message: format!(
                        "process {p} is not enabled at step {}",
                        self.progress.steps + 1
                    ),
                });
            }
            if !self.progress.last.movers.contains(&p) {
                self.progress.last.movers.push(p);
            }
        }
        Ok(true)
    }

    /// Takes one step in which exactly `movers` move (each must be enabled),
    /// running the action with index `action` of its role when given (it
    /// must be one of the process's enabled actions).
    pub fn step_with(&mut self, movers: &[u32], action: Option<u32>) -> Result<Outcome, RunError> {
        self.settle();
        self.progress.last.movers.clear();
        self.progress.last.movers.extend_from_slice(movers);
        self.execute_forced(action)
    }

    pub(super) fn execute(&mut self) -> Result<Outcome, RunError> {
        self.execute_forced(None)
    }

    pub(super) fn execute_forced(&mut self, forced: Option<u32>) -> Result<Outcome, RunError> {
        debug_assert!(self.progress.dense.is_none() && !self.progress.last.lazy);
        let step_no = self.progress.steps + 1;
        let Simulation {
            prog,
            code,
            topo,
            state,
            chans,
            rng,
            choice,
            progress,
            buf,
            choice_locals,
            ..
        } = self;
        let (procs, last) = (&progress.procs, &mut progress.last);
        // Guards write no effects: an empty set (which allocates nothing) will do.
        let fx = Effects::default();
        let choose = |p: usize| match (forced, *choice) {
            (Some(a), _) => Ok(a),
            (None, Choice::First) => Ok(u32::from(procs[p].chosen)),
            (None, Choice::Random) => {
                let role = &code.roles[procs[p].role as usize];
                let env = Env::new(state, topo, choice_locals, chans, &fx, p);
                let options =
                    step::enabled_actions_from(role, &env, p, procs[p].chosen, step_no - 1)?;
                Ok(options[rng.gen_range(0..options.len())])
            }
        };
        step::evaluate(prog, code, topo, state, chans, step_no, buf, last, choose)?;
        step::land(code, topo, state, chans, buf, last);
        self.progress.steps = step_no;
        self.progress.moves += self.progress.last.movers.len() as u64;
        // Only the movers and their readers can change enabledness.
        self.affected.clear();
        // One mover (the central daemon) affects a handful of processes: a
        // scan of the list is cheaper than marking and unmarking bits.
        let few = match self.progress.last.movers[..] {
            [m] => {
                self.few_readers(m as usize)
                    && self.buf.sends.len() + self.buf.edge_writes.len() <= 8
            }
            _ => false,
        };
        for k in 0..self.progress.last.movers.len() {
            self.affect_mover(self.progress.last.movers[k], few, false);
        }
        // Where a neighbour does not read the writer (directed topologies),
        // the destinations of messages and the other ends of edges still change.
        let buf = &self.buf;
        for q in buf
            .sends
            .iter()
            .map(|s| s.1)
            .chain(buf.edge_writes.iter().map(|w| w.1))
        {
            affect(&mut self.marks, &mut self.affected, few, q as u32);
        }
        if !few {
            for &q in &self.affected {
                self.marks.take(q as usize);
            }
        }
        self.refresh_affected()?;
        self.finish_step()
    }
}
