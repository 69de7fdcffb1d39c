//! Legitimacy (kept incrementally where the predicate allows, with the
//! first and the last entry into it: the stabilization time), invariants,
//! reports, and expressions evaluated for the front ends.

use super::*;

impl Simulation {
    /// Whether the legitimacy predicate holds now (`None` without one).
    pub fn legitimate(&self) -> Option<bool> {
        self.progress.legit_now
    }

    /// The first point at which legitimacy held.
    pub fn first_legitimate(&self) -> Option<Point> {
        self.progress.first_legit
    }

    /// The point from which legitimacy has held without interruption, if it holds now.
    pub fn stabilized_at(&self) -> Option<Point> {
        if self.progress.legit_now == Some(true) {
            self.progress.last_entry
        } else {
            None
        }
    }

    /// How often legitimacy was lost after holding.
    pub fn legitimacy_losses(&self) -> u64 {
        self.progress.losses
    }

    /// Re-evaluates the legitimacy predicate: in full, or (`full` false)
    /// its incremental parts at the processes the last step affected only.
    #[inline(always)]
    pub(super) fn update_legitimacy(&mut self, full: bool) -> Result<(), RunError> {
        let holds = match (&self.code.legitimate, self.code.legit_enabled_count) {
            (None, _) => return Ok(()),
            (Some(_), Some((op, k))) => op.holds(self.enabled_count() as i64, k),
            (Some(_), None) => self.evaluate_legitimacy(full)?,
        };
        self.progress.set_legitimacy(holds);
        Ok(())
    }

    /// Evaluates the legitimacy predicate, in parts where it has them.
    pub(super) fn evaluate_legitimacy(&mut self, full: bool) -> Result<bool, RunError> {
        let step = self.progress.steps;
        let fail = move |fault| predicate_fault(step, LEGITIMACY, fault);
        match &self.code.legitimate {
            Some(legit) if self.code.legit_parts.is_empty() => {
                legit.holds(&self.env(0, &[])).map_err(fail)
            }
            Some(_) => self.legit_parts(full).map_err(fail),
            None => Ok(true),
        }
    }

    /// The legitimacy predicate evaluated in full on the current
    /// configuration, bypassing the incremental bookkeeping (for tests).
    pub fn legitimate_in_full(&self) -> Result<Option<bool>, Box<Fault>> {
        self.code
            .legitimate
            .as_ref()
            .map(|f| f.holds(&self.env(0, &[])))
            .transpose()
    }

    /// Whether the legitimacy predicate holds, its incremental conjuncts
    /// marked in full or at the processes the last step affected (see
    /// `legit_parts.rs`).
    pub(super) fn legit_parts(&mut self, full: bool) -> Result<bool, Box<Fault>> {
        let reads = Reads::of(&self.code, &self.topo, &self.state, &self.chans, &self.buf);
        reads.legit_parts(&mut self.progress, &self.affected, full)
    }

    /// Evaluates a compiled global expression on the current configuration;
    /// `locals` is the number of quantifier slots it needs.
    pub fn eval_global(
        &self,
        f: &crate::compile::GlobalFn,
        locals: usize,
    ) -> Result<i64, Box<Fault>> {
        self.eval_at(0, f, locals)
    }

    /// The program's `report` values on the current configuration, as text;
    /// a report that cannot be evaluated gives the reason instead.
    pub fn reports(&self) -> Vec<(String, Result<String, String>)> {
        self.code
            .reports
            .iter()
            .map(|(name, f)| {
                let v = self.eval_global(f, 0).map_err(|e| e.message.clone());
                let shown = v.map(|v| match f {
                    crate::compile::GlobalFn::Int(_, crate::check::ir::Ty::Node) => {
                        match usize::try_from(v).ok().filter(|&p| p < self.topo.n()) {
                            Some(p) => format!("process {v} (id {})", self.topo.id(p)),
                            None => format!("{v}"),
                        }
                    }
                    crate::compile::GlobalFn::Int(_, ty) => self.prog.show_value(*ty, v),
                    crate::compile::GlobalFn::Bool(_) => (v != 0).to_string(),
                });
                (name.clone(), shown)
            })
            .collect()
    }

    /// Evaluates a compiled expression as process `p` sees the configuration.
    pub fn eval_at(
        &self,
        p: usize,
        f: &crate::compile::GlobalFn,
        locals: usize,
    ) -> Result<i64, Box<Fault>> {
        let cells = self.locals_for(locals);
        self.eval_in(p, f, &cells)
    }

    /// Slots for an expression that needs `locals` of its own, as
    /// [`Simulation::eval_in`] takes them.
    pub fn locals_for(&self, locals: usize) -> Vec<Cell<i64>> {
        vec![Cell::new(0); locals.max(self.buf.locals.len())]
    }

    /// Evaluates a compiled expression as process `p` sees the
    /// configuration, with its locals in `cells` (from
    /// [`Simulation::locals_for`]), where some may be set beforehand: a
    /// set's candidate member, for one.
    pub fn eval_in(
        &self,
        p: usize,
        f: &crate::compile::GlobalFn,
        cells: &[Cell<i64>],
    ) -> Result<i64, Box<Fault>> {
        let env = Env {
            locals: cells,
            ..self.env(p, &[])
        };
        match f {
            crate::compile::GlobalFn::Int(g, _) => g(&env),
            crate::compile::GlobalFn::Bool(g) => g.holds(&env).map(i64::from),
        }
    }

    /// Whether the program declares invariants.
    pub fn has_invariants(&self) -> bool {
        !self.code.invariants.is_empty()
    }

    /// The first declared invariant that does not hold now, if any.
    pub fn violated_invariant(&self) -> Result<Option<usize>, RunError> {
        if self.code.invariants.is_empty() {
            return Ok(None);
        }
        let env = self.env(0, &[]);
        for (i, inv) in self.code.invariants.iter().enumerate() {
            match inv.test.holds(&env) {
                Ok(true) => {}
                Ok(false) => return Ok(Some(i)),
                Err(fault) => return Err(predicate_fault(self.progress.steps, INVARIANT, fault)),
            }
        }
        Ok(None)
    }
}

impl Progress {
    /// Legitimacy now `holds` (or not), counted where it changed.
    #[inline]
    pub(super) fn set_legitimacy(&mut self, holds: bool) {
        let was = self.legit_now.replace(holds);
        if was != Some(holds) {
            self.legitimacy_changed(was, holds);
        }
    }

    /// Legitimacy was lost, or holds where it did not (or was not known
    /// yet): a loss, or an entry into legitimacy, to count.
    pub(super) fn legitimacy_changed(&mut self, was: Option<bool>, holds: bool) {
        if holds {
            let now = self.now();
            self.last_entry = Some(now);
            self.first_legit.get_or_insert(now);
        } else if was == Some(true) {
            self.losses += 1;
        }
    }
}

/// What predicates over the configuration read, apart from the run's
/// bookkeeping, so that a loop holding the simulation taken apart can
/// evaluate them.
pub(super) struct Reads<'a> {
    pub(super) code: &'a Compiled,
    pub(super) topo: &'a Topology,
    pub(super) state: &'a [i64],
    pub(super) chans: &'a Channels,
    pub(super) buf: &'a StepBuffers,
}

impl<'a> Reads<'a> {
    /// What predicates over `state` read.
    pub(super) fn of(
        code: &'a Compiled,
        topo: &'a Topology,
        state: &'a [i64],
        chans: &'a Channels,
        buf: &'a StepBuffers,
    ) -> Self {
        Reads {
            code,
            topo,
            state,
            chans,
            buf,
        }
    }

    /// The environment global predicates are evaluated in (as
    /// [`Simulation::env`] gives it, for process 0 and no statement).
    pub(super) fn env(&self, progress: &'a Progress) -> Env<'a> {
        let b = self.buf;
        Env {
            enabled: progress,
            enabled_count: progress.enabled_count(),
            ..Env::new(self.state, self.topo, &b.locals, self.chans, &b.fx, 0)
        }
    }
}
