//! `leads_to` and `always eventually` held to a naive reference: the state
//! graph listed through the step relation, and a property failing where a
//! configuration satisfying its first predicate has a path, avoiding the
//! second, to a configuration where no process is enabled or to a fair
//! strongly connected part of the graph (every process enabled throughout
//! it moving in it, for weak fairness; every process enabled anywhere in
//! it, for strong fairness, after taking out the configurations where the
//! processes that never move are enabled, as Emerson and Lei do). Under
//! every daemon and each `--fairness`, with the clause `under ... fairness`
//! on some properties, the verdicts and the process each fails for agree,
//! and the program is one where fairness changes them.

mod common;
use common::{every_step, instance};
use guarded::runtime::daemon::Daemon;
use guarded::state::Config;
use guarded::verify::{Explorer, Fairness};
use std::collections::HashMap;

/// Two overlapping actions of one priority on a ring (a process may
/// choose), and two less urgent ones that run only where no more urgent
/// one is enabled, so that a process may be kept from moving.
const PROGRAM: &str = "var x: 0..2 = 0
process {
    inc :: x < 2 and left.x != 1 -> x := x + 1
    dec :: x > 0 and right.x == 2 -> x := x - 1
    hop priority 1 :: x == 2 and left.x == 2 -> x := 0
    wake priority 2 :: x == 1 -> x := 2
}
legitimate: forall(p in procs : p.x == 0)
property a: forall(p in procs : p.x == 2 leads_to p.x == 0)
property aw: forall(p in procs : p.x == 2 leads_to p.x == 0) under weak fairness
property as: forall(p in procs : p.x == 2 leads_to p.x == 0) under strong fairness
property b: always eventually (0).x == 1
property bw: always eventually (0).x == 1 under weak fairness
property bs: always eventually (0).x == 1 under strong fairness
property c: forall(p in procs : p.x == 1 leads_to p.x == 2)
property cw: forall(p in procs : p.x == 1 leads_to p.x == 2) under weak fairness
property d: forall(p in procs : always eventually enabled(p))
property dw: forall(p in procs : always eventually enabled(p)) under weak fairness
property e: forall(p in procs : p.x == 0 leads_to p.x == 1) under weak fairness
property es: forall(p in procs : p.x == 0 leads_to p.x == 1) under strong fairness
";

/// A predicate of a configuration's values (one a process), its enabled
/// processes and a process.
type Pred = fn(&[i64], &[bool], usize) -> bool;

/// A property as the reference reads it: whether it is said of every
/// process, its two predicates and the fairness its clause assumes.
struct Property {
    name: &'static str,
    each_process: bool,
    first: Pred,
    second: Pred,
    clause: Fairness,
}

/// [`PROGRAM`]'s properties, in the reference's terms.
fn properties() -> Vec<Property> {
    use Fairness::{Strong, Unfair, Weak};
    let is = |v: i64| -> Pred {
        match v {
            0 => |x, _, p| x[p] == 0,
            1 => |x, _, p| x[p] == 1,
            _ => |x, _, p| x[p] == 2,
        }
    };
    let always: Pred = |_, _, _| true;
    let first_is_one: Pred = |x, _, _| x[0] == 1;
    let is_enabled: Pred = |_, en, p| en[p];
    let each = |name, (first, second), clause| Property {
        name,
        each_process: true,
        first,
        second,
        clause,
    };
    vec![
        each("a", (is(2), is(0)), Unfair),
        each("aw", (is(2), is(0)), Weak),
        each("as", (is(2), is(0)), Strong),
        Property {
            each_process: false,
            ..each("b", (always, first_is_one), Unfair)
        },
        Property {
            each_process: false,
            ..each("bw", (always, first_is_one), Weak)
        },
        Property {
            each_process: false,
            ..each("bs", (always, first_is_one), Strong)
        },
        each("c", (is(1), is(2)), Unfair),
        each("cw", (is(1), is(2)), Weak),
        each("d", (always, is_enabled), Unfair),
        each("dw", (always, is_enabled), Weak),
        each("e", (is(0), is(1)), Weak),
        each("es", (is(0), is(1)), Strong),
    ]
}

/// The state graph: each configuration's values, enabled processes (as
/// flags) and steps (where each leads, its movers as bits).
struct Graph {
    values: Vec<Vec<i64>>,
    enabled: Vec<Vec<bool>>,
    steps: Vec<Vec<(usize, u64)>>,
}

fn graph(inst: &guarded::load::Instance, daemon: &Daemon) -> Graph {
    let mut rel = inst.step_relation();
    let configs: Vec<Config> = inst.space().iter().collect();
    let index: HashMap<&Config, usize> = configs.iter().enumerate().map(|(i, c)| (c, i)).collect();
    let n = inst.topology().n();
    let enabled = configs
        .iter()
        .map(|c| {
            let on = rel.enabled(c).unwrap();
            (0..n).map(|p| on.contains(&(p as u32))).collect()
        })
        .collect();
    let steps = configs
        .iter()
        .map(|c| {
            every_step(inst, &mut rel, c, daemon, &mut |next| index[&next])
                .into_iter()
                .map(|(to, movers, _)| (to.expect("no step faults"), movers))
                .collect()
        })
        .collect();
    let values = configs.iter().map(|c| c.rows.clone()).collect();
    assert!(
        configs.iter().all(|c| c.rows.len() == n),
        "one value a process"
    );
    Graph {
        values,
        enabled,
        steps,
    }
}

/// The strongly connected parts of the graph restricted to `inside`
/// (Tarjan's algorithm, recursively: the graphs here are small).
fn components(g: &Graph, inside: &[bool]) -> Vec<Vec<usize>> {
    struct Tarjan<'g> {
        g: &'g Graph,
        inside: &'g [bool],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &(w, _) in &self.g.steps[v] {
                if !self.inside[w] {
                    continue;
                }
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut part = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack[w] = false;
                    part.push(w);
                    if w == v {
                        break;
                    }
                }
                self.found.push(part);
            }
        }
    }
    let count = g.steps.len();
    let mut t = Tarjan {
        g,
        inside,
        index: vec![None; count],
        low: vec![0; count],
        stack: Vec::new(),
        on_stack: vec![false; count],
        next: 0,
        found: Vec::new(),
    };
    for (v, &inside) in inside.iter().enumerate() {
        if inside && t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.found
}

/// The configurations of `inside` on a cycle inside it that is fair as
/// `fairness` says.
fn on_fair_cycles(g: &Graph, inside: &[bool], fairness: Fairness, out: &mut [bool]) {
    let n = g.enabled[0].len();
    for part in components(g, inside) {
        let mut member = vec![false; inside.len()];
        part.iter().for_each(|&v| member[v] = true);
        let within: Vec<u64> = part
            .iter()
            .flat_map(|&v| g.steps[v].iter().filter(|&&(w, _)| member[w]))
            .map(|&(_, movers)| movers)
            .collect();
        if within.is_empty() {
            continue;
        }
        let moved = |p: usize| within.iter().any(|m| m >> p & 1 == 1);
        let unserved: Vec<usize> = match fairness {
            Fairness::Unfair => Vec::new(),
            Fairness::Weak => (0..n)
                .filter(|&p| part.iter().all(|&v| g.enabled[v][p]) && !moved(p))
                .collect(),
            Fairness::Strong => (0..n)
                .filter(|&p| part.iter().any(|&v| g.enabled[v][p]) && !moved(p))
                .collect(),
        };
        if unserved.is_empty() {
            part.iter().for_each(|&v| out[v] = true);
        } else if fairness == Fairness::Strong {
            // A fair cycle here leaves out where an unserved process is
            // enabled.
            let rest: Vec<bool> = (0..inside.len())
                .map(|v| member[v] && unserved.iter().all(|&p| !g.enabled[v][p]))
                .collect();
            on_fair_cycles(g, &rest, fairness, out);
        }
        // Under weak fairness every cycle of the part leaves the process
        // enabled throughout and unmoved: none is fair.
    }
}

/// Whether `first leads_to second` holds of process `p` on the fair runs.
fn leads_to(g: &Graph, prop: &Property, p: usize, fairness: Fairness) -> bool {
    let count = g.steps.len();
    let holds = |f: Pred, v: usize| f(&g.values[v], &g.enabled[v], p);
    let avoiding: Vec<bool> = (0..count).map(|v| !holds(prop.second, v)).collect();
    let mut doomed = vec![false; count];
    on_fair_cycles(g, &avoiding, fairness, &mut doomed);
    for (v, doomed) in doomed.iter_mut().enumerate() {
        *doomed |= avoiding[v] && g.steps[v].is_empty();
    }
    // Back from the doomed configurations, avoiding the second predicate.
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..count {
            if avoiding[v] && !doomed[v] && g.steps[v].iter().any(|&(w, _)| doomed[w]) {
                doomed[v] = true;
                changed = true;
            }
        }
    }
    !(0..count).any(|v| doomed[v] && holds(prop.first, v))
}

/// The stronger of two fairness assumptions.
fn stronger(a: Fairness, b: Fairness) -> Fairness {
    let rank = |f| match f {
        Fairness::Unfair => 0,
        Fairness::Weak => 1,
        Fairness::Strong => 2,
    };
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}

#[test]
fn leads_to_agrees_with_a_naive_fair_cycle_search() {
    let daemons = [
        Daemon::Central,
        Daemon::LocallyCentral,
        Daemon::Distributed,
        Daemon::Synchronous,
    ];
    let props = properties();
    let mut verdicts_seen = HashMap::new();
    for topology in ["ring:3", "ring:4"] {
        let inst = instance(PROGRAM, topology, &[]);
        let n = inst.topology().n();
        for daemon in &daemons {
            let g = graph(&inst, daemon);
            for asked in [Fairness::Unfair, Fairness::Weak, Fairness::Strong] {
                let mut ex = Explorer::new(&inst).unwrap();
                ex.count_rounds(false);
                let found = ex.verify_fairly(daemon, asked).unwrap().properties;
                for prop in &props {
                    let fairness = stronger(asked, prop.clause);
                    let processes = if prop.each_process { n } else { 1 };
                    let fails_for = (0..processes).find(|&p| !leads_to(&g, prop, p, fairness));
                    let got = found.iter().find(|v| v.name == prop.name).unwrap();
                    let what = format!("{} on {topology}, {daemon:?}, {asked:?}", prop.name);
                    assert_eq!(got.holds, fails_for.is_none(), "{what}");
                    assert_eq!(got.fairness, fairness, "{what}");
                    if prop.each_process {
                        assert_eq!(got.process, fails_for, "{what}");
                    }
                    verdicts_seen
                        .entry(prop.name)
                        .or_insert_with(Vec::new)
                        .push(got.holds);
                }
            }
        }
    }
    // The verdicts of most properties differ from one instance, daemon
    // and fairness to another: the reference is not compared with
    // constants.
    let mixed = |name: &str| {
        let seen = &verdicts_seen[name];
        seen.contains(&true) && seen.contains(&false)
    };
    for name in ["b", "bw", "bs", "c", "d", "dw", "e"] {
        assert!(mixed(name), "{name}: {:?}", verdicts_seen[name]);
    }
    assert!(verdicts_seen["es"].iter().all(|&h| h));
    assert!(verdicts_seen["a"].iter().all(|&h| !h));
}
