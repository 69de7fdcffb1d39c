//! Messages in Promela, from a given start. Each
//! channel (a directed edge, numbered as the runtime numbers them) is a
//! fixed run of `capacity` slots, head first: its length, and each slot's
//! message type, fields and rank. The rank orders the messages in
//! transit to one process by age (0 the oldest), which is what its
//! choice among its receives reads (the oldest message first); how old
//! messages to different processes are against one another is read by
//! nothing, and kept by neither the model nor `verify`. Ranks are
//! renumbered when a message is taken and empty slots hold zeros, so that a
//! configuration has one representation, as `verify` keeps it: SPIN's
//! states are then `verify`'s configurations (plus the one before the
//! start). The synchronous step reads the channels in a copy from before
//! it, and takes every mover's message before any statement sends.

use super::expr::conjunction;
use super::{promela_type, Tr, Untranslatable, Val};
use crate::check::ir::{Action, IExpr, Value};
use crate::compile::VarDomain;
use crate::span::Span;
use crate::state::channels::Channels;
use std::fmt::Write;

/// The most channel slots a model unrolls (each taken message renumbers
/// every slot's rank).
const MOST_SLOTS: usize = 4096;

/// Where the channels' contents are kept in the model.
pub(super) struct Layout {
    arcs: usize,
    capacity: usize,
    /// The Promela type of each field position (over every message type).
    field_types: Vec<&'static str>,
    /// The process each channel leads to.
    receivers: Vec<u32>,
    /// The channels into each process ([`crate::topology::Topology::arcs_into`]).
    into: Vec<Vec<u32>>,
}

impl Layout {
    /// The layout of `t`'s channels; `None` where the program passes no
    /// messages.
    pub(super) fn of(t: &Tr) -> Result<Option<Layout>, Untranslatable> {
        let Some(capacity) = t.code.capacity else {
            return Ok(None);
        };
        if let Some((_, _, span)) = &t.prog.delay {
            return Err(Untranslatable::new(
                "messages that take time (`delay`: the program runs in ticks)",
                Some(*span),
            ));
        }
        let arcs = (0..t.topo.n()).map(|p| t.topo.nbrs(p).len()).sum::<usize>();
        let span = t.prog.capacity.as_ref().map(|c| c.2);
        if arcs.saturating_mul(capacity) > MOST_SLOTS {
            return Err(Untranslatable::new(
                format!(
                    "{arcs} channels of {capacity} messages (more than {MOST_SLOTS} slots to unroll)"
                ),
                span,
            ));
        }
        let n = t.topo.n() as i64;
        let mut ranges: Vec<(i64, i64)> = Vec::new();
        for fields in &t.code.message_domains {
            for (j, d) in fields.iter().enumerate() {
                let (lo, hi) = match *d {
                    VarDomain::Bool => (0, 1),
                    VarDomain::Range(lo, hi) => (lo, hi),
                    VarDomain::Enum(len) => (0, len as i64 - 1),
                    VarDomain::Node => (0, n - 1),
                };
                match ranges.get_mut(j) {
                    Some(r) => *r = (r.0.min(lo), r.1.max(hi)),
                    None => ranges.push((lo, hi)),
                }
            }
        }
        let field_types = ranges
            .iter()
            .map(|&(lo, hi)| promela_type(&VarDomain::Range(lo, hi), t.topo.n()))
            .collect::<Result<_, _>>()
            .map_err(|mut e| {
                e.span = span;
                e
            })?;
        Ok(Some(Layout {
            arcs,
            capacity,
            field_types,
            receivers: Channels::receivers(t.topo),
            into: (0..t.topo.n())
                .map(|p| t.topo.arcs_into(p).to_vec())
                .collect(),
        }))
    }

    /// The channels into process `to`.
    fn arcs_into(&self, to: u32) -> impl Iterator<Item = usize> + '_ {
        self.into[to as usize].iter().map(|&a| a as usize)
    }

    /// The index of slot `i` of channel `arc`.
    fn slot(&self, arc: usize, i: usize) -> usize {
        arc * self.capacity + i
    }

    /// The channels' arrays, and the hidden variables a step uses (with
    /// `copies`, those the synchronous step reads the channels from).
    pub(super) fn declare(&self, out: &mut String, copies: bool) {
        let (arcs, slots) = (self.arcs.max(1), (self.arcs * self.capacity).max(1));
        let _ = writeln!(
            out,
            "/* channels: {} of {} messages, head first; a slot's rank is its message's age among those to its receiver (0: the oldest) */",
            self.arcs, self.capacity
        );
        let _ = writeln!(out, "byte c_len[{arcs}];");
        let _ = writeln!(out, "byte c_kind[{slots}];");
        let _ = writeln!(out, "byte c_rank[{slots}];");
        for (j, ty) in self.field_types.iter().enumerate() {
            let _ = writeln!(out, "{ty} c_f{j}[{slots}];");
            let _ = writeln!(out, "hidden int m{j};");
        }
        if copies {
            let _ = writeln!(out, "hidden byte o_c_len[{arcs}];");
            let _ = writeln!(out, "hidden byte o_c_kind[{slots}];");
            let _ = writeln!(out, "hidden byte o_c_rank[{slots}];");
            for (j, ty) in self.field_types.iter().enumerate() {
                // SPIN hides no bits: a boolean's copy is a byte.
                let ty = if *ty == "bool" { "byte" } else { ty };
                let _ = writeln!(out, "hidden {ty} o_c_f{j}[{slots}];");
            }
        }
        if copies {
            let _ = writeln!(out, "hidden int a0;");
        }
        let _ = writeln!(out, "hidden byte r0;");
        let _ = writeln!(out, "hidden int s0;");
    }

    /// The copies of the channels' arrays the synchronous step reads.
    pub(super) fn copy(&self) -> Vec<String> {
        let slots = self.arcs * self.capacity;
        let mut arrays = vec![("c_len", self.arcs), ("c_kind", slots), ("c_rank", slots)];
        let fields: Vec<String> = (0..self.field_types.len())
            .map(|j| format!("c_f{j}"))
            .collect();
        arrays.extend(fields.iter().map(|f| (f.as_str(), slots)));
        arrays
            .into_iter()
            .flat_map(|(a, len)| (0..len).map(move |i| format!("o_{a}[{i}] = {a}[{i}]")))
            .collect()
    }

    /// Under the synchronous daemon, the head a mover takes, taken before
    /// any statement runs (a channel's room counts the head its receiver
    /// takes in the step, whoever sends first): which channel, from the
    /// moves of `moves` (one process's, firing on the copy) that receive,
    /// then one take of it.
    pub(super) fn take_for(&self, moves: &[super::stmt::Move]) -> Option<String> {
        let branches: Vec<(String, usize)> = moves
            .iter()
            .filter_map(|m| Some((m.fires.clone(), m.takes?)))
            .collect();
        self.take_when(&branches)
    }

    /// [`Layout::take_for`] of the channel of the first of `branches`
    /// (condition, channel) whose condition holds.
    pub(super) fn take_when(&self, branches: &[(String, usize)]) -> Option<String> {
        // One process's moves: every channel leads to it.
        let to = self.receivers[branches.first()?.1];
        let branches: Vec<String> = branches
            .iter()
            .map(|(when, arc)| format!(":: {when} -> a0 = {arc}"))
            .collect();
        Some(format!(
            "if\n{}\n:: else -> a0 = -1\nfi;\nif\n:: a0 >= 0 ->\n{}\n:: else -> skip\nfi",
            branches.join("\n"),
            super::stmt::indent(&self.take_from("a0", to))
        ))
    }

    /// How many messages are in transit to process `to`.
    fn total(&self, to: u32) -> String {
        let terms: Vec<String> = self.arcs_into(to).map(|k| format!("c_len[{k}]")).collect();
        if terms.is_empty() {
            "0".into()
        } else {
            format!("({})", terms.join(" + "))
        }
    }

    /// Channel `arc`'s head taken: the rest moved up, the freed slot
    /// cleared, and the ranks of the younger messages to its receiver
    /// moved down.
    fn take(&self, arc: usize) -> String {
        self.take_from(&arc.to_string(), self.receivers[arc])
    }

    /// [`Layout::take`] of the channel numbered `arc` (a Promela
    /// expression), into process `to`. Loops, not unrolled: SPIN bounds
    /// how long a `d_step` may be.
    fn take_from(&self, arc: &str, to: u32) -> String {
        let cap = self.capacity;
        let (first, last) = (
            format!("{arc} * {cap}"),
            format!("{arc} * {cap} + {}", cap - 1),
        );
        let mut arrays = vec!["c_kind".to_string(), "c_rank".to_string()];
        arrays.extend((0..self.field_types.len()).map(|j| format!("c_f{j}")));
        let shift: Vec<String> = arrays
            .iter()
            .map(|a| format!("{a}[s0] = {a}[s0 + 1]"))
            .collect();
        let clear: Vec<String> = arrays.iter().map(|a| format!("{a}[{last}] = 0")).collect();
        // The ranks of the messages to `to`, channel by channel.
        let younger: Vec<String> = self
            .arcs_into(to)
            .map(|a| {
                format!(
                    "s0 = {};\ndo\n:: s0 < {} -> c_rank[s0] = c_rank[s0] - (c_rank[s0] > r0 -> 1 : 0); s0 = s0 + 1\n:: else -> break\nod",
                    self.slot(a, 0),
                    self.slot(a, cap)
                )
            })
            .collect();
        [
            format!("r0 = c_rank[{first}]"),
            format!("s0 = {first}"),
            format!(
                "do\n:: s0 < {last} -> {}; s0 = s0 + 1\n:: else -> break\nod",
                shift.join("; ")
            ),
            clear.join(";\n"),
            format!("c_len[{arc}] = c_len[{arc}] - 1"),
            younger.join(";\n"),
        ]
        .join(";\n")
    }

    /// A message of type `kind` with the fields in `values` (Promela
    /// variables) appended to channel `arc`, the youngest in transit to
    /// its receiver.
    fn append(&self, arc: usize, kind: usize, values: &[String]) -> String {
        // The slot's index, its length taken modulo the capacity (which
        // the assertion makes no change) so that C compilers see it stay
        // within the arrays (else they warn it may not).
        let at = "s0";
        let cap = self.capacity;
        let mut out = vec![
            format!("assert(c_len[{arc}] < {cap})"),
            format!("s0 = {} + c_len[{arc}] % {cap}", self.slot(arc, 0)),
            format!("c_rank[{at}] = {}", self.total(self.receivers[arc])),
            format!("c_kind[{at}] = {kind}"),
        ];
        for (j, v) in values.iter().enumerate() {
            out.push(format!("c_f{j}[{at}] = {v}"));
        }
        out.push(format!("c_len[{arc}] = c_len[{arc}] + 1"));
        out.join(";\n")
    }

    /// How many messages (of type `kind`, or any) channel `arc` holds.
    fn count(&self, arc: usize, kind: Option<usize>) -> String {
        let Some(kind) = kind else {
            return format!("c_len[{arc}]");
        };
        let terms: Vec<String> = (0..self.capacity)
            .map(|i| {
                format!(
                    "((c_len[{arc}] > {i} && c_kind[{}] == {kind}) -> 1 : 0)",
                    self.slot(arc, i)
                )
            })
            .collect();
        format!("({})", terms.join(" + "))
    }

    /// The assignments that put `chans`' contents in the model, each
    /// message ranked by its age among those to its receiver.
    pub(super) fn start(&self, chans: &Channels) -> Result<Vec<String>, Untranslatable> {
        let mut by_age: Vec<(u32, u64, usize, usize)> = Vec::new();
        for (arc, queue) in chans.queues.iter().enumerate() {
            if queue.len() > self.capacity {
                return Err(Untranslatable::new(
                    format!(
                        "a start with more than {} messages in a channel",
                        self.capacity
                    ),
                    None,
                ));
            }
            let to = self.receivers[arc];
            by_age.extend(queue.iter().enumerate().map(|(i, m)| (to, m.seq, arc, i)));
        }
        by_age.sort_unstable();
        let mut out = Vec::new();
        for (k, &(to, _, arc, i)) in by_age.iter().enumerate() {
            // Those before it to the same receiver.
            let rank = by_age[..k].iter().filter(|b| b.0 == to).count();
            let m = &chans.queues[arc][i];
            let s = self.slot(arc, i);
            out.push(format!("c_kind[{s}] = {}", m.kind));
            out.push(format!("c_rank[{s}] = {rank}"));
            for (j, v) in m.fields.iter().take(self.field_types.len()).enumerate() {
                if *v != 0 {
                    out.push(format!("c_f{j}[{s}] = {v}"));
                }
            }
        }
        for (arc, queue) in chans.queues.iter().enumerate() {
            if !queue.is_empty() {
                out.push(format!("c_len[{arc}] = {}", queue.len()));
            }
        }
        Ok(out)
    }
}

/// A receive action's instance: the message it takes from `sender`'s
/// channel, the condition that it qualifies (the head is of its type and
/// the guard holds for it), and that it is the one the process takes.
pub(super) struct Receive {
    pub(super) sender: usize,
    pub(super) arc: usize,
    pub(super) qualifies: String,
    pub(super) taken: String,
}

impl Tr<'_> {
    /// The name of channel array `name` as this place reads it: the copy
    /// from before the step where the synchronous daemon reads it.
    fn chan(&self, name: &str) -> String {
        if self.reading_old {
            format!("o_{name}")
        } else {
            name.to_string()
        }
    }

    fn layout(&self, span: Option<Span>) -> Result<&Layout, Untranslatable> {
        self.channels
            .ok_or_else(|| Untranslatable::new("messages without channels", span))
    }

    /// `t` with the receive `r` of action `a` bound to the head of
    /// `sender`'s channel `arc`, its fields read through `field` (the
    /// head's slot in a guard, the copies `m0`... in a statement).
    fn receiving(&self, a: &Action, sender: usize, field: impl Fn(usize) -> String) -> Tr<'_> {
        let (_, from, fields) = a.receive.as_ref().expect("a receive action");
        let mut t = self.clone();
        let most = fields.iter().chain([from]).max().map_or(0, |m| m + 1);
        if t.locals.len() < most {
            t.locals.resize(most, None);
        }
        t.locals[*from] = Some(Val::Const(sender as i64));
        for (j, slot) in fields.iter().enumerate() {
            t.locals[*slot] = Some(Val::Dyn(field(j)));
        }
        t
    }

    /// The receive instances of the actions of one priority, `group` (with
    /// their places in program order), one per sender whose channel's head
    /// may qualify: of those qualifying, the process takes the oldest
    /// message, and of actions that would take the same one, the first in
    /// program order (as `guarded::runtime::choose` chooses).
    pub(super) fn receives(
        &self,
        group: &[(usize, &Action)],
    ) -> Result<Vec<(usize, Receive)>, Untranslatable> {
        let mut found = Vec::new();
        for &(place, a) in group {
            let Some((kind, _, _)) = &a.receive else {
                continue;
            };
            let layout = self.layout(Some(a.span))?;
            for &s in self.topo.readers(self.me) {
                let sender = s as usize;
                let arc = self
                    .topo
                    .arc(sender, self.me)
                    .expect("a reader sends to it");
                let head = layout.slot(arc, 0);
                let field = self.chan("c_f");
                let t = self.receiving(a, sender, |j| format!("{field}{j}[{head}]"));
                if t.bconstant(&a.guard) == Some(false) {
                    continue;
                }
                let qualifies = format!(
                    "({}[{arc}] > 0 && {}[{head}] == {kind} && {})",
                    self.chan("c_len"),
                    self.chan("c_kind"),
                    t.bexpr(&a.guard)?
                );
                found.push((place, sender, arc, qualifies));
            }
        }
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let layout = self.layout(None)?;
        let ranks = self.chan("c_rank");
        let rank = |arc: usize| format!("{ranks}[{}]", layout.slot(arc, 0));
        let mut out = Vec::new();
        for (k, (place, sender, arc, qualifies)) in found.iter().enumerate() {
            let mut taken = vec![qualifies.clone()];
            for (j, (other_place, _, other_arc, other)) in found.iter().enumerate() {
                if j == k {
                    continue;
                }
                if other_arc == arc {
                    // The same message: the first action in program order takes it.
                    if other_place < place {
                        taken.push(format!("!{other}"));
                    }
                } else {
                    taken.push(format!(
                        "(!{other} || {} > {})",
                        rank(*other_arc),
                        rank(*arc)
                    ));
                }
            }
            out.push((
                *place,
                Receive {
                    sender: *sender,
                    arc: *arc,
                    qualifies: qualifies.clone(),
                    taken: conjunction(taken),
                },
            ));
        }
        Ok(out)
    }

    /// What the move of action `a` taking `r` does: the head copied and
    /// taken, then the action's statement, which reads the copies. Under
    /// the synchronous daemon the head is taken before any process's
    /// statement runs (see [`Layout::take_for`]), and the statement reads
    /// its fields in the copy from before the step.
    pub(super) fn receive_body(&self, a: &Action, r: &Receive) -> Result<String, Untranslatable> {
        let layout = self.layout(Some(a.span))?;
        let head = layout.slot(r.arc, 0);
        if self.reading_old {
            let t = self.receiving(a, r.sender, |j| format!("o_c_f{j}[{head}]"));
            return t.stmt(&a.body);
        }
        let (_, _, fields) = a.receive.as_ref().expect("a receive action");
        let mut out: Vec<String> = (0..fields.len())
            .map(|j| format!("m{j} = c_f{j}[{head}]"))
            .collect();
        out.push(layout.take(r.arc));
        let take = self.sealed(out.join(";\n"));
        let t = self.receiving(a, r.sender, |j| format!("m{j}"));
        Ok(format!("{take};\n{}", t.stmt(&a.body)?))
    }

    /// `send kind(values) to to`: each value checked against its field's
    /// domain, then appended to the channel to that neighbour.
    pub(super) fn send(
        &self,
        kind: usize,
        values: &[Value],
        to: &IExpr,
        span: Span,
    ) -> Result<String, Untranslatable> {
        let layout = self.layout(Some(span))?;
        let mut out = Vec::new();
        let mut names = Vec::new();
        for (j, v) in values.iter().enumerate() {
            let value = match v {
                Value::Int(e) => self.iexpr(e)?,
                Value::Bool(b) => format!("({} -> 1 : 0)", self.bexpr(b)?),
                Value::Array(..) => {
                    return Err(Untranslatable::new(
                        "an array sent in a message",
                        Some(span),
                    ))
                }
            };
            out.push(format!("t{j} = {value}"));
            let n = self.topo.n();
            match self.code.message_domains[kind].get(j) {
                Some(VarDomain::Range(lo, hi)) => {
                    out.push(format!("assert({lo} <= t{j} && t{j} <= {hi})"))
                }
                Some(VarDomain::Node) => out.push(format!("assert(0 <= t{j} && t{j} < {n})")),
                _ => {}
            }
            names.push(format!("t{j}"));
        }
        self.temporaries
            .set(self.temporaries.get().max(values.len()));
        let arc_to = |q: usize| {
            self.topo.arc(self.me, q).ok_or_else(|| {
                Untranslatable::new(
                    format!("a send from {} to {q}, which is not its neighbour", self.me),
                    Some(span),
                )
            })
        };
        match self.constant(to) {
            Some(q) => out.push(layout.append(arc_to(q as usize)?, kind, &names)),
            None => {
                let to = self.iexpr(to)?;
                let mut branches = Vec::new();
                for &q in self.topo.nbrs(self.me) {
                    let append = layout.append(arc_to(q as usize)?, kind, &names);
                    branches.push(format!(
                        ":: ({to}) == {q} ->\n{}",
                        super::stmt::indent(&append)
                    ));
                }
                branches.push(":: else -> assert(false)".into());
                out.push(format!("if\n{}\nfi", branches.join("\n")));
            }
        }
        Ok(out.join(";\n"))
    }

    /// `msgs(p, q, kind)`: the messages (of type `kind`) in the channel
    /// from `p` to `q`, both known here.
    pub(super) fn msgs(
        &self,
        (p, q): (usize, usize),
        kind: Option<usize>,
        span: Span,
    ) -> Result<String, Untranslatable> {
        let layout = self.layout(Some(span))?;
        match self.topo.arc(p, q) {
            Some(arc) => Ok(layout.count(arc, kind)),
            None => Err(Untranslatable::new(
                format!("`msgs` from {p} to {q}, which are not neighbours"),
                Some(span),
            )),
        }
    }
}
