//! The step relation, the one definition of what a step is (composite
//! atomicity): each mover makes one of its moves (an enabled action, for a
//! member of its binder, with the values its draws take: [`Move`]) against
//! the configuration from before the step, and all writes land together,
//! with every fault a step can raise (out-of-domain values, division by
//! zero, reads beyond the neighbours, two writers of one edge variable, a
//! full channel).
//!
//! Two layers: `evaluate` and `land` work in place on buffers the
//! simulator reuses from step to step, and [`StepRelation`] wraps them as
//! a pure function from a [`Config`] and a step's moves to the successor,
//! for exhaustive exploration and for tests. The simulator's general step
//! calls the first; its fast paths (one mover, column by column) are
//! tested against the second. Which moves a process has is
//! `runtime/choose.rs`'s and [`StepRelation::moves_into`]'s.

use crate::check::ir;
use crate::compile::{CAction, Compiled, Draws, Enabledness, Env, Fault, NoneEnabled, NO_ACTION};
pub use crate::runtime::choose::Move;
pub(crate) use crate::runtime::choose::{enabled_actions_from, first_true};
use crate::runtime::record::StepRecord;
use crate::state::channels::Channels;
use crate::state::Config;
use crate::topology::Topology;
use std::cell::Cell;

pub(crate) use crate::runtime::step_buffers::StepBuffers;

pub use crate::runtime::error::RunError;
pub(crate) use crate::runtime::error::{
    guard_fault, predicate_fault, statement_fault, INVARIANT, LEGITIMACY, PROPERTY,
};

/// How a mover runs in a step: its action, and where a [`Move`] names
/// them, the binder member it runs for and the values of its draws.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick<'m> {
    pub(crate) action: u32,
    pub(crate) member: Option<i64>,
    pub(crate) draws: Option<&'m [i64]>,
}

impl Pick<'_> {
    /// The action alone: the first member, draws from the generator.
    #[inline]
    pub(crate) fn action(action: u32) -> Self {
        Pick {
            action,
            member: None,
            draws: None,
        }
    }
}

impl<'m> From<&'m Move> for Pick<'m> {
    fn from(m: &'m Move) -> Self {
        Pick {
            action: m.action,
            member: m.member,
            draws: m.draws.as_deref(),
        }
    }
}

/// The first phase of a step: runs each mover's action (the one `choose`
/// names for it, asked in mover order) on `state` and `chans` as they are
/// before the step, recording in `record` the actions, each mover's row
/// before and after, and the messages taken; edge writes and sends are
/// collected in `buf`. Nothing in the configuration changes. Refuses a
/// step whose effects clash (two writers of one edge variable, a full channel).
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate<'m>(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    state: &[i64],
    chans: &Channels,
    step_no: u64,
    buf: &mut StepBuffers,
    record: &mut StepRecord,
    mut choose: impl FnMut(usize) -> Result<Pick<'m>, RunError>,
) -> Result<(), RunError> {
    let stride = code.stride;
    record.forget_moves();
    buf.edge_writes.clear();
    buf.sends.clear();
    for k in 0..record.movers.len() {
        let p = record.movers[k] as usize;
        let pick = choose(p)?;
        let a = pick.action;
        let row = &state[p * stride..(p + 1) * stride];
        run_action(code, topo, state, chans, p, pick, step_no, buf)?;
        record.actions.push(a);
        record.before.extend_from_slice(row);
        record.after.extend(buf.scratch.iter().map(Cell::get));
        if code.has_binders {
            let slot = code.binder_slot(p, a);
            record.members.push(slot.map(|s| buf.locals[s].get()));
        }
        if !code.has_effects {
            continue;
        }
        if prog.draws {
            record.note_drawn(&buf.fx.drawn.borrow());
        }
        let taken = buf.fx.received.get().and_then(|s| {
            let head = chans.between(topo, s, p)?.front()?;
            Some((s as u32, *head))
        });
        record.received.push(taken);
        for (q, var, v, span) in buf.fx.edge_writes.borrow().iter() {
            buf.edge_writes.push((p, *q, *var, *v, *span, a));
        }
        for (q, kind, fields, span) in buf.fx.sends.borrow().iter() {
            buf.sends.push((p, *q, *kind, *fields, *span, a));
        }
    }
    if code.has_effects {
        // A step is a set of movers: its messages are stamped by sender
        // number (stably: a sender's in its statement's order), whatever
        // order a daemon drew the movers in (a run's enabled list is in
        // no order) or a schedule lists them, as `verify` has them.
        if !buf.sends.is_sorted_by_key(|s| s.0) {
            buf.sends.sort_by_key(|s| s.0);
        }
        check_effects(prog, code, topo, chans, record, buf, step_no)?;
    }
    Ok(())
}

/// Runs process `p`'s move `pick` against `state` and `chans`: its writes
/// to its own row land in `buf.scratch` (a copy of its row), what else it
/// does in `buf.fx`. The part of [`evaluate`] that is one mover's.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn run_action(
    code: &Compiled,
    topo: &Topology,
    state: &[i64],
    chans: &Channels,
    p: usize,
    pick: Pick,
    step_no: u64,
    buf: &StepBuffers,
) -> Result<(), RunError> {
    let stride = code.stride;
    for (c, v) in buf.scratch.iter().zip(&state[p * stride..(p + 1) * stride]) {
        c.set(*v);
    }
    let action = &code.roles[code.role_of.of(p)].actions[pick.action as usize];
    if code.has_effects {
        buf.fx.clear();
    }
    let env = buf.statement_env(state, topo, chans, p);
    if pick.member.is_none() && pick.draws.is_none() {
        return (action.body)(&env).map_err(|fault| statement_fault(action, p, step_no, fault));
    }
    run_named(action, &env, pick, p, step_no)
}

/// [`run_action`] of a move that names a binder member or the values of
/// its draws: checks that the member enables the action and that the
/// action draws exactly the values given.
#[cold]
fn run_named(
    action: &CAction,
    env: &Env,
    pick: Pick,
    p: usize,
    step_no: u64,
) -> Result<(), RunError> {
    let fail = |message: String, help: &str| {
        let fault = Box::new(Fault {
            span: action.span,
            message,
            help: help.into(),
        });
        statement_fault(action, p, step_no, fault)
    };
    let given = pick.draws.map(|d| {
        let values = Draws::given(d.to_vec());
        std::mem::replace(&mut *env.fx.draws.borrow_mut(), values)
    });
    let ran = match (pick.member, &action.binder) {
        (None, _) => (action.body)(env),
        (Some(m), Some(b)) => match (b.members)(env) {
            Ok(members) if members.contains(&m) => {
                env.locals[b.slot].set(m);
                (b.body)(env)
            }
            Ok(members) => {
                restore(env, given);
                let members: Vec<String> = members.iter().map(i64::to_string).collect();
                return Err(fail(
                    format!(
                        "`{}` is not enabled for member {m} at process {p}",
                        action.label
                    ),
                    &format!("the members it is enabled for: {}", members.join(", ")),
                ));
            }
            Err(fault) => Err(fault),
        },
        (Some(_), None) => {
            restore(env, given);
            return Err(fail(
                format!("`{}` has no binder, so no member to name", action.label),
                "name a member (`P:ACTION@Q`) only for an action `ACTION for q in ...`",
            ));
        }
    };
    let made = match &*env.fx.draws.borrow() {
        Draws::Given { made, .. } => *made,
        _ => 0,
    };
    restore(env, given);
    ran.map_err(|fault| statement_fault(action, p, step_no, fault))?;
    match pick.draws {
        Some(d) if d.len() != made => Err(fail(
            format!(
                "the move gives {} {} to draw, but `{}` drew {made}",
                d.len(),
                if d.len() == 1 { "value" } else { "values" },
                action.label
            ),
            "give one value per draw the action makes, in order (`P:ACTION<v,...>`)",
        )),
        _ => Ok(()),
    }
}

/// Puts back where draws came from before a move gave its own.
fn restore(env: &Env, given: Option<Draws>) {
    if let Some(before) = given {
        *env.fx.draws.borrow_mut() = before;
    }
}

/// The second phase: all writes [`evaluate`] recorded land together: the
/// movers' rows, the other end of every edge variable written, then the
/// channels (messages taken leave first, then messages sent join the
/// tails, stamped in order and recorded in `record.sent`).
pub(crate) fn land(
    code: &Compiled,
    topo: &Topology,
    state: &mut [i64],
    chans: &mut Channels,
    buf: &StepBuffers,
    record: &mut StepRecord,
) {
    let stride = code.stride;
    for (k, &p) in record.movers.iter().enumerate() {
        let p = p as usize;
        state[p * stride..(p + 1) * stride]
            .copy_from_slice(&record.after[k * stride..(k + 1) * stride]);
    }
    for &(p, q, var, v, _, _) in &buf.edge_writes {
        if let Some(k) = topo.nbr_pos(q, p) {
            state[q * stride + code.offsets[var] + k] = v;
        }
    }
    for (k, r) in record.received.iter().enumerate() {
        if let Some((s, _)) = r {
            let p = record.movers[k] as usize;
            if let Some(a) = topo.arc(*s as usize, p) {
                chans.queues[a].pop_front();
            }
        }
    }
    for &(p, q, kind, fields, _, _) in &buf.sends {
        let mut m = chans.stamp(kind, fields);
        m.due = buf.sent_due;
        if let Some(a) = topo.arc(p, q) {
            chans.queues[a].push_back(m);
        }
        record.sent.push((p as u32, q as u32, m));
    }
}

/// Refuses a step whose effects clash: two processes writing one edge
/// variable, or a message sent into a full channel.
fn check_effects(
    prog: &ir::Program,
    code: &Compiled,
    topo: &Topology,
    chans: &Channels,
    record: &StepRecord,
    buf: &StepBuffers,
    step: u64,
) -> Result<(), RunError> {
    let action_of = |p: usize, a: u32| &code.roles[code.role_of.of(p)].actions[a as usize];
    let edge_writes = &buf.edge_writes;
    for (i, a) in edge_writes.iter().enumerate() {
        let key = (a.0.min(a.1), a.0.max(a.1), a.2);
        if let Some(b) = edge_writes[..i]
            .iter()
            .find(|b| (b.0.min(b.1), b.0.max(b.1), b.2) == key && b.0 != a.0)
        {
            return Err(RunError::Conflict {
                step,
                var: prog.vars[a.2].name.clone(),
                edge: (key.0, key.1),
                writers: Box::new([
                    (b.0, action_of(b.0, b.5).label.clone(), b.4),
                    (a.0, action_of(a.0, a.5).label.clone(), a.4),
                ]),
            });
        }
    }
    let sends = &buf.sends;
    for (i, m) in sends.iter().enumerate() {
        let Some(arc) = topo.arc(m.0, m.1) else {
            continue;
        };
        let before = chans.queues.get(arc).map_or(0, |q| q.len());
        let taken = record
            .received
            .iter()
            .zip(&record.movers)
            .filter(|(r, &mover)| {
                mover as usize == m.1 && r.is_some_and(|(s, _)| s as usize == m.0)
            })
            .count();
        let queued = before - taken
            + sends[..=i]
                .iter()
                .filter(|o| o.0 == m.0 && o.1 == m.1)
                .count();
        if queued > chans.capacity {
            let action = action_of(m.0, m.5);
            return Err(RunError::Fault {
                fault: Box::new(Fault {
                    span: m.4,
                    message: format!(
                        "the channel from {} to {} is full (its capacity is {})",
                        m.0, m.1, chans.capacity
                    ),
                    help: "a send must find room: raise `channel capacity`, or send only when the protocol allows".into(),
                }),
                process: Some(m.0),
                action: Some((action.label.clone(), action.span)),
                step,
                during: "statement",
            });
        }
    }
    Ok(())
}

/// The step relation of one instance (a program compiled on a topology)
/// as a pure function on configuration values: which actions are enabled
/// where, and the successor of a configuration for a set of moves. Errors
/// name step 0 (a configuration value has no place in a run); the caller
/// knows which step it took.
pub struct StepRelation<'a> {
    prog: &'a ir::Program,
    pub(super) code: &'a Compiled,
    pub(super) topo: &'a Topology,
    pub(super) buf: StepBuffers,
    record: StepRecord,
}

impl<'a> StepRelation<'a> {
    /// The step relation of `prog` compiled as `code` on `topo`.
    pub(crate) fn new(prog: &'a ir::Program, code: &'a Compiled, topo: &'a Topology) -> Self {
        StepRelation {
            prog,
            code,
            topo,
            buf: StepBuffers::new(code),
            record: StepRecord::default(),
        }
    }

    /// The number of processes.
    pub fn n(&self) -> usize {
        self.topo.n()
    }

    pub(super) fn env<'e>(
        &'e self,
        cfg: &'e Config,
        me: usize,
        enabled: &'e dyn Enabledness,
    ) -> Env<'e> {
        let b = &self.buf;
        Env {
            enabled,
            ..Env::new(&cfg.rows, self.topo, &b.locals, &cfg.chans, &b.fx, me)
        }
    }

    /// The environment global predicates are evaluated in, `chosen` the
    /// first enabled action of every process (see [`StepRelation::enabled`]).
    pub(super) fn global_env<'e>(&'e self, cfg: &'e Config, chosen: &'e Vec<u16>) -> Env<'e> {
        Env {
            enabled_count: chosen.iter().filter(|&&c| c != NO_ACTION).count(),
            ..self.env(cfg, 0, chosen)
        }
    }

    /// The action `p` runs when it moves with no choice asked for: the
    /// first in program order among the most urgent enabled ones.
    #[inline(always)]
    pub fn first_enabled(&self, cfg: &Config, p: usize) -> Result<Option<u32>, RunError> {
        let role = &self.code.roles[self.code.role_of.of(p)];
        match first_true(role, &self.env(cfg, p, &NoneEnabled), false) {
            Ok(NO_ACTION) => Ok(None),
            Ok(a) => Ok(Some(u32::from(a))),
            Err((i, fault)) => Err(guard_fault(role, p, i, 0, fault)),
        }
    }

    /// Every enabled action of `p`: those of the most urgent priority whose
    /// guards hold, in program order (indices into its role's actions).
    pub fn enabled_actions(&self, cfg: &Config, p: usize) -> Result<Vec<u32>, RunError> {
        let first = self.first_enabled(cfg, p)?.map_or(NO_ACTION, |a| a as u16);
        let role = &self.code.roles[self.code.role_of.of(p)];
        enabled_actions_from(role, &self.env(cfg, p, &NoneEnabled), p, first, 0)
    }

    /// Each process's first enabled action, or `NO_ACTION`: a column
    /// that answers `enabled(p)` in global predicates.
    pub(crate) fn chosen(&self, cfg: &Config) -> Result<Vec<u16>, RunError> {
        let mut out = Vec::with_capacity(self.n());
        self.chosen_into(cfg, &mut out)?;
        Ok(out)
    }

    /// [`StepRelation::chosen`] into `out`, which keeps its allocation.
    pub(crate) fn chosen_into(&self, cfg: &Config, out: &mut Vec<u16>) -> Result<(), RunError> {
        out.clear();
        for p in 0..self.n() {
            out.push(self.first_enabled(cfg, p)?.map_or(NO_ACTION, |a| a as u16));
        }
        Ok(())
    }

    /// The enabled processes, in increasing order.
    pub fn enabled(&self, cfg: &Config) -> Result<Vec<u32>, RunError> {
        let chosen = self.chosen(cfg)?;
        Ok((0..self.n() as u32)
            .filter(|&p| chosen[p as usize] != NO_ACTION)
            .collect())
    }

    /// The configuration after a step in which each `(process, action)`
    /// of `moves` moves with that action (each must be enabled there, and
    /// each process named once), in canonical form.
    pub fn successor(&mut self, cfg: &Config, moves: &[(u32, u32)]) -> Result<Config, RunError> {
        let mut next = cfg.clone();
        self.successor_into(cfg, moves, &mut next)?;
        Ok(next)
    }

    /// [`StepRelation::successor`] into `next`, whose buffers are reused
    /// (its contents are replaced; on an error they are unspecified).
    pub fn successor_into(
        &mut self,
        cfg: &Config,
        moves: &[(u32, u32)],
        next: &mut Config,
    ) -> Result<(), RunError> {
        let movers = moves.iter().map(|m| m.0);
        let mut picks = moves.iter().map(|m| Pick::action(m.1));
        self.step_into(cfg, movers, || picks.next(), next)
    }

    /// The configuration after a step of `moves` (each process named
    /// once, each move one of [`StepRelation::moves_into`]'s), in canonical form.
    pub fn successor_of(&mut self, cfg: &Config, moves: &[Move]) -> Result<Config, RunError> {
        let mut next = cfg.clone();
        self.successor_of_into(cfg, moves, &mut next)?;
        Ok(next)
    }

    /// [`StepRelation::successor_of`] into `next`, whose buffers are
    /// reused (its contents are replaced; on an error they are unspecified).
    pub fn successor_of_into(
        &mut self,
        cfg: &Config,
        moves: &[Move],
        next: &mut Config,
    ) -> Result<(), RunError> {
        let movers = moves.iter().map(|m| m.process);
        let mut picks = moves.iter().map(Pick::from);
        self.step_into(cfg, movers, || picks.next(), next)
    }

    /// The step of `movers`, each running the next of `picks`, into `next`.
    fn step_into<'m>(
        &mut self,
        cfg: &Config,
        movers: impl Iterator<Item = u32>,
        mut picks: impl FnMut() -> Option<Pick<'m>>,
        next: &mut Config,
    ) -> Result<(), RunError> {
        let mut record = std::mem::take(&mut self.record);
        record.movers.clear();
        record.movers.extend(movers);
        let result = evaluate(
            self.prog,
            self.code,
            self.topo,
            &cfg.rows,
            &cfg.chans,
            0,
            &mut self.buf,
            &mut record,
            |_| Ok(picks().expect("one move per mover")),
        );
        if result.is_ok() {
            next.rows.clone_from(&cfg.rows);
            next.chans.clone_from(&cfg.chans);
            land(
                self.code,
                self.topo,
                &mut next.rows,
                &mut next.chans,
                &self.buf,
                &mut record,
            );
            let taken = record.received.iter().flatten().map(|(_, m)| m.seq);
            next.chans.canonicalize_after(&cfg.chans, taken);
        }
        self.record = record;
        result
    }

    /// The successor when each of `movers` runs its first enabled action
    /// (as runs do without `--choice random`).
    pub fn successor_first(&mut self, cfg: &Config, movers: &[u32]) -> Result<Config, RunError> {
        let mut moves = Vec::with_capacity(movers.len());
        for &p in movers {
            match self.first_enabled(cfg, p as usize)? {
                Some(a) => moves.push((p, a)),
                None => {
                    return Err(RunError::Schedule {
                        line: 0,
                        message: format!("process {p} is not enabled"),
                    })
                }
            }
        }
        self.successor(cfg, &moves)
    }

    /// The topology it steps on.
    pub fn topology(&self) -> &'a Topology {
        self.topo
    }

    /// What the last [`StepRelation::successor`] did: movers, actions,
    /// rows before and after, messages taken and sent.
    pub fn last_record(&self) -> &StepRecord {
        &self.record
    }
}
