//! The general step: the daemon draws the movers (or a schedule or the
//! user names them), each mover's action is chosen, and the step relation
//! ([`crate::runtime::step`]) evaluates and lands it; then the bookkeeping
//! is brought up to date.

use super::unread_guards::changed_slots;
use super::*;

impl Simulation {
    pub(super) fn select(&mut self) -> Result<bool, RunError> {
        let lines = match &self.daemon {
            Daemon::Schedule(lines) => lines,
            daemon => {
                self.marks.grow(self.topo.n());
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
        if line.delays.is_some() {
            return Err(RunError::Schedule {
                line: line.line,
                message: "a `tick` line is for programs that run in ticks (whose channels declare a `delay`); this one runs in rounds".into(),
            });
        }
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
    /// running the move `named` names when given (its action must be one
    /// of the process's enabled actions).
    pub fn step_with(
        &mut self,
        movers: &[u32],
        named: Option<&NamedMove>,
    ) -> Result<Outcome, RunError> {
        self.settle();
        self.progress.last.movers.clear();
        self.progress.last.movers.extend_from_slice(movers);
        self.execute_forced(named.map_or(Forced::None, Forced::All))
    }

    /// Takes one step in which each process of `moves` moves (each must be
    /// enabled, and named once), running the move named for it when one is
    /// (its action must be one of the process's enabled actions), else as
    /// runs choose.
    pub fn step_moves(&mut self, moves: &[(u32, Option<NamedMove>)]) -> Result<Outcome, RunError> {
        self.settle();
        self.progress.last.movers.clear();
        self.progress.last.movers.extend(moves.iter().map(|m| m.0));
        self.execute_forced(Forced::Each(moves))
    }

    pub(super) fn execute(&mut self) -> Result<Outcome, RunError> {
        self.execute_forced(Forced::None)
    }

    pub(super) fn execute_forced(&mut self, forced: Forced) -> Result<Outcome, RunError> {
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
            daemon,
            ..
        } = self;
        // The line of a schedule being taken, whose moves may be named.
        let line = match (&forced, &*daemon) {
            (Forced::None, Daemon::Schedule(lines)) => progress
                .schedule_pos
                .checked_sub(1)
                .and_then(|at| lines.get(at)),
            _ => None,
        };
        let (procs, last) = (&progress.procs, &mut progress.last);
        // Guards write no effects: an empty set (which allocates nothing) will do.
        let fx = Effects::default();
        let choose = |p: usize| {
            let role = &code.roles[procs[p].role as usize];
            let env = || Env::new(state, topo, choice_locals, chans, &fx, p);
            let named = match line {
                Some(line) => {
                    let k = line.procs.iter().position(|&q| q as usize == p);
                    k.and_then(|k| line.named[k].as_ref())
                        .map(|m| (m, line.line))
                }
                None => match forced {
                    Forced::None => None,
                    Forced::All(m) => Some((m, 0)),
                    Forced::Each(moves) => moves
                        .iter()
                        .find(|m| m.0 as usize == p)
                        .and_then(|m| m.1.as_ref())
                        .map(|m| (m, 0)),
                },
            };
            if let Some((named, line)) = named {
                return resolve(role, &env(), p, named, (line, step_no));
            }
            match *choice {
                Choice::First => Ok(Pick::action(u32::from(procs[p].chosen))),
                Choice::Random => {
                    let options = every_choice(role, &env(), p, procs[p].chosen, step_no - 1)?;
                    let (action, member) = options[rng.gen_range(0..options.len())];
                    Ok(Pick {
                        action,
                        member,
                        draws: None,
                    })
                }
            }
        };
        step::evaluate(prog, code, topo, state, chans, step_no, buf, last, choose)?;
        step::land(code, topo, state, chans, buf, last);
        self.progress.steps = step_no;
        self.progress.moves += self.progress.last.movers.len() as u64;
        self.count_moves();
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
        let changed = self.changed_by_movers();
        let one_mover = self.progress.last.movers.len() == 1;
        self.refresh_affected(changed, one_mover)?;
        self.finish_step()
    }

    /// The slots of a row the last step's movers changed, where the
    /// guards that read none of them are left alone: a program whose
    /// statements write their own rows only (no effects).
    fn changed_by_movers(&self) -> Option<u64> {
        if !self.leaves_guards_alone || self.code.has_effects {
            return None;
        }
        let (last, stride) = (&self.progress.last, self.code.stride.max(1));
        let rows = last.before.chunks(stride).zip(last.after.chunks(stride));
        let changed = rows.fold(0, |m, (before, after)| m | changed_slots(before, after));
        // Where every slot changed (as with many movers), no guard is left
        // alone: the plain loop, which tests nothing for it.
        (changed != crate::compile::every_slot(stride)).then_some(changed)
    }
}

/// The moves a step is told to make, rather than choose.
#[derive(Clone, Copy)]
pub(super) enum Forced<'m> {
    /// None: the daemon's schedule, or the run's choice.
    None,
    /// The same move for every mover.
    All(&'m NamedMove),
    /// A move (or the run's choice) per mover.
    Each(&'m [(u32, Option<NamedMove>)]),
}

/// Process `p`'s enabled actions in `env`, each binder action once per
/// member its guard holds for: what `--choice random` picks from.
fn every_choice(
    role: &CRole,
    env: &Env,
    p: usize,
    first: u16,
    step: u64,
) -> Result<Vec<(u32, Option<i64>)>, RunError> {
    let mut out = Vec::new();
    for a in step::enabled_actions_from(role, env, p, first, step)? {
        match &role.actions[a as usize].binder {
            Some(b) => {
                let members = (b.members)(env)
                    .map_err(|f| step::guard_fault(role, p, a as usize, step, f))?;
                out.extend(members.into_iter().map(|m| (a, Some(m))));
            }
            None => out.push((a, None)),
        }
    }
    Ok(out)
}

/// The move `named` names for process `p` in `env`: its action, by label,
/// which must be enabled there. Errors name `line` of the schedule (0 for
/// a move named elsewhere) and the step.
fn resolve<'m>(
    role: &CRole,
    env: &Env,
    p: usize,
    named: &'m NamedMove,
    (line, step): (usize, u64),
) -> Result<Pick<'m>, RunError> {
    let refuse = |message: String| RunError::Schedule { line, message };
    let Some(a) = role.actions.iter().position(|a| a.label == named.label) else {
        let labels: Vec<&str> = role.actions.iter().map(|a| a.label.as_str()).collect();
        let message = crate::runtime::schedule::no_such_action(p as u32, &named.label, &labels);
        return Err(refuse(message));
    };
    let mut enabled = Vec::new();
    crate::runtime::choose::enabled_actions(role, env, &mut enabled)
        .map_err(|(i, fault)| step::guard_fault(role, p, i, step, fault))?;
    if !enabled.contains(&(a as u32)) {
        return Err(refuse(format!(
            "action `{}` of process {p} is not enabled at step {step}",
            named.label
        )));
    }
    Ok(Pick {
        action: a as u32,
        member: named.member,
        draws: named.draws.as_deref(),
    })
}
