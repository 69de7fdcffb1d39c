//! The layout of an instance: every declared domain resolved (one place
//! for variables and message fields alike), array lengths, each variable's
//! slots in a process's row, what random configurations draw from, and the
//! channels' capacity and random fill.

use super::instantiate::Instantiation;
use super::*;
use crate::check::ir::VarKind;
use crate::state::channels::MAX_DELAY;

/// Where each variable lives in a process's row, and what it may hold.
pub(super) struct Layout {
    /// By variable: its domain.
    pub(super) var_domains: Vec<VarDomain>,
    /// By variable: its number of slots, `None` for a scalar.
    pub(super) lens: Vec<Option<usize>>,
    /// By variable: its first slot.
    pub(super) offsets: Vec<usize>,
    /// By slot: the domain.
    pub(super) domains: Vec<VarDomain>,
    /// By slot: what random configurations draw from.
    pub(super) arbitrary: Vec<VarDomain>,
}

/// Channel capacity, random fill, delays and message field domains.
pub(super) struct ChannelSetup {
    pub(super) capacity: Option<usize>,
    pub(super) delay: Option<(u16, u16)>,
    pub(super) random_fill: (usize, usize),
    pub(super) message_domains: Vec<Vec<VarDomain>>,
}

impl Layout {
    /// Timers: first slot, slots, the value they stop at.
    pub(super) fn timers(&self, prog: &ir::Program) -> Vec<(usize, usize, i64)> {
        prog.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.kind == VarKind::Timer)
            .filter_map(|(k, _)| match self.var_domains[k] {
                VarDomain::Range(_, hi) => Some((self.offsets[k], self.lens[k].unwrap_or(1), hi)),
                _ => None,
            })
            .collect()
    }
}

impl Instantiation<'_> {
    /// A declared domain with its bounds computed: the one place that
    /// resolves one, for variables and message fields alike. `what` names
    /// the holder (`` `x` ``, `` field `f` of `m` ``).
    pub(super) fn domain(&mut self, d: &Domain, what: &str, span: Option<Span>) -> VarDomain {
        let (lo, hi) = match d {
            Domain::Bool => return VarDomain::Bool,
            Domain::Node => return VarDomain::Node,
            Domain::Enum(e) => return VarDomain::Enum(self.prog.enums[*e].values.len()),
            Domain::Range(lo, hi) => (lo, hi),
        };
        let problem = match (self.eval(lo), self.eval(hi)) {
            (Some(lo), Some(hi)) if lo <= hi => return VarDomain::Range(lo, hi),
            (Some(lo), Some(hi)) => Problem::new(
                "guarded::instance::empty_domain",
                format!("the domain of {what} is empty: {lo}..{hi}"),
            )
            .help("a range `lo..hi` needs lo <= hi; check the parameters or the topology size")
            .label_opt(span, format!("{lo}..{hi} with n = {}", self.n.n)),
            _ => Problem::new(
                "guarded::instance::bad_domain",
                format!("the bounds of {what} cannot be computed"),
            )
            .help("check the parameters")
            .label_opt(span, "overflow or division by zero"),
        };
        self.problems.push(problem);
        VarDomain::Range(0, 0)
    }

    /// Every variable's domain, length and place in the row, and what
    /// random configurations draw each slot from.
    pub(super) fn layout(&mut self) -> Layout {
        let prog = self.prog;
        // One slot per neighbour, for the process with the most neighbours.
        let degree = self.topo.max_degree().max(1);
        let mut l = Layout {
            var_domains: Vec::new(),
            lens: Vec::new(),
            offsets: Vec::new(),
            domains: Vec::new(),
            arbitrary: Vec::new(),
        };
        for v in &prog.vars {
            let what = format!("`{}`", v.name);
            let (len, d) = if v.per_nbr {
                (Some(degree), self.domain(&v.domain, &what, Some(v.span)))
            } else {
                let len = v.len.as_ref().map(|len| self.array_length(v, len));
                (len, self.domain(&v.domain, &what, Some(v.span)))
            };
            l.var_domains.push(d);
            l.lens.push(len);
        }
        // One process's slots, before any is allocated (each slot costs a
        // domain and a random range here, then the configuration's words).
        let slots: u128 = l.lens.iter().map(|len| len.unwrap_or(1) as u128).sum();
        let per_process = slots * 48;
        let all = per_process + self.topo.n() as u128 * slots * 40;
        if let Err(m) = crate::memory::check(all, &format!("{slots} values per process")) {
            self.problems.push(
                Problem::new("guarded::instance::memory", m)
                    .help("fewer or smaller arrays per process, or fewer processes"),
            );
            l.lens.iter_mut().for_each(|len| *len = None);
        }
        // Then what random configurations draw from (reported after the domains).
        for ((d, len), v) in l.var_domains.iter().zip(&l.lens).zip(&prog.vars) {
            let from = self.random_range(v, d);
            l.offsets.push(l.domains.len());
            l.domains
                .extend(std::iter::repeat_n(d.clone(), len.unwrap_or(1)));
            l.arbitrary
                .extend(std::iter::repeat_n(from, len.unwrap_or(1)));
        }
        l
    }

    pub(super) fn array_length(&mut self, v: &ir::Var, len: &IExpr) -> usize {
        match self.eval(len) {
            Some(k) if (1..=1 << 20).contains(&k) => k as usize,
            k => {
                self.problems.push(
                    Problem::new("guarded::instance::bad_length", format!("the length of array `{}` is {}", v.name, k.map_or("not computable".into(), |k| k.to_string())))
                        .label(v.span, "declared here")
                        .help("an array has 1 to 1048576 elements; check the parameters or the topology size"),
                );
                1
            }
        }
    }

    /// What random configurations draw `v` from: its domain `d`, or its
    /// declared `random lo..hi` within it.
    pub(super) fn random_range(&mut self, v: &ir::Var, d: &VarDomain) -> VarDomain {
        let (Some((lo, hi)), VarDomain::Range(dlo, dhi)) = (&v.random, d) else {
            return d.clone();
        };
        match (self.eval(lo), self.eval(hi)) {
            (Some(lo), Some(hi)) if *dlo <= lo && lo <= hi && hi <= *dhi => {
                VarDomain::Range(lo, hi)
            }
            (lo, hi) => {
                let show = |x: Option<i64>| x.map_or("?".into(), |x| x.to_string());
                self.problems.push(
                    Problem::new("guarded::instance::random_range", format!("`random {}..{}` of `{}` is not a non-empty part of its domain {dlo}..{dhi}", show(lo), show(hi), v.name))
                        .label(v.span, "declared here")
                        .help("the range random configurations draw from must lie within the domain"),
                );
                d.clone()
            }
        }
    }

    /// The channel capacity, how many messages a random configuration
    /// puts in a channel, and each message type's field domains.
    pub(super) fn channels(&mut self) -> ChannelSetup {
        let prog = self.prog;
        let capacity = prog
            .capacity
            .as_ref()
            .and_then(|(e, _, span)| match self.eval(e) {
                Some(c) if (1..=1 << 16).contains(&c) => Some(c as usize),
                c => {
                    self.problems.push(
                        Problem::new(
                            "guarded::instance::bad_capacity",
                            format!(
                                "the channel capacity is {}",
                                c.map_or("not computable".into(), |c| c.to_string())
                            ),
                        )
                        .label(*span, "declared here")
                        .help("a channel holds 1 to 65536 messages"),
                    );
                    None
                }
            });
        let random_fill = match (&prog.capacity, capacity) {
            (Some((_, Some((lo, hi)), span)), Some(cap)) => match (self.eval(lo), self.eval(hi)) {
                (Some(lo), Some(hi)) if 0 <= lo && lo <= hi && hi as usize <= cap => {
                    (lo as usize, hi as usize)
                }
                _ => {
                    self.problems.push(
                        Problem::new(
                            "guarded::instance::random_range",
                            "the random channel fill is not within 0..capacity",
                        )
                        .label(*span, "declared here")
                        .help("`channel capacity K random lo..hi` needs 0 <= lo <= hi <= K"),
                    );
                    (0, cap)
                }
            },
            (_, cap) => (0, cap.unwrap_or(0)),
        };
        // Without a message type a channel can hold nothing: random
        // starts leave it empty, and a fill of at least one is refused.
        let random_fill = match (&prog.capacity, prog.messages.is_empty()) {
            (Some((_, _, span)), true) if random_fill.0 > 0 => {
                self.problems.push(
                    Problem::new(
                        "guarded::instance::random_range",
                        "the random channel fill asks for messages, and the program declares no message type",
                    )
                    .label(*span, "declared here")
                    .help("declare a `message` type, or fill the channels with `random 0..0`"),
                );
                (0, 0)
            }
            (_, true) => (0, 0),
            (_, false) => random_fill,
        };
        let delay = self.delay(capacity);
        let message_domains = prog
            .messages
            .iter()
            .map(|m| {
                m.fields
                    .iter()
                    .map(|(name, _, d)| {
                        self.domain(d, &format!("field `{name}` of `{}`", m.name), None)
                    })
                    .collect()
            })
            .collect();
        ChannelSetup {
            capacity,
            delay,
            random_fill,
            message_domains,
        }
    }

    /// `delay lo..hi`: how many ticks a message takes, 1 <= lo <= hi <=
    /// [`MAX_DELAY`]; a program with edge variables is refused (in ticks a
    /// process writes only its own variables and sends messages).
    fn delay(&mut self, capacity: Option<usize>) -> Option<(u16, u16)> {
        let prog = self.prog;
        let (lo, hi, span) = prog.delay.as_ref()?;
        let span = *span;
        if let Some(v) = prog.vars.iter().find(|v| v.kind == VarKind::Edge) {
            self.problems.push(
                Problem::new(
                    "guarded::instance::edge_var_in_ticks",
                    format!("the edge variable `{}` in a program that runs in ticks", v.name),
                )
                .label(v.span, "declared here")
                .label(span, "this `delay` makes the program run in ticks")
                .help("in ticks processes share nothing but messages; replace the edge variable by a variable at each end, kept in step by messages"),
            );
        }
        match (self.eval(lo), self.eval(hi)) {
            (Some(lo), Some(hi)) if 1 <= lo && lo <= hi && hi <= i64::from(MAX_DELAY) => {
                capacity.map(|_| (lo as u16, hi as u16))
            }
            (lo, hi) => {
                let show = |v: Option<i64>| v.map_or("?".into(), |v| v.to_string());
                self.problems.push(
                    Problem::new(
                        "guarded::instance::bad_delay",
                        format!("the message delay {}..{} is not a range of ticks", show(lo), show(hi)),
                    )
                    .label(span, "the delay in ticks")
                    .help(format!("`delay lo..hi` needs 1 <= lo <= hi <= {MAX_DELAY}: a message arrives at the earliest one tick after it is sent")),
                );
                None
            }
        }
    }
}

/// The bit of slot `slot` of a row in the masks of slots that
/// [`CAction::guard_reads`] and [`CAction::writes`] keep: slots from 63 on
/// share bit 63.
#[inline(always)]
pub fn slot_bit(slot: usize) -> u64 {
    1 << slot.min(63)
}

/// Every slot of a row of `stride` slots, as a mask of [`slot_bit`]s.
pub fn every_slot(stride: usize) -> u64 {
    match stride {
        64.. => u64::MAX,
        _ => (1 << stride) - 1,
    }
}

impl Compiler<'_> {
    /// The slots of a row `action`'s guard reads (see
    /// [`CAction::guard_reads`]).
    pub(super) fn guard_reads(&self, action: &ir::Action) -> ir::GuardReads {
        match &action.receive {
            // It reads a channel: no mask of slots says it all.
            Some(_) => ir::GuardReads::ALL,
            None => self.slots_of(ir::guard_reads(&action.guard, action.binder.as_ref())),
        }
    }

    /// `reads` (by variable) by the slots of a row the variables take.
    fn slots_of(&self, reads: ir::GuardReads) -> ir::GuardReads {
        ir::GuardReads {
            anywhere: self.slots_of_vars(reads.anywhere),
            others: self.slots_of_vars(reads.others),
            at_self: self.slots_of_vars(reads.at_self),
            // The node variable's slot, and the slots read where it points.
            named: (reads.named).map(|(p, vars)| (self.offsets[p], self.slots_of_vars(vars))),
            under: (reads.under).map(|(v, vars)| (self.offsets[v], self.slots_of_vars(vars))),
            others_elsewhere: self.slots_of_vars(reads.others_elsewhere),
            cost: reads.cost,
        }
    }

    /// The slots (bits as [`slot_bit`] gives them) of the variables
    /// `vars` (bits as [`ir::var_bit`] gives them).
    fn slots_of_vars(&self, vars: u64) -> u64 {
        if vars == u64::MAX {
            return u64::MAX;
        }
        (self.offsets.iter().zip(&self.lens).enumerate())
            .filter(|&(v, _)| vars & ir::var_bit(v) != 0)
            .flat_map(|(_, (&first, &len))| first..first + len)
            .fold(0, |m, slot| m | slot_bit(slot))
    }

    /// The slots of a row `b` reads, at any process (all of them where it
    /// reads more than rows: enabled processes, messages, draws).
    pub(super) fn slots_read(&self, b: &ir::BExpr) -> u64 {
        self.slots_of(ir::guard_reads(b, None)).anywhere
    }

    /// The slots of its own row `action`'s statement may write.
    pub(super) fn slots_written(&self, action: &ir::Action) -> u64 {
        self.slots_of_vars(ir::writes(&action.body))
    }

    /// Numbers every role's actions in one sequence (their places), and
    /// says which roles leave guards alone (see
    /// [`CRole::leaves_guards_alone`]): a guard that costs more than a read
    /// or two and that reads, at other processes, nothing some action
    /// writes (Dijkstra's guards cost a read or two; a guard that reads
    /// a variable every action writes is never left alone).
    pub(super) fn finish_roles(&self, roles: &mut [CRole]) {
        let places = roles.iter_mut().flat_map(|r| r.actions.iter_mut());
        for (k, action) in places.enumerate() {
            action.place = k as u32;
        }
        let writes: Vec<u64> = roles
            .iter()
            .flat_map(|r| &r.actions)
            .map(|a| a.writes)
            .collect();
        let under = slot_readers::under_slot(roles.iter().flat_map(|r| &r.actions));
        for role in roles.iter_mut() {
            let gains = role.actions.iter().any(|a| {
                let reads = a.guard_reads;
                reads.cost >= 4 && writes.iter().any(|w| reads.others & w == 0)
            });
            role.slot_readers = gains
                .then(|| SlotReaders::of(&role.actions, under))
                .flatten();
            role.leaves_guards_alone = role.slot_readers.is_some();
        }
    }
}
