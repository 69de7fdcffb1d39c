//! One exploration: a simulation, the tree of configurations the user has
//! reached from its start (going back and choosing differently makes a
//! branch), and the moves the daemon allows at the configuration at hand.
//! Every step goes through the engine ([`Simulation::step_moves`]) and
//! every listed move comes from the step relation, as `verify` lists them.

use super::launch::Launch;
use crate::repl::{Condition, Session};
use crate::runtime::choose::Move;
use crate::runtime::daemon::Daemon;
use crate::runtime::engine::{Choice, Outcome, Simulation, Snapshot};
use crate::runtime::init::InitMode;
use crate::runtime::schedule::{move_text, parse_schedule, NamedMove, ScheduledStep};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// About how much memory the tree's configurations may take.
const TREE_BYTES: usize = 256 << 20;

/// The most steps one request to run takes.
pub const MOST_STEPS_A_RUN: u64 = 10_000;

/// A configuration reached, and how.
pub(super) struct Node {
    pub(super) parent: Option<usize>,
    pub(super) children: Vec<usize>,
    /// The child last visited: where the path goes on from here.
    pub(super) next: Option<usize>,
    /// The engine's state there: configuration, measures, generator.
    pub(super) snapshot: Snapshot,
    /// The messages the step sent and took: sender, receiver, the message,
    /// and whether it was sent (else taken), in the order the step made them.
    pub(super) messages: Vec<(u32, u32, String, bool)>,
    /// The step from the parent as a schedule line names it, each mover
    /// with the move it made (`3:R1 5:R2@4`), or `tick`; empty at the start.
    pub(super) text: String,
}

/// One move of one process, as the page lists it.
pub(super) struct Listed {
    /// The move (process, action, binder member, values drawn).
    pub(super) mv: Move,
    /// As a schedule names it (`3:R1@5<1>`).
    pub(super) text: String,
}

/// An exploration of one instance.
pub struct Exploration {
    pub(super) launch: Launch,
    pub(super) source: String,
    pub(super) repl: Session,
    pub(super) nodes: Vec<Node>,
    pub(super) current: usize,
    /// The generator of the daemon's choices when the user lets it choose.
    rng: ChaCha8Rng,
    /// The most nodes the tree keeps.
    capacity: usize,
}

/// Why a run the user asked for stopped.
pub(super) enum Stopped {
    Steps,
    Silent,
    Until,
    Break(String),
    Error(String),
}

impl Exploration {
    /// An exploration of `source` as `launch` sets it up, at its start.
    pub fn new(launch: Launch, source: String) -> Result<Self, String> {
        let (sim, ast) = launch.build(&source, None)?;
        Ok(Self::of(launch, source, sim, ast))
    }

    fn of(
        launch: Launch,
        source: String,
        sim: Simulation,
        ast: crate::syntax::ast::Program,
    ) -> Self {
        let bytes = sim.n() * (8 * sim.stride() + 24) + 512;
        let root = Node {
            parent: None,
            children: Vec::new(),
            next: None,
            messages: Vec::new(),
            snapshot: sim.snapshot(),
            text: String::new(),
        };
        let rng = ChaCha8Rng::seed_from_u64(launch.seed);
        let repl = Session::new(sim, ast, launch.program.clone(), source.clone(), false);
        Exploration {
            launch,
            source,
            repl,
            nodes: vec![root],
            current: 0,
            rng,
            capacity: (TREE_BYTES / bytes).max(64),
        }
    }

    /// The simulation, at the current node.
    pub fn sim(&self) -> &Simulation {
        self.repl.sim()
    }

    /// The program's text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// A new program text: checked and instantiated as the command line
    /// set up the first; on success the exploration starts again from it.
    pub fn edit(&mut self, source: String) -> Result<(), String> {
        let (sim, ast) = self.launch.build(&source, None)?;
        *self = Self::of(self.launch.clone(), source, sim, ast);
        Ok(())
    }

    /// The daemon the moves are listed for.
    pub fn daemon(&self) -> &Daemon {
        self.sim().daemon()
    }

    /// Switches the daemon (by its name), keeping the tree.
    pub fn set_daemon(&mut self, name: &str) -> Result<(), String> {
        let daemon = super::launch::parse_daemon(name)?;
        daemon.check_time(self.sim().runs_in_ticks())?;
        self.repl.sim_mut().set_daemon(daemon);
        Ok(())
    }

    /// Goes to node `id` of the tree.
    pub fn go_to(&mut self, id: usize) -> Result<(), String> {
        let node = self.nodes.get(id).ok_or_else(|| {
            format!(
                "there is no node {id}: nodes are 0 to {}",
                self.nodes.len() - 1
            )
        })?;
        let snap = node.snapshot.clone();
        self.repl.sim_mut().restore(snap);
        self.current = id;
        // The path now goes through it.
        let mut child = id;
        while let Some(parent) = self.nodes[child].parent {
            self.nodes[parent].next = Some(child);
            child = parent;
        }
        Ok(())
    }

    /// The nodes from the start to the current one.
    pub(super) fn path(&self) -> Vec<usize> {
        let mut path = vec![self.current];
        while let Some(p) = self.nodes[*path.last().expect("not empty")].parent {
            path.push(p);
        }
        path.reverse();
        path
    }

    /// The nodes the path goes on to after the current one: each node's
    /// child last visited, as a browser's history goes forward.
    pub(super) fn ahead(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.current;
        while let Some(next) = self.nodes[at].next {
            out.push(next);
            at = next;
        }
        out
    }

    /// Every move each enabled process may make here (each enabled action
    /// of the most urgent priority, each binder member, each value drawn),
    /// by process; a program that runs in ticks has none (a tick moves).
    pub(super) fn moves(&self) -> Result<Vec<Listed>, String> {
        let sim = self.sim();
        if sim.runs_in_ticks() {
            return Ok(Vec::new());
        }
        let cfg = sim.config();
        let mut rel = sim.step_relation();
        let (mut out, mut each) = (Vec::new(), Vec::new());
        let mut enabled = sim.enabled().to_vec();
        enabled.sort_unstable();
        for p in enabled {
            rel.moves_into(&cfg, p as usize, true, &mut each)
                .map_err(|e| self.error(&e))?;
            for mv in each.drain(..) {
                let text = mv.text(&sim.code, true);
                out.push(Listed { mv, text });
            }
        }
        Ok(out)
    }

    /// A runtime error as the command line prints it (without colour).
    pub(super) fn error(&self, e: &crate::runtime::engine::RunError) -> String {
        crate::report::runtime_error(
            e,
            &self.launch.program,
            &self.source,
            true,
            Some(self.sim()),
        )
    }

    /// Takes the step a schedule line names (`3:R1 5:R2@4`; a process
    /// alone moves as runs choose), if the daemon allows it.
    pub fn step_line(&mut self, line: &str) -> Result<(), String> {
        if self.sim().runs_in_ticks() {
            return match line.trim() {
                "tick" | "" => self.daemon_step().map(|_| ()),
                _ => Err("the program runs in ticks: the step is `tick` (its message delays drawn by the seeded generator)".into()),
            };
        }
        let steps = parse_schedule("the step", line)?;
        let [step] = steps.as_slice() else {
            return Err("name one step: the moves of its processes, on one line".into());
        };
        let mut enabled = self.sim().enabled().to_vec();
        enabled.sort_unstable();
        self.daemon()
            .allows(&step.procs, &enabled, self.sim().topology())?;
        self.take(&moves_of(step))
    }

    /// Takes one step of `moves` from the current node, or follows the
    /// child that took it already.
    fn take(&mut self, moves: &[(u32, Option<NamedMove>)]) -> Result<(), String> {
        if self.nodes.len() >= self.capacity {
            return Err(format!(
                "the tree holds {} configurations, the most this exploration keeps; go back and branch, or reload the page's program",
                self.nodes.len()
            ));
        }
        let before = self.sim().snapshot();
        if let Err(e) = self.repl.sim_mut().step_moves(moves) {
            let message = self.error(&e);
            self.repl.sim_mut().restore(before);
            return Err(message);
        }
        let sim = self.sim();
        let last = sim.last();
        let mut made: Vec<(u32, NamedMove)> = Vec::new();
        // Named as the step record has them, so that a process given alone
        // (or `3:R1` without its member) shows the move it made.
        for (k, &p) in last.movers().iter().enumerate() {
            let named = NamedMove {
                label: sim.action_label(p as usize, last.actions()[k]).to_string(),
                member: last.member(k),
                draws: Some(last.drawn(k).to_vec()).filter(|d| !d.is_empty()),
            };
            made.push((p, named));
        }
        made.sort_by_key(|m| m.0);
        self.attach(made);
        Ok(())
    }

    /// Adds the simulation's state as a child of the current node reached
    /// by `moves` (none: a tick), or goes to the child that has it.
    fn attach(&mut self, moves: Vec<(u32, NamedMove)>) {
        let text = if moves.is_empty() {
            self.tick_line()
        } else {
            let words: Vec<String> = moves
                .iter()
                .map(|(p, m)| move_text(*p, &m.label, m.member, m.draws.as_deref()))
                .collect();
            words.join(" ")
        };
        let snapshot = self.sim().snapshot();
        let same = self.nodes[self.current]
            .children
            .iter()
            .copied()
            .find(|&c| {
                self.nodes[c].text == text && self.nodes[c].snapshot.state() == snapshot.state()
            });
        let id = match same {
            Some(c) => c,
            None => {
                let messages = self.messages_of_step();
                self.nodes.push(Node {
                    parent: Some(self.current),
                    children: Vec::new(),
                    next: None,
                    messages,
                    snapshot,
                    text,
                });
                let id = self.nodes.len() - 1;
                self.nodes[self.current].children.push(id);
                id
            }
        };
        self.nodes[self.current].next = Some(id);
        self.current = id;
    }

    /// The last tick as a schedule line: `tick` and the delay each message
    /// sent in it took, in the order sent (as `verify`'s witnesses write it).
    fn tick_line(&self) -> String {
        let delays: Vec<String> = self
            .sim()
            .last()
            .sent
            .iter()
            .map(|(_, _, m)| (u32::from(m.due) + 1).to_string())
            .collect();
        match delays.is_empty() {
            true => "tick".into(),
            false => format!("tick {}", delays.join(" ")),
        }
    }

    /// The messages the last step took and sent, taken first.
    fn messages_of_step(&self) -> Vec<(u32, u32, String, bool)> {
        let sim = self.sim();
        let last = sim.last();
        let text = |m| crate::report::msg_text(sim, m);
        let taken = last
            .movers()
            .iter()
            .zip(&last.received)
            .filter_map(|(&to, r)| r.as_ref().map(|(from, m)| (*from, to, text(m), false)));
        let sent = last
            .sent
            .iter()
            .map(|(from, to, m)| (*from, *to, text(m), true));
        taken.chain(sent).collect()
    }

    /// One step the daemon chooses, from the exploration's own generator
    /// (seeded by `--seed`): its movers as a run under it draws them, each
    /// mover's move as `--choice` says (the first, or one at random), the
    /// values of draws at random. `false` when no process is enabled.
    pub fn daemon_step(&mut self) -> Result<bool, String> {
        if self.sim().runs_in_ticks() {
            let before = self.sim().snapshot();
            return match self.repl.sim_mut().step() {
                Ok(Outcome::Moved) => {
                    self.attach(Vec::new());
                    Ok(true)
                }
                Ok(_) => Ok(false),
                Err(e) => {
                    let message = self.error(&e);
                    self.repl.sim_mut().restore(before);
                    Err(message)
                }
            };
        }
        let mut enabled = self.sim().enabled().to_vec();
        if enabled.is_empty() {
            return Ok(false);
        }
        enabled.sort_unstable();
        let daemon = match self.daemon() {
            Daemon::Schedule(_) => Daemon::Central,
            d => d.clone(),
        };
        let (sim, rng) = (self.repl.sim(), &mut self.rng);
        let mut movers = daemon.draw_movers(&enabled, sim.topology(), rng);
        movers.sort_unstable();
        let every = self.launch.choice == Choice::Random;
        let cfg = sim.config();
        let mut rel = sim.step_relation();
        let mut moves = Vec::with_capacity(movers.len());
        let mut each = Vec::new();
        for p in movers {
            if let Err(e) = rel.moves_into(&cfg, p as usize, every, &mut each) {
                return Err(self.error(&e));
            }
            // Each (action, member) equally likely, then the draws as a
            // run's generator makes them.
            let weights: Vec<f64> = each.iter().map(|m| rel.draw_probability(&cfg, m)).collect();
            let mut x = rng.gen::<f64>() * weights.iter().sum::<f64>();
            let mut pick = each.len() - 1;
            for (k, w) in weights.iter().enumerate() {
                if x < *w {
                    pick = k;
                    break;
                }
                x -= w;
            }
            moves.push((p, Some(named_move(&sim.code, &each[pick]))));
        }
        drop(rel);
        self.take(&moves)?;
        Ok(true)
    }

    /// Lets the daemon take up to `limit` steps, stopping early where the
    /// program is silent, `until` holds, or a break condition becomes true.
    pub(super) fn run(
        &mut self,
        limit: u64,
        until: Option<&str>,
        breaks: &[String],
    ) -> Result<(u64, Stopped), String> {
        let until = until.map(|t| self.repl.condition(t)).transpose()?;
        let breaks: Vec<Condition> = breaks
            .iter()
            .map(|t| self.repl.condition(t))
            .collect::<Result<_, _>>()?;
        let limit = limit.min(MOST_STEPS_A_RUN);
        let holding = |s: &Self| -> Vec<bool> {
            breaks
                .iter()
                .map(|b| s.repl.holds(b).unwrap_or(false))
                .collect()
        };
        let mut taken = 0;
        while taken < limit {
            if let Some(u) = &until {
                if self.repl.holds(u)? {
                    return Ok((taken, Stopped::Until));
                }
            }
            let before = holding(self);
            match self.daemon_step() {
                Ok(false) => return Ok((taken, Stopped::Silent)),
                Ok(true) => taken += 1,
                Err(e) => return Ok((taken, Stopped::Error(e))),
            }
            let after = holding(self);
            if let Some(i) = (0..after.len()).find(|&i| after[i] && !before[i]) {
                return Ok((taken, Stopped::Break(breaks[i].text.clone())));
            }
        }
        if let Some(u) = &until {
            if self.repl.holds(u)? {
                return Ok((taken, Stopped::Until));
            }
        }
        Ok((taken, Stopped::Steps))
    }

    /// Why each action of process `p` is enabled or not here, as the
    /// REPL's `fire P` explains it.
    pub fn why(&self, p: usize) -> Result<String, String> {
        let n = self.sim().n();
        if p >= n {
            return Err(format!(
                "process {p} does not exist (the processes are 0..{})",
                n - 1
            ));
        }
        Ok(self.repl.explain_process(p))
    }

    /// The value of an expression over the current configuration, as the
    /// REPL's `eval` prints it.
    pub fn evaluate(&self, text: &str) -> Result<String, String> {
        self.repl.evaluate(text)
    }

    /// The path from the start to the current node as an init file (the
    /// start) and a schedule (a line a step), which `guarded run --init
    /// INIT --daemon schedule:SCHED` replays.
    pub fn saved(&self) -> Result<(String, String), String> {
        let path = self.path();
        let start = &self.nodes[path[0]].snapshot;
        let sim = self.sim();
        let init = crate::runtime::init::format_config(
            &sim.prog,
            &sim.code,
            sim.topology(),
            start.state(),
            start.channels(),
        );
        let sched: String = path[1..]
            .iter()
            .map(|&id| format!("{}\n", self.nodes[id].text))
            .collect();
        Ok((init, sched))
    }

    /// Starts again from the run an init file and a schedule describe (a
    /// `verify` witness, or a saved path): the tree becomes that path.
    pub fn open_path(&mut self, name: &str, init: &str, sched: &str) -> Result<(), String> {
        let mode = InitMode::File(format!("{name}.init"), init.to_string());
        let (sim, ast) = self.launch.build(&self.source, Some(&mode))?;
        let steps = parse_schedule(&format!("{name}.sched"), sched)?;
        let fresh = Self::of(self.launch.clone(), self.source.clone(), sim, ast);
        let previous = std::mem::replace(self, fresh);
        let result = self.replay(&steps);
        if let Err(e) = result {
            *self = previous;
            return Err(format!("{name}: {e}"));
        }
        Ok(())
    }

    fn replay(&mut self, steps: &[ScheduledStep]) -> Result<(), String> {
        let ticks = self.sim().runs_in_ticks();
        // Unnamed moves are the first, as verify's witnesses mean them; a
        // tick's line gives its delays to the engine as a schedule does.
        self.repl.sim_mut().set_choice(Choice::First);
        let daemon = self.sim().daemon().clone();
        if ticks {
            self.repl
                .sim_mut()
                .set_daemon(Daemon::Schedule(steps.to_vec()));
        }
        for step in steps {
            let taken = if ticks {
                match self.repl.sim_mut().step() {
                    Ok(_) => {
                        self.attach(Vec::new());
                        Ok(())
                    }
                    Err(e) => Err(self.error(&e)),
                }
            } else {
                self.take(&moves_of(step))
            };
            if let Err(e) = taken {
                self.repl.sim_mut().set_daemon(daemon);
                return Err(format!("line {}: {e}", step.line));
            }
        }
        self.repl.sim_mut().set_daemon(daemon);
        self.repl.sim_mut().set_choice(self.launch.choice);
        Ok(())
    }
}

/// Each process of a schedule line with the move the line names for it.
fn moves_of(step: &ScheduledStep) -> Vec<(u32, Option<NamedMove>)> {
    step.procs
        .iter()
        .copied()
        .zip(step.named.iter().cloned())
        .collect()
}

/// A move as the engine takes it named.
fn named_move(code: &crate::compile::Compiled, mv: &Move) -> NamedMove {
    let role = &code.roles[code.role_of.of(mv.process as usize)];
    NamedMove {
        label: role.actions[mv.action as usize].label.clone(),
        member: mv.member,
        draws: mv.draws.clone().filter(|d| !d.is_empty()),
    }
}
