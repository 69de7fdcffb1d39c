//! Each process's first enabled action and moves, remembered per value of
//! what it sees, in programs with channels: a search from a start meets
//! the same views again and again (Chang and Roberts' ring of 9: a few
//! hundred a process among three million configurations), where
//! interpreting every guard of every process took over a third of the
//! search.
//!
//! What a process sees is its own row and its neighbours' (reads are
//! local), and of the channels into it only their heads: `receive` takes
//! the oldest head a guard accepts, so the heads' order by age is part
//! of the view (`msgs` is allowed in global predicates only, and a
//! message's place in its channel is seen by no guard). Programs that
//! run in ticks are left to the interpreter: a head there is visible
//! only once it has arrived, and timers are read besides. A view whose
//! guards fault is not remembered (the interpreter reports it each
//! time); a view whose moves fault keeps its first action and leaves its
//! moves to the interpreter, which reports the fault where it did.

use super::encoded_step::Effect;
use super::view_key::ViewPacking;
use crate::check::ir::{reads_own_variables_only, VarKind};
use crate::compile::NO_ACTION;
use crate::load::Instance;
use crate::runtime::step::{Move, RunError, StepRelation};
use crate::state::channels::MAX_FIELDS;
use crate::state::Config;
use rustc_hash::FxHashMap;

/// The most views remembered (beyond, the interpreter answers): some
/// tens of bytes each.
const MOST_VIEWS: usize = 1 << 20;

/// Each process's first enabled action in `cfg` (or `NO_ACTION`) into
/// `chosen`: from `views` where there are (see [`ViewMemo::chosen_into`]),
/// else from the interpreter.
pub(super) fn chosen_into(
    views: Option<&mut ViewMemo>,
    rel: &mut StepRelation,
    cfg: &Config,
    chosen: &mut Vec<u16>,
) -> Result<(), RunError> {
    match views {
        Some(views) => views.chosen_into(rel, cfg, chosen),
        None => rel.chosen_into(cfg, chosen),
    }
}

/// What a process does in one view.
struct Remembered {
    /// Its first enabled action, or `NO_ACTION`.
    first: u16,
    /// Its moves, as [`StepRelation::moves_into`] lists them; `None`
    /// where listing them faults.
    moves: Option<Box<[Move]>>,
    /// Where they are remembered, what each of its moves does taken
    /// alone; `None` where one faults.
    effects: Option<Box<[Effect]>>,
}

/// The views of one thread's search, and what each process does in them.
pub(super) struct ViewMemo {
    stride: usize,
    /// Whether every move is listed, or the first enabled action's alone.
    every: bool,
    /// Per process: the processes whose rows it reads, in increasing order.
    rows_read: Vec<Box<[u32]>>,
    /// Per process (with at most 64): those whose views its move may
    /// change, as bits: those that read its row, itself included, and
    /// those it sends to.
    readers_of: Vec<u64>,
    /// Per process: the channels into it.
    arcs_into: Vec<Box<[u32]>>,
    /// Per message type: how many fields it has.
    arity: Vec<usize>,
    /// A view's number, by its values, where they do not pack in a
    /// number (see `view_key.rs`): the process, the rows it reads,
    /// and per channel into it, its head (type and fields, or -1 where
    /// empty) and the head's rank by age among the heads.
    numbers: FxHashMap<Box<[i64]>, u32>,
    /// A view's number, by its values packed in a number.
    packed: FxHashMap<u128, u32>,
    packing: ViewPacking,
    /// The rows of the configuration loaded last, gathered in words.
    row_words: Vec<u64>,
    remembered: Vec<Remembered>,
    /// Per process: its view's number in the configuration loaded last
    /// (`u32::MAX`: interpreted).
    loaded: Vec<u32>,
    key: Vec<i64>,
    one: Vec<Move>,
    /// Where what moves do is remembered (a program without edge
    /// variables): a configuration to take each move into once.
    stepped: Option<Config>,
}

impl ViewMemo {
    /// A memo for `inst`'s processes listing `every` move or the first
    /// enabled action's; `None` where the program has no channels or runs
    /// in ticks.
    pub(super) fn new(inst: &Instance, every: bool) -> Option<Self> {
        if inst.code.capacity.is_none() || inst.runs_in_ticks() {
            return None;
        }
        let topo = &inst.topo;
        // A program whose actions read their own process's variables only
        // (and no edge variable, which a neighbour's move may write) sees
        // its own row alone: views then are fewer, and a move changes
        // fewer of them.
        let prog = &inst.prog;
        let own_rows_only = prog.vars.iter().all(|v| v.kind != VarKind::Edge)
            && prog
                .roles
                .iter()
                .flat_map(|r| &r.actions)
                .all(reads_own_variables_only);
        let rows_read: Vec<Box<[u32]>> = (0..topo.n())
            .map(|p| {
                let mut read = vec![p as u32];
                if !own_rows_only {
                    read.extend_from_slice(topo.nbrs(p));
                    read.extend_from_slice(topo.readers(p));
                }
                read.sort_unstable();
                read.dedup();
                read.into_boxed_slice()
            })
            .collect();
        let arcs_into: Vec<Box<[u32]>> = (0..topo.n()).map(|p| topo.arcs_into(p).into()).collect();
        let packing = ViewPacking::new(inst, &rows_read, &arcs_into);
        // Whom a move of a process may show something new: those reading
        // its row, and those it sends to (its channels' heads).
        let mut readers_of = vec![0u64; if topo.n() <= 64 { topo.n() } else { 0 }];
        for (q, read) in rows_read.iter().enumerate().filter(|_| topo.n() <= 64) {
            for &r in read.iter().chain(topo.readers(q)) {
                readers_of[r as usize] |= 1 << q;
            }
        }
        Some(ViewMemo {
            stride: inst.code.stride,
            every,
            rows_read,
            readers_of,
            arcs_into,
            arity: inst.prog.messages.iter().map(|m| m.fields.len()).collect(),
            numbers: FxHashMap::default(),
            packed: FxHashMap::default(),
            packing,
            row_words: Vec::new(),
            remembered: Vec::new(),
            loaded: Vec::new(),
            key: Vec::new(),
            one: Vec::new(),
            stepped: None,
        })
    }

    /// This memo, remembering also what each move does alone (see
    /// `encoded_step.rs`), where the program has no edge variables (whose
    /// writes reach the neighbours' rows); `like` shapes configurations.
    pub(super) fn with_effects(mut self, inst: &Instance, like: &Config) -> Self {
        let edges = inst.prog.vars.iter().any(|v| v.kind == VarKind::Edge);
        self.stepped = (!edges).then(|| like.clone());
        self
    }

    /// Where what process `p`'s move `m` does alone in the configuration
    /// of the last [`ViewMemo::chosen_into`] is remembered: its view's
    /// number and the move's place (see [`ViewMemo::effect`]).
    fn effect_place(&self, p: usize, m: &Move) -> Option<(u32, u32)> {
        let k = *self.loaded.get(p)?;
        let remembered = self.remembered.get(k as usize)?;
        remembered.effects.as_ref()?;
        let at = remembered.moves.as_deref()?.iter().position(|x| x == m)?;
        Some((k, at as u32))
    }

    /// [`ViewMemo::effects_into`] for moves listed from this memo, `at`
    /// giving where each is (see [`ViewMemo::remembered_move`]), as a
    /// [`super::moves::Lister`] lists them: else searched for.
    pub(super) fn effects_at(
        &self,
        moves: &[Move],
        at: &[(u32, u32)],
        out: &mut Vec<(usize, (u32, u32))>,
    ) -> bool {
        if at.len() != moves.len() {
            return self.effects_into(moves, out);
        }
        out.clear();
        for (m, &(k, j)) in moves.iter().zip(at) {
            // A move interpreted (its view's number past the memo's) has no effect kept.
            let kept = self
                .remembered
                .get(k as usize)
                .and_then(|r| r.effects.as_deref());
            if kept.is_none_or(|effects| effects.len() <= j as usize) {
                return false;
            }
            out.push((m.process as usize, (k, j)));
        }
        true
    }

    /// What the move at `place` (see [`ViewMemo::effects_into`]) does.
    pub(super) fn effect(&self, (k, at): (u32, u32)) -> &Effect {
        let effects = self.remembered[k as usize].effects.as_deref();
        &effects.expect("a place found")[at as usize]
    }

    /// Where what each of a step's `moves` does is remembered (see
    /// [`ViewMemo::effect`]), by process, into `out`; whether every one is.
    pub(super) fn effects_into(&self, moves: &[Move], out: &mut Vec<(usize, (u32, u32))>) -> bool {
        out.clear();
        for m in moves {
            let p = m.process as usize;
            match self.effect_place(p, m) {
                Some(place) => out.push((p, place)),
                None => return false,
            }
        }
        true
    }

    /// Process `p`'s view in `cfg`, into `self.key`.
    fn view(&mut self, cfg: &Config, p: usize) {
        let key = &mut self.key;
        key.clear();
        key.push(p as i64);
        for &q in self.rows_read[p].iter() {
            key.extend_from_slice(cfg.row(q as usize, self.stride));
        }
        let arcs = &self.arcs_into[p];
        let head_seq = |arc: u32| cfg.chans.queues[arc as usize].front().map(|m| m.seq);
        for &arc in arcs.iter() {
            let Some(head) = cfg.chans.queues[arc as usize].front() else {
                key.push(-1);
                continue;
            };
            key.push(i64::from(head.kind));
            let arity = self.arity.get(usize::from(head.kind)).copied();
            key.extend_from_slice(&head.fields[..arity.unwrap_or(MAX_FIELDS)]);
            let older = arcs
                .iter()
                .filter(|&&a| head_seq(a).is_some_and(|s| s < head.seq))
                .count();
            key.push(older as i64);
        }
    }

    /// Each process's first enabled action in `cfg` (or `NO_ACTION`)
    /// into `chosen`, as [`StepRelation::chosen_into`] gives it, with
    /// the same first fault; [`ViewMemo::moves_into`] then lists moves
    /// in `cfg`.
    pub(super) fn chosen_into(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        chosen: &mut Vec<u16>,
    ) -> Result<(), RunError> {
        self.chosen_keeping(rel, cfg, chosen, (&[], u64::MAX))
    }

    /// [`ViewMemo::chosen_into`] of a configuration reached by a step of
    /// the processes `movers` (as bits; at most 64 processes) from one
    /// whose views were `before` (as [`ViewMemo::loaded`] gave them): a
    /// process that reads no mover's row and receives from no mover sees
    /// what it saw, and keeps its view without packing it again.
    pub(super) fn chosen_into_after(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        chosen: &mut Vec<u16>,
        (before, movers): (&[u32], u64),
    ) -> Result<(), RunError> {
        // Past 64 processes, movers are not all in the bits.
        if self.readers_of.is_empty() {
            return self.chosen_into(rel, cfg, chosen);
        }
        let (mut touched, mut left) = (0u64, movers);
        while left != 0 {
            let m = left.trailing_zeros() as usize;
            touched |= self.readers_of.get(m).copied().unwrap_or(u64::MAX);
            left &= left - 1;
        }
        self.chosen_keeping(rel, cfg, chosen, (before, touched))
    }

    /// [`ViewMemo::chosen_into`], keeping the views `before` of the
    /// processes not in `touched` (bits; `before` is empty past 64
    /// processes).
    fn chosen_keeping(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        chosen: &mut Vec<u16>,
        (before, touched): (&[u32], u64),
    ) -> Result<(), RunError> {
        chosen.clear();
        self.loaded.clear();
        self.packing.rows_into(cfg, &mut self.row_words);
        for p in 0..cfg.rows.len() / self.stride.max(1) {
            let kept = before.get(p).copied().filter(|&k| k != u32::MAX);
            let (first, k) = match kept {
                Some(k) if touched >> p & 1 == 0 => (self.remembered[k as usize].first, k),
                _ => self.chosen_one(rel, cfg, p)?,
            };
            chosen.push(first);
            self.loaded.push(k);
        }
        Ok(())
    }

    /// The views of the configuration loaded last, by process: each one's
    /// number (`u32::MAX`: interpreted).
    pub(super) fn loaded(&self) -> &[u32] {
        &self.loaded
    }

    /// Process `p`'s first enabled action in `cfg` and its view's number
    /// (`u32::MAX`: interpreted, the memo being full), its view looked up
    /// or else interpreted and remembered; `cfg`'s rows gathered in
    /// `row_words` already.
    fn chosen_one(
        &mut self,
        rel: &mut StepRelation,
        cfg: &Config,
        p: usize,
    ) -> Result<(u16, u32), RunError> {
        let packed = self.packing.pack(
            cfg,
            &self.row_words,
            p,
            &self.rows_read[p],
            &self.arcs_into[p],
        );
        let known = match packed {
            Some(key) => self.packed.get(&key),
            None => {
                self.view(cfg, p);
                self.numbers.get(&self.key[..])
            }
        };
        if let Some(&k) = known {
            return Ok((self.remembered[k as usize].first, k));
        }
        let first = rel.first_enabled(cfg, p)?.map_or(NO_ACTION, |a| a as u16);
        if self.remembered.len() >= MOST_VIEWS {
            return Ok((first, u32::MAX));
        }
        let moves: Option<Box<[Move]>> = match first {
            NO_ACTION => Some(Box::default()),
            _ => rel
                .moves_into(cfg, p, self.every, &mut self.one)
                .ok()
                .map(|()| self.one.as_slice().into()),
        };
        let effects = match (&moves, self.stepped.as_mut()) {
            (Some(moves), Some(next)) => moves
                .iter()
                .map(|m| {
                    rel.successor_of_into(cfg, std::slice::from_ref(m), next)
                        .ok()?;
                    Effect::of_last_step(rel, rel.topology())
                })
                .collect(),
            _ => None,
        };
        let k = self.remembered.len() as u32;
        self.remembered.push(Remembered {
            first,
            moves,
            effects,
        });
        match packed {
            Some(key) => self.packed.insert(key, k),
            None => self.numbers.insert(self.key.as_slice().into(), k),
        };
        Ok((first, k))
    }

    /// Process `p`'s moves in the configuration of the last
    /// [`ViewMemo::chosen_into`], where they are remembered: its view's
    /// number and the moves, as [`StepRelation::moves_into`] lists them.
    pub(super) fn remembered_moves(&self, p: usize) -> Option<(u32, &[Move])> {
        let k = *self.loaded.get(p)?;
        Some((k, self.moves_of(k)?))
    }

    /// Move `j` of those [`ViewMemo::remembered_moves`] gives for view `k`.
    pub(super) fn remembered_move(&self, k: u32, j: u32) -> Option<&Move> {
        self.moves_of(k)?.get(j as usize)
    }

    /// The moves remembered for view `k`, where listing them did not fault.
    fn moves_of(&self, k: u32) -> Option<&[Move]> {
        self.remembered.get(k as usize)?.moves.as_deref()
    }

    /// Process `p`'s moves in the configuration of the last
    /// [`ViewMemo::chosen_into`], `cfg`, into `out`, as
    /// [`StepRelation::moves_into`] lists them (`every` as this memo's).
    pub(super) fn moves_into(
        &self,
        rel: &mut StepRelation,
        cfg: &Config,
        p: usize,
        out: &mut Vec<Move>,
    ) -> Result<(), RunError> {
        match self.remembered_moves(p) {
            Some((_, moves)) => {
                out.clear();
                out.extend_from_slice(moves);
                Ok(())
            }
            None => rel.moves_into(cfg, p, self.every, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::init::InitMode;
    use std::collections::{HashSet, VecDeque};

    /// Two message types received at one priority from both neighbours
    /// (which head is older decides), a receive of a lower priority whose
    /// guard faults on some heads, a guard reading a neighbour's row, a
    /// draw and a binder.
    const PROGRAM: &str = "message ping(k: 0..2)
message pong(k: 0..2)
channel capacity 2
var hops: 0..3 = 0
var mode: 0..1 = 0
process {
    go priority 1 :: hops == 0 -> hops := 1; send ping(0) to right; send pong(1) to left
    a :: receive ping(k) from q and k != 1 -> hops := (hops + 1) mod 4; send pong((k + 1) mod 3) to q
    b :: receive pong(k) from q and mode == 0 and left.hops < 3 -> mode := random(0..1); if k < 2 { send ping(k + 1) to q }
    c :: receive pong(k) from q and mode == 1 -> mode := 0
    e for q in nbrs :: hops == 3 and q.mode == 1 -> hops := 2
    d priority 2 :: receive ping(k) from q and 6 / (k - 1) > 1 -> skip
}
";

    /// [`PROGRAM`] with its guards reading their own rows only: each
    /// view is then a process's own row and the heads into it.
    fn own_rows_program() -> String {
        let own = PROGRAM.replace("left.hops < 3", "hops < 3");
        own.replace("q.mode == 1", "mode == 1")
    }

    /// A memo of `src`'s instance on `topology`, its views of own rows
    /// only as `own` says.
    fn memo_of(src: &str, topology: &str, every: bool, own: bool) -> (Instance, ViewMemo) {
        let inst = crate::verify::test_instance(src, topology, &[]);
        let memo = ViewMemo::new(&inst, every).expect("a program with channels");
        let own_rows = memo
            .rows_read
            .iter()
            .enumerate()
            .all(|(p, r)| r[..] == [p as u32]);
        assert_eq!(own_rows, own, "{src}");
        (inst, memo)
    }

    /// What `chosen` (each process's first action, or the first fault)
    /// and each enabled process's moves say.
    fn said(
        chosen: Result<Vec<u16>, RunError>,
        mut moves_of: impl FnMut(usize, &mut Vec<Move>) -> Result<(), RunError>,
    ) -> String {
        let chosen = match chosen {
            Ok(chosen) => chosen,
            Err(e) => return format!("{e:?}"),
        };
        let mut out = format!("{chosen:?}");
        for (p, &first) in chosen.iter().enumerate() {
            if first != NO_ACTION {
                let mut moves = Vec::new();
                let listed = moves_of(p, &mut moves).map(|()| moves);
                out += &format!(" {p}: {listed:?}");
            }
        }
        out
    }

    /// What the interpreter says of `cfg`.
    fn interpreted(rel: &mut StepRelation, cfg: &Config, every: bool) -> String {
        let chosen = rel.chosen(cfg);
        said(chosen, |p, out| rel.moves_into(cfg, p, every, out))
    }

    /// What the memo says of `cfg`.
    fn remembered(memo: &mut ViewMemo, rel: &mut StepRelation, cfg: &Config) -> String {
        let mut chosen = Vec::new();
        let chosen = memo.chosen_into(rel, cfg, &mut chosen).map(|()| chosen);
        said(chosen, |p, out| memo.moves_into(rel, cfg, p, out))
    }

    /// In every configuration reached from the start (breadth first,
    /// every move of every process taken alone, the first [`MOST`]), the
    /// memo says what the interpreter says, each view met more than once:
    /// with views packed in numbers, and with views kept as lists.
    #[test]
    fn remembered_views_say_what_the_interpreter_says() {
        const MOST: usize = 20_000;
        let cases = [("ring:4", true), ("ring:3", false), ("ring:5", true)];
        let cases = cases.into_iter().flat_map(|c| [(c, true), (c, false)]);
        let own_rows = own_rows_program();
        let programs = [(PROGRAM, false), (own_rows.as_str(), true)];
        for ((src, own), ((topology, every), packed)) in programs
            .into_iter()
            .flat_map(|p| cases.clone().map(move |c| (p, c)))
        {
            let (mut inst, mut memo) = memo_of(src, topology, every, own);
            let mut start = inst.initial(&InitMode::Declared, &[]).unwrap();
            let mut rel = inst.step_relation();
            if !packed {
                memo.packing.pack_none();
            }
            start.canonicalize();
            let mut seen = HashSet::from([start.clone()]);
            let mut queue = VecDeque::from([start]);
            let mut faults = 0;
            while let Some(cfg) = queue.pop_front() {
                let said = interpreted(&mut rel, &cfg, every);
                assert_eq!(remembered(&mut memo, &mut rel, &cfg), said, "{topology}");
                // Again, from the memo's entries.
                assert_eq!(remembered(&mut memo, &mut rel, &cfg), said, "{topology}");
                let Ok(enabled) = rel.enabled(&cfg) else {
                    faults += 1;
                    continue;
                };
                for p in enabled {
                    let mut moves = Vec::new();
                    if rel.moves_into(&cfg, p as usize, true, &mut moves).is_err() {
                        continue;
                    }
                    for m in moves {
                        if let Ok(next) = rel.successor_of(&cfg, &[m]) {
                            if seen.len() < MOST && seen.insert(next.clone()) {
                                queue.push_back(next);
                            }
                        }
                    }
                }
            }
            let (views, looked_up) = (memo.remembered.len(), seen.len() * inst.topo.n());
            assert!(
                looked_up > 2 * views,
                "{topology}: {looked_up} views looked up, {views} kept"
            );
            assert!(faults > 0, "{topology}: a guard faults somewhere");
            let (numbers, lists) = (memo.packed.len(), memo.numbers.len());
            assert_eq!((numbers > 0, lists > 0), (packed, !packed), "{topology}");
        }
    }

    /// A configuration a step away from one whose views are known says,
    /// keeping the views the step did not touch, what it says looked at
    /// afresh (the first fault included): from every configuration
    /// reached on rings of 3 to 5, for every move alone and every two
    /// processes' moves together.
    #[test]
    fn views_kept_from_a_step_before_are_those_looked_at_afresh() {
        let (mut kept, mut changed, mut steps) = (0, 0, 0);
        let own_rows = own_rows_program();
        let programs = [(PROGRAM, false), (own_rows.as_str(), true)];
        let topologies = ["ring:3", "ring:4", "ring:5"];
        for ((src, own), topology) in programs
            .into_iter()
            .flat_map(|p| topologies.map(move |t| (p, t)))
        {
            let (mut inst, mut memo) = memo_of(src, topology, true, own);
            let mut start = inst.initial(&InitMode::Declared, &[]).unwrap();
            let mut rel = inst.step_relation();
            start.canonicalize();
            let mut seen = HashSet::from([start.clone()]);
            let mut queue = VecDeque::from([start]);
            let mut chosen = Vec::new();
            while let Some(cfg) = queue.pop_front() {
                if memo.chosen_into(&mut rel, &cfg, &mut chosen).is_err() {
                    continue;
                }
                let before = memo.loaded().to_vec();
                let mut every = Vec::new();
                for (p, _) in chosen.iter().enumerate().filter(|c| *c.1 != NO_ACTION) {
                    let mut moves = Vec::new();
                    if memo.moves_into(&mut rel, &cfg, p, &mut moves).is_ok() {
                        every.extend(moves);
                    }
                }
                let steps_from = crate::verify::encoded_step::tests::alone_and_in_pairs(&every);
                for step in steps_from {
                    let Ok(mut next) = rel.successor_of(&cfg, &step) else {
                        continue;
                    };
                    next.canonicalize();
                    let movers =
                        super::super::process_bits::as_bits(step.iter().map(|m| &m.process));
                    let mut after = Vec::new();
                    let got = memo
                        .chosen_into_after(&mut rel, &next, &mut after, (&before, movers))
                        .map(|()| (after, memo.loaded().to_vec()));
                    let mut afresh = Vec::new();
                    let want = memo
                        .chosen_into(&mut rel, &next, &mut afresh)
                        .map(|()| (afresh, memo.loaded().to_vec()));
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{want:?}"),
                        "{topology}: {next:?}"
                    );
                    let same = before
                        .iter()
                        .zip(memo.loaded())
                        .filter(|(a, b)| a == b)
                        .count();
                    (kept, changed) = (kept + same, changed + before.len() - same);
                    steps += 1;
                    if step.len() == 1 && seen.len() < 20_000 && seen.insert(next.clone()) {
                        queue.push_back(next);
                    }
                }
            }
        }
        // Views the steps kept, and views they changed.
        assert!(
            steps > 1000 && kept > 0 && changed > 0,
            "{steps} {kept} {changed}"
        );
    }
}
