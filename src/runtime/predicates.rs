//! What the global predicates say of a configuration under the step
//! relation: the legitimacy predicate and the invariants, evaluated with
//! every process's first enabled action (for `enabled(p)`).

use crate::compile::{Holds, NO_ACTION};
use crate::runtime::error::PROPERTY;
use crate::runtime::step::{predicate_fault, RunError, StepRelation, INVARIANT, LEGITIMACY};
use crate::state::Config;

impl StepRelation<'_> {
    /// Whether the legitimacy predicate holds in `cfg` (`None` without one).
    pub fn legitimate(&self, cfg: &Config) -> Result<Option<bool>, RunError> {
        if self.code.legitimate.is_none() {
            return Ok(None);
        }
        let chosen = self.chosen(cfg)?;
        self.legitimate_with(cfg, &chosen)
    }

    /// [`StepRelation::legitimate`], given every process's first enabled action.
    pub(crate) fn legitimate_with(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
    ) -> Result<Option<bool>, RunError> {
        let Some(legit) = &self.code.legitimate else {
            return Ok(None);
        };
        let enabled = || chosen.iter().filter(|&&a| a != NO_ACTION).count();
        if let Some(holds) = self.legitimate_by_count(enabled) {
            return Ok(Some(holds));
        }
        legit
            .holds(&self.global_env(cfg, chosen))
            .map(Some)
            .map_err(|fault| predicate_fault(0, LEGITIMACY, fault))
    }

    /// Where the legitimacy predicate only counts the enabled processes
    /// (`count(p in procs : enabled(p))` compared with a constant), whether
    /// it holds with `enabled()` of them, with no environment to build;
    /// `None` for any other predicate.
    #[inline]
    pub(crate) fn legitimate_by_count(&self, enabled: impl FnOnce() -> usize) -> Option<bool> {
        let (op, k) = self.code.legit_enabled_count?;
        Some(op.holds(enabled() as i64, k))
    }

    /// The name of the first declared invariant that does not hold in `cfg`.
    pub fn violated_invariant(&self, cfg: &Config) -> Result<Option<&str>, RunError> {
        if self.code.invariants.is_empty() {
            return Ok(None);
        }
        let chosen = self.chosen(cfg)?;
        self.violated_invariant_with(cfg, &chosen)
    }

    /// [`StepRelation::violated_invariant`], given every process's first
    /// enabled action.
    pub(crate) fn violated_invariant_with(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
    ) -> Result<Option<&str>, RunError> {
        let env = self.global_env(cfg, chosen);
        for inv in &self.code.invariants {
            match inv.test.holds(&env) {
                Ok(true) => {}
                Ok(false) => return Ok(Some(&inv.name)),
                Err(fault) => return Err(predicate_fault(0, INVARIANT, fault)),
            }
        }
        Ok(None)
    }

    /// How many invariants there are.
    pub(crate) fn invariant_count(&self) -> usize {
        self.code.invariants.len()
    }

    /// Invariant `j`'s name.
    pub(crate) fn invariant_name(&self, j: usize) -> &str {
        &self.code.invariants[j].name
    }

    /// Whether invariant `j` is `forall(x in procs : body)` with `body`
    /// local to x, which [`StepRelation::invariant_holds_at`] answers.
    pub(crate) fn invariant_is_local(&self, j: usize) -> bool {
        self.code.invariants[j].local.is_some()
    }

    /// Whether invariant `j` holds in `cfg`, given every process's first
    /// enabled action.
    pub(crate) fn invariant_holds_with(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
        j: usize,
    ) -> Result<bool, RunError> {
        self.code.invariants[j]
            .test
            .holds(&self.global_env(cfg, chosen))
            .map_err(|fault| predicate_fault(0, INVARIANT, fault))
    }

    /// Whether a local invariant `j`'s body holds at process `p` of
    /// `cfg` (`None` for an invariant that is not local): it holds in
    /// `cfg` where its body holds at every process.
    pub(crate) fn invariant_holds_at(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
        j: usize,
        p: usize,
    ) -> Result<Option<bool>, RunError> {
        let Some((slot, body)) = &self.code.invariants[j].local else {
            return Ok(None);
        };
        let env = self.global_env(cfg, chosen);
        env.locals[*slot].set(p as i64);
        body.holds(&env)
            .map(Some)
            .map_err(|fault| predicate_fault(0, INVARIANT, fault))
    }

    /// Whether invariant `j` is `acyclic(x -> y : body)` with `body` local
    /// to x, which [`StepRelation::arcs_at`] answers.
    pub(crate) fn invariant_is_local_acyclic(&self, j: usize) -> bool {
        self.code.invariants[j].arcs.is_some()
    }

    /// A local acyclicity invariant `j`'s arcs from process `p` (at most
    /// the 64th) in `cfg`, as bits of the processes they lead to (`None`
    /// for an invariant that is not one).
    pub(crate) fn arcs_at(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
        j: usize,
        p: usize,
    ) -> Result<Option<u64>, RunError> {
        let Some((from, to, body)) = &self.code.invariants[j].arcs else {
            return Ok(None);
        };
        let env = self.global_env(cfg, chosen);
        env.locals[*from].set(p as i64);
        let mut arcs = 0u64;
        for &q in self.topo.nbrs(p) {
            env.locals[*to].set(i64::from(q));
            if body
                .holds(&env)
                .map_err(|fault| predicate_fault(0, INVARIANT, fault))?
            {
                arcs |= 1u64.checked_shl(q).unwrap_or(0);
            }
        }
        Ok(Some(arcs))
    }
}

impl StepRelation<'_> {
    /// Whether `body`, the body of a quantifier over processes bound to
    /// `slot` and local to it (see [`crate::compile::by_process`]), holds at
    /// process `p` of `cfg`, with `p` enabled or not as `chosen` says
    /// (the body asks no other process's); `kind` says which kind of
    /// predicate faults where it faults.
    pub(crate) fn body_holds_at(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
        (slot, body): (usize, &crate::compile::BFn),
        p: usize,
        kind: &'static str,
    ) -> Result<bool, RunError> {
        let env = self.global_env(cfg, chosen);
        env.locals[slot].set(p as i64);
        body.holds(&env)
            .map_err(|fault| predicate_fault(0, kind, fault))
    }
}

impl StepRelation<'_> {
    /// Whether `test`, a predicate of a property, holds in `cfg` (with
    /// every process enabled or not as `chosen` says), with process `p` in
    /// `slot` where the property is said of each process.
    pub fn property_holds(
        &self,
        cfg: &Config,
        chosen: &Vec<u16>,
        test: &crate::compile::BFn,
        each: Option<(usize, usize)>,
    ) -> Result<bool, RunError> {
        let env = self.global_env(cfg, chosen);
        if let Some((slot, p)) = each {
            env.locals[slot].set(p as i64);
        }
        test.holds(&env)
            .map_err(|fault| predicate_fault(0, PROPERTY, fault))
    }
}
