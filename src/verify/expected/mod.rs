//! Expected stabilization time: the configurations the starts reach, each
//! with the steps a run may take from it and their probabilities, as a
//! Markov decision process. Chance is what runs draw: the daemon's choice
//! of movers where it is random (as `guarded run` draws it), the values
//! of `random(...)`, and with [`MoverChoice::Drawn`] a process's choice
//! between its enabled actions and binder members (as `guarded run
//! --choice random` draws it); the rest (the daemon's choice where it is
//! an adversary, a process's choice otherwise) is a choice, resolved to
//! make stabilization slowest. Every step is taken by the step relation.

mod flat;
mod rounds;
mod solve;

pub use solve::{
    expected, expected_rounds, no_sure_arrival, Cost, Solution, CERTIFIED_WITHIN, TOLERANCE,
};

use super::process_bits::as_bits;
use super::{tell, Progress, Refusal, Starts, PROGRESS_EVERY};
use crate::load::Instance;
use crate::runtime::daemon::Daemon;
use crate::runtime::step::Move;
use crate::state::Config;
use std::collections::HashMap;

/// The most move sets or joint choices one configuration may have.
const MOST_OPTIONS: usize = 1 << 16;

/// Who chooses the movers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Movers {
    /// Chance, as `guarded run` draws them: central, one enabled process
    /// uniformly; distributed, each enabled process with probability 1/2
    /// (one uniformly when none is drawn); synchronous, every one.
    AsRuns(Daemon),
    /// An adversary, among every move set the daemon allows.
    Adversary(Daemon),
}

impl Movers {
    fn daemon(&self) -> &Daemon {
        match self {
            Movers::AsRuns(d) | Movers::Adversary(d) => d,
        }
    }
}

/// How each mover's choice between its moves (its enabled actions of the
/// most urgent priority, each member of a binder) is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoverChoice {
    /// Each move a choice of its own, the slowest counting (an
    /// adversary's, or the program's nondeterminism at its worst).
    Slowest,
    /// The first enabled action alone, for its binder's first member, as
    /// `guarded run` takes it.
    First,
    /// One of its moves drawn uniformly, as `guarded run --choice random`
    /// draws it: a step's movers draw apart, so each joint choice is as
    /// likely as any other.
    Drawn,
}

/// One way a step may go once its movers are drawn: how many moves it
/// makes and where it leads, with what probability (the draws').
#[derive(Clone, Debug)]
pub struct Choice {
    /// The moves of the step.
    pub moves: u32,
    /// Its movers as bits (those past 64 left out).
    pub movers: u64,
    /// Each configuration it may lead to, and the probability.
    pub to: Vec<(u32, f64)>,
}

/// One draw of the movers, with its probability, and the choices left.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Its probability.
    pub weight: f64,
    /// The choices an adversary (or the program's nondeterminism) has.
    pub choices: Vec<Choice>,
}

/// The configurations reached and the steps between them.
pub struct Model {
    /// Each configuration, numbered in the order reached (starts first).
    pub configs: Vec<Config>,
    /// How many of them are starts.
    pub starts: usize,
    /// Whether each is legitimate (where a run's time ends).
    pub legit: Vec<bool>,
    /// Per configuration outside legitimacy, its outcomes (none where no
    /// process is enabled).
    pub outcomes: Vec<Vec<Outcome>>,
    /// About the bytes it takes, index included.
    pub bytes: u64,
}

impl Model {
    /// Whether every step makes one move (the central daemon's): then the
    /// expected moves are the expected steps, the same sweeps over the
    /// same costs.
    pub fn one_move_a_step(&self) -> bool {
        (self.outcomes.iter().flatten())
            .flat_map(|o| &o.choices)
            .all(|c| c.moves == 1)
    }
}

/// The model of `inst` from `starts`, the movers chosen as `movers` says
/// and each mover's moves as `choices` says.
pub fn build(
    inst: &Instance,
    starts: Starts,
    movers: &Movers,
    choices: MoverChoice,
    most: usize,
    progress: Option<Progress>,
) -> Result<Model, Refusal> {
    if !inst.code.timers.is_empty() || inst.runs_in_ticks() {
        return Err(Refusal::Unsupported(
            "expected times are computed for programs without timers, whose steps are moves (not ticks)".into(),
        ));
    }
    if matches!(movers, Movers::AsRuns(Daemon::LocallyCentral)) {
        return Err(Refusal::Unsupported(
            "a random locally-central daemon draws its movers one after another, a distribution this analysis does not take: use --adversary".into(),
        ));
    }
    let mut b = Builder {
        inst,
        rel: inst.step_relation(),
        movers,
        every: choices != MoverChoice::First,
        drawn: choices == MoverChoice::Drawn,
        index: HashMap::new(),
        receivers: crate::state::channels::Channels::receivers(&inst.topo),
        model: Model {
            configs: Vec::new(),
            starts: 0,
            legit: Vec::new(),
            outcomes: Vec::new(),
            bytes: 0,
        },
        most,
    };
    let budget = crate::memory::limit() / 2;
    if starts.count() > most as u128 {
        return Err(Refusal::TooManyReached(most as u64));
    }
    for cfg in starts.iter() {
        b.number(cfg)?;
    }
    b.model.starts = b.model.configs.len();
    let mut next = 0;
    while next < b.model.configs.len() {
        if (next as u64).is_multiple_of(PROGRESS_EVERY) {
            tell(progress, "expected: reaching", next as u64, 0)?;
        }
        let outcomes = b.outcomes_of(next)?;
        b.model.bytes += outcomes_bytes(&outcomes);
        b.model.outcomes.push(outcomes);
        next += 1;
        if b.model.bytes > budget {
            return Err(Refusal::Unsupported(format!(
                "the model passes {} MB (half the memory budget) at {} configurations: raise --memory-limit, or start from fewer (--from declared or a file)",
                budget >> 20,
                b.model.configs.len()
            )));
        }
    }
    Ok(b.model)
}

struct Builder<'a> {
    inst: &'a Instance,
    rel: crate::runtime::step::StepRelation<'a>,
    movers: &'a Movers,
    /// Whether every move of a mover is listed, and whether one of them
    /// is drawn (else each is a choice).
    every: bool,
    drawn: bool,
    /// Each configuration reached (canonical: rows and channels), by number.
    index: HashMap<Config, u32>,
    /// The process each channel leads to.
    receivers: Vec<u32>,
    model: Model,
    most: usize,
}

/// Bytes a configuration's outcomes take, about (as allocated, but the
/// allocator's own).
fn outcomes_bytes(outcomes: &[Outcome]) -> u64 {
    let choices = outcomes.iter().flat_map(|o| &o.choices);
    let steps: usize = choices
        .map(|c| size_of::<Choice>() + c.to.capacity() * size_of::<(u32, f64)>())
        .sum();
    (size_of_val(outcomes) + steps) as u64
}

impl Builder<'_> {
    /// The number of `cfg`, numbered now if new.
    fn number(&mut self, mut cfg: Config) -> Result<u32, Refusal> {
        // As verify keeps them: messages receiver by receiver.
        cfg.chans.canonicalize_by_receiver(&self.receivers);
        if let Some(&i) = self.index.get(&cfg) {
            return Ok(i);
        }
        if self.model.configs.len() >= self.most {
            return Err(Refusal::TooManyReached(self.model.configs.len() as u64));
        }
        let i = self.model.configs.len() as u32;
        let legit = self
            .rel
            .legitimate(&cfg)
            .map_err(|e| Refusal::Runtime(Box::new((e, cfg.clone()))))?
            .unwrap_or(false);
        // The configuration twice (kept, and the index's key), and the
        // index's entry with the table's slack.
        let queued: usize = cfg.chans.queues.iter().map(|q| q.capacity()).sum();
        let config = cfg.rows.capacity() * 8 + queued * size_of::<crate::state::channels::Msg>();
        self.model.bytes += 2 * (size_of::<Config>() + config) as u64 + 48;
        self.index.insert(cfg.clone(), i);
        self.model.configs.push(cfg);
        self.model.legit.push(legit);
        Ok(i)
    }

    /// The outcomes of a step from configuration `i`.
    fn outcomes_of(&mut self, i: usize) -> Result<Vec<Outcome>, Refusal> {
        if self.model.legit[i] {
            return Ok(Vec::new());
        }
        let cfg = self.model.configs[i].clone();
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        let n = self.inst.topo.n();
        // Per process, its ways to move: each a list of moves (one per
        // value its draws take) with their probabilities.
        let mut ways: Vec<Vec<Vec<(Move, f64)>>> = vec![Vec::new(); n];
        let mut listed = Vec::new();
        let mut enabled = Vec::new();
        for (p, way) in ways.iter_mut().enumerate() {
            self.rel
                .moves_into(&cfg, p, self.every, &mut listed)
                .map_err(fail)?;
            if listed.is_empty() {
                continue;
            }
            enabled.push(p as u32);
            for m in &listed {
                let prob = self.rel.draw_probability(&cfg, m);
                let same = way.last_mut().filter(|w: &&mut Vec<(Move, f64)>| {
                    w[0].0.action == m.action && w[0].0.member == m.member
                });
                match same {
                    Some(w) => w.push((m.clone(), prob)),
                    None => way.push(vec![(m.clone(), prob)]),
                }
            }
        }
        if enabled.is_empty() {
            return Ok(Vec::new());
        }
        let daemon = self.movers.daemon();
        // Every subset of the enabled processes, one by one: 2^16 at most.
        let subsets = matches!(daemon, Daemon::Distributed | Daemon::LocallyCentral);
        if subsets && enabled.len() > 16 {
            return Err(too_many_options());
        }
        let sets = daemon.move_sets(&enabled, &self.inst.topo, 0);
        let weighted: Vec<(f64, Vec<Vec<u32>>)> = match self.movers {
            Movers::Adversary(_) => vec![(1.0, sets)],
            Movers::AsRuns(Daemon::Distributed) => {
                let m = enabled.len() as i32;
                let each = 0.5f64.powi(m);
                sets.into_iter()
                    .map(|s| {
                        let w = match s.len() {
                            1 => each * (1.0 + 1.0 / f64::from(m)),
                            _ => each,
                        };
                        (w, vec![s])
                    })
                    .collect()
            }
            Movers::AsRuns(_) => {
                let w = 1.0 / sets.len() as f64;
                sets.into_iter().map(|s| (w, vec![s])).collect()
            }
        };
        let mut out = Vec::with_capacity(weighted.len());
        for (weight, sets) in weighted {
            let mut choices = Vec::new();
            for set in sets {
                self.choices_of(&cfg, &set, &ways, &mut choices)?;
            }
            out.push(Outcome { weight, choices });
        }
        Ok(out)
    }

    /// Every choice of a way to move for each of `set`'s movers, each
    /// with where the step leads, into `out`; where the movers draw their
    /// ways ([`MoverChoice::Drawn`]), one choice, each joint way weighed
    /// alike (the movers draw apart, each uniformly among its ways).
    fn choices_of(
        &mut self,
        cfg: &Config,
        set: &[u32],
        ways: &[Vec<Vec<(Move, f64)>>],
        out: &mut Vec<Choice>,
    ) -> Result<(), Refusal> {
        let per: Vec<&Vec<Vec<(Move, f64)>>> = set.iter().map(|&p| &ways[p as usize]).collect();
        let joint: usize = per.iter().map(|w| w.len()).product();
        if joint.saturating_add(out.len()) > MOST_OPTIONS {
            return Err(too_many_options());
        }
        let weight = if self.drawn { 1.0 / joint as f64 } else { 1.0 };
        let mut to: Vec<(u32, f64)> = Vec::new();
        for k in 0..joint {
            let mut c = k;
            let picked: Vec<&Vec<(Move, f64)>> = per
                .iter()
                .map(|w| {
                    let way = &w[c % w.len()];
                    c /= w.len();
                    way
                })
                .collect();
            self.successors_into(cfg, &picked, weight, &mut to)?;
            if !self.drawn {
                out.push(Choice {
                    moves: set.len() as u32,
                    movers: as_bits(set),
                    to: merged(std::mem::take(&mut to)),
                });
            }
        }
        if self.drawn {
            out.push(Choice {
                moves: set.len() as u32,
                movers: as_bits(set),
                to: merged(to),
            });
        }
        Ok(())
    }

    /// Appends to `to` each configuration the movers' `picked` ways (one
    /// each) lead to from `cfg`, a value for each draw, with the draws'
    /// probability times `weight`.
    fn successors_into(
        &mut self,
        cfg: &Config,
        picked: &[&Vec<(Move, f64)>],
        weight: f64,
        to: &mut Vec<(u32, f64)>,
    ) -> Result<(), Refusal> {
        let fail = |e| Refusal::Runtime(Box::new((e, cfg.clone())));
        let draws: usize = picked.iter().map(|w| w.len()).product();
        if draws.saturating_add(to.len()) > MOST_OPTIONS {
            return Err(too_many_options());
        }
        to.reserve(draws);
        for mut d in 0..draws {
            let (mut moves, mut prob) = (Vec::with_capacity(picked.len()), weight);
            for w in picked {
                let (m, p) = &w[d % w.len()];
                d /= w.len();
                moves.push(m.clone());
                prob *= p;
            }
            let next = self.rel.successor_of(cfg, &moves).map_err(fail)?;
            to.push((self.number(next)?, prob));
        }
        Ok(())
    }
}

/// `to` by configuration, each once, its probabilities added.
fn merged(mut to: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
    to.sort_unstable_by_key(|&(t, _)| t);
    to.dedup_by(|b, a| {
        let same = a.0 == b.0;
        if same {
            a.1 += b.1;
        }
        same
    });
    to
}

fn too_many_options() -> Refusal {
    Refusal::Unsupported(format!(
        "a configuration has more than {MOST_OPTIONS} move sets, choices or draws to weigh one by one"
    ))
}
