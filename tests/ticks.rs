//! Time in ticks (docs/language.md): at every tick every process makes
//! every move it has (each arrived message, each timeout once), messages
//! take lo to hi ticks and keep their channel's order, other processes'
//! variables read as they were when the tick began, and timers advance at
//! the end of the tick.

use guarded::load::{simulate, Setup};
use guarded::runtime::engine::{Daemon, Outcome, Simulation};
use guarded::runtime::init::InitMode;

fn start(src: &str, topology: &str, seed: u64) -> Simulation {
    let setup = Setup {
        topology: Some(topology.into()),
        seed,
        init: InitMode::Declared,
        daemon: Daemon::Ticks,
        ..Setup::default()
    };
    simulate(src, &setup).unwrap_or_else(|e| panic!("{e}"))
}

fn tick(sim: &mut Simulation) {
    assert_eq!(sim.step().unwrap(), Outcome::Moved);
}

/// The moves of the last tick, as `process:label`.
fn moves(sim: &Simulation) -> Vec<String> {
    let last = sim.last();
    let movers = last.movers();
    (0..movers.len())
        .map(|k| {
            let p = movers[k] as usize;
            format!("{p}:{}", sim.action_label(p, last.actions()[k]))
        })
        .collect()
}

/// Process 0 sends three pings at its first tick (a timeout that runs once
/// although its guard stays true); each takes exactly D ticks, and process
/// 1 takes all three in the tick they arrive, and counts them.
#[test]
fn messages_take_their_delay_and_all_arrived_ones_are_taken_in_one_tick() {
    let src = "param D = 3
message ping
channel capacity 16 delay D..D
var got: 0..9 = 0
var fired: 0..9 = 0
process {
    take :: receive ping from q -> got := got + 1
    go for q in nbrs :: index == 0 and fired < 3 -> send ping to q; send ping to q; send ping to q; fired := fired + 1
}";
    let mut sim = start(src, "chain:2", 0);
    tick(&mut sim);
    assert_eq!(moves(&sim), ["0:go"], "a timeout runs once a tick");
    assert_eq!(sim.channels().queues.iter().flatten().count(), 3);
    assert!(sim.channels().queues.iter().flatten().all(|m| m.due == 2));
    tick(&mut sim);
    assert_eq!(moves(&sim), ["0:go"]);
    tick(&mut sim);
    assert_eq!(moves(&sim), ["0:go"]);
    tick(&mut sim);
    // The first three, sent at tick 1, arrive at tick 1 + D.
    assert_eq!(moves(&sim), ["1:take", "1:take", "1:take"]);
    assert_eq!(sim.value(1, "got"), Some(3));
    assert_eq!(sim.now().step, 4);
}

/// With delays of 1 to 4 ticks drawn at random, no message is taken before
/// one sent ahead of it on its channel, and each arrives within 4 ticks.
#[test]
fn channels_stay_fifo_under_random_delays() {
    let src = "message m(k: 0..99)
channel capacity 100 delay 1..4
var next: 0..99 = 0
var last: -1..99 = -1
var bad: bool = false
process {
    take :: receive m(k) from q -> bad := bad or k <= last; last := k
    put for q in nbrs :: index == 0 and next < 99 -> send m(next) to q; next := next + 1
}";
    for seed in 0..20 {
        let mut sim = start(src, "chain:2", seed);
        for _ in 0..120 {
            if sim.step().unwrap() != Outcome::Moved {
                break;
            }
        }
        assert_eq!(sim.value(1, "bad"), Some(0), "seed {seed}");
        assert_eq!(sim.value(1, "last"), Some(98), "seed {seed}");
        // Every message was on its way 1 to 4 ticks: the last sent at tick 99.
        assert!(
            (100..=103).contains(&sim.now().step),
            "seed {seed}: {:?}",
            sim.now()
        );
    }
}

/// A process reads its neighbours as they were when the tick began, and
/// its own writes of the tick as it makes them; timers advance at the end
/// of the tick, and a priority orders the moves within it.
#[test]
fn reads_see_the_tick_start_and_timers_advance_after_it() {
    let src = "message ping
channel capacity 4 delay 1..1
var x: 0..9 = 0
var seen: 0..9 = 0
timer t: 0..9 = 0
process {
    first priority 0 :: t == 0 and x == 0 -> x := 5
    second priority 1 :: t == 0 and x == 5 -> seen := left.x
}";
    let mut sim = start(src, "ring:3", 0);
    tick(&mut sim);
    assert_eq!(
        moves(&sim),
        ["0:first", "0:second", "1:first", "1:second", "2:first", "2:second"]
    );
    // `second` saw its own x = 5 but its neighbour's from before the tick.
    for p in 0..3 {
        assert_eq!(sim.value(p, "seen"), Some(0));
        assert_eq!(sim.value(p, "t"), Some(1));
    }
    // Nothing to do, but a timer runs: ticks pass until it stops at 9.
    for _ in 0..8 {
        tick(&mut sim);
        assert!(sim.last().movers().is_empty());
    }
    assert!(sim.is_silent());
    assert_eq!(sim.step().unwrap(), Outcome::Silent);
}

/// The simulator's ticks are the tick relation's: on the arrow protocol
/// with delays of 1 to 3 ticks, every configuration a run reaches is one of
/// the successors the relation gives the one before it (with the delays
/// the run drew).
#[test]
fn runs_follow_the_tick_relation() {
    let src = include_str!("../programs/arrow.gc");
    for seed in 0..10 {
        let setup = Setup {
            topology: Some("tree:5".into()),
            params: vec![("D".into(), 3)],
            seed,
            init: InitMode::Random,
            daemon: Daemon::Ticks,
            ..Setup::default()
        };
        let mut sim = simulate(src, &setup).unwrap();
        let mut succ = Vec::new();
        for tick in 0..40 {
            let before = sim.config();
            sim.tick_relation().successors(&before, &mut succ).unwrap();
            assert_eq!(sim.step().unwrap(), Outcome::Moved);
            let after = sim.config();
            assert!(
                succ.iter().any(|(c, _)| *c == after),
                "seed {seed} tick {tick}: the run's configuration is no successor of the relation's"
            );
        }
    }
}

/// `verify` explores every delay: a message that may take 1 or 2 ticks
/// makes two runs, and the worst case is the slower; where the run ends
/// outside legitimacy, with nothing left to happen, it is stuck.
#[test]
fn verify_explores_every_delay() {
    use guarded::load::{load, read_file};
    use guarded::verify::{verify_ticks, Convergence};
    let src = "message ping
channel capacity 4 delay 1..2
var sent: bool = false
var got: bool = false
process {
    take :: receive ping from q -> got := true
    go for q in nbrs :: index == 0 and not sent -> send ping to q; sent := true
}
legitimate: forall(p in procs : p.index == 0 or p.got)";
    let setup = Setup {
        topology: Some("chain:2".into()),
        ..Setup::default()
    };
    let mut inst = load(src, &setup, &read_file).unwrap();
    let start = inst.initial(&InitMode::Declared, &[]).unwrap();
    let v = verify_ticks(&inst, start, None).unwrap();
    // The start, the message 1 or 2 ticks away, then taken.
    assert_eq!(v.configurations, 4);
    assert_eq!(v.transitions, Some(4));
    match &v.convergence {
        Convergence::Holds { steps, .. } => {
            assert_eq!(steps.steps.len(), 3);
            assert_eq!(steps.delays[0], vec![2]);
        }
        other => panic!("{other:?}"),
    }
    let cycling = src.replace("or p.got", "or p.got and not p.got");
    let mut inst = load(&cycling, &setup, &read_file).unwrap();
    let start = inst.initial(&InitMode::Declared, &[]).unwrap();
    let v = verify_ticks(&inst, start, None).unwrap();
    assert!(
        matches!(v.convergence, Convergence::Deadlock(_)),
        "{:?}",
        v.convergence
    );
    // A ping sent back and forth for ever: a cycle of ticks, never legitimate.
    let ping_pong = "message ping
channel capacity 4 delay 1..2
var sent: bool = false
process {
    back :: receive ping from q -> send ping to q
    go for q in nbrs :: index == 0 and not sent -> send ping to q; sent := true
}
legitimate: exists(p in procs : p.index > 1)";
    let mut inst = load(ping_pong, &setup, &read_file).unwrap();
    let start = inst.initial(&InitMode::Declared, &[]).unwrap();
    let v = verify_ticks(&inst, start, None).unwrap();
    match &v.convergence {
        Convergence::Cycle { run, cycle_from } => {
            assert!(*cycle_from < run.steps.len(), "a cycle of at least a tick");
        }
        other => panic!("{other:?}"),
    }
}

/// A relay written for this test: process 0 raises its value every two
/// ticks (a timer), each process takes the values it is sent (the oldest
/// arrived message of priority 1 first), acknowledges them (priority 0, so
/// acknowledgements that arrived are counted first, and a value already
/// known resets the count after them), tells each neighbour
/// once a tick (a binder timeout, priority 3) and then clears its flag
/// (priority 4, after the binder's members).
const RELAY: &str = "message tok(v: 0..3)
message ack
channel capacity 6 delay LO..HI
timer clock: 0..2 = 0
var val: 0..3 = 0
var fresh: bool = false
var acks: 0..2 = 0
process {
    take priority 1 :: receive tok(v) from q and v > val -> val := v; fresh := true; send ack to q
    drop priority 1 :: receive tok(v) from q and v <= val -> acks := 0
    tally :: receive ack from q and acks < 2 -> acks := acks + 1
    full :: receive ack from q and acks == 2 -> acks := 0
    bump priority 2 :: index == 0 and clock >= 2 and val < 3 -> val := val + 1; fresh := true; clock := 0
    tell priority 3 for q in nbrs :: fresh -> send tok(val) to q
    done priority 4 :: fresh -> fresh := false
}
legitimate: forall(p in procs : p.val == 3 and not p.fresh)";

/// The relay's tick relation written out by hand from docs/language.md
/// ("Time in ticks"), naively: a configuration is each process's (clock,
/// val, fresh, acks) and every message in transit in the order sent, as
/// (from, to, tok value or `None` for an ack, ticks still to go).
mod relay {
    pub type Procs = Vec<(i64, i64, bool, i64)>;
    pub type Msgs = Vec<(usize, usize, Option<i64>, u32)>;
    pub type Config = (Procs, Msgs);

    /// The messages receiver by receiver, each's in the order sent: how
    /// old messages to different processes are against one another is
    /// read by nothing, and `verify` counts such configurations as one.
    pub fn by_receiver((procs, mut msgs): Config) -> Config {
        msgs.sort_by_key(|m| m.1);
        (procs, msgs)
    }

    pub fn legitimate((procs, _): &Config) -> bool {
        procs.iter().all(|&(_, val, fresh, _)| val == 3 && !fresh)
    }

    /// One process's moves in a tick: the moves it makes, the messages it
    /// takes (their places in `msgs`) and sends (to, value).
    fn turn(
        p: usize,
        nbrs: &[usize],
        row: &mut (i64, i64, bool, i64),
        msgs: &Msgs,
        taken: &mut Vec<usize>,
        sent: &mut Vec<(usize, Option<i64>)>,
    ) -> u64 {
        let (clock, val, fresh, acks) = row;
        let (mut bumped, mut told, mut done) = (false, Vec::new(), false);
        let mut moves = 0;
        loop {
            // The head of each channel to p that has arrived: its place.
            let heads: Vec<usize> = nbrs
                .iter()
                .filter_map(|&q| {
                    (0..msgs.len())
                        .find(|i| !taken.contains(i) && msgs[*i].0 == q && msgs[*i].1 == p)
                })
                .filter(|&i| msgs[i].3 == 0)
                .collect();
            // Priority 0 (acks), then 1 (toks): the oldest arrived one
            // (`msgs` is in the order sent).
            let ack = heads.iter().copied().filter(|&i| msgs[i].2.is_none()).min();
            let tok = heads.iter().copied().filter(|&i| msgs[i].2.is_some()).min();
            moves += 1;
            if let Some(i) = ack {
                taken.push(i);
                *acks = if *acks < 2 { *acks + 1 } else { 0 };
            } else if let Some(i) = tok {
                taken.push(i);
                let v = msgs[i].2.unwrap();
                if v > *val {
                    (*val, *fresh) = (v, true);
                    sent.push((msgs[i].0, None));
                } else {
                    *acks = 0;
                }
            } else if p == 0 && !bumped && *clock >= 2 && *val < 3 {
                bumped = true;
                (*val, *fresh, *clock) = (*val + 1, true, 0);
            } else if let Some(&q) = nbrs.iter().find(|q| *fresh && !told.contains(*q)) {
                told.push(q);
                sent.push((q, Some(*val)));
            } else if *fresh && !done {
                done = true;
                *fresh = false;
            } else {
                return moves - 1;
            }
        }
    }

    /// Every successor of `config` (with the tick's moves) under delays
    /// `lo..=hi`; none where nothing can happen any more.
    pub fn successors(
        config: &Config,
        nbrs: &[Vec<usize>],
        (lo, hi): (u32, u32),
    ) -> Vec<(Config, u64)> {
        let (procs, msgs) = config;
        let (mut rows, mut taken, mut sends, mut moves) =
            (procs.clone(), Vec::new(), Vec::new(), 0);
        for (p, row) in rows.iter_mut().enumerate() {
            let mut sent = Vec::new();
            moves += turn(p, &nbrs[p], row, msgs, &mut taken, &mut sent);
            sends.extend(sent.into_iter().map(|(q, v)| (p, q, v)));
        }
        let on_its_way = msgs.iter().any(|m| m.3 > 0);
        let timers_run = procs.iter().any(|r| r.0 < 2);
        if moves == 0 && !on_its_way && !timers_run {
            return Vec::new();
        }
        for row in &mut rows {
            row.0 = (row.0 + 1).min(2);
        }
        let kept: Msgs = (0..msgs.len())
            .filter(|i| !taken.contains(i))
            .map(|i| (msgs[i].0, msgs[i].1, msgs[i].2, msgs[i].3.saturating_sub(1)))
            .collect();
        // Every delay of every message sent, none overtaking the one before it.
        let mut out = vec![kept];
        for &(p, q, v) in &sends {
            out = out
                .into_iter()
                .flat_map(|m| {
                    let ahead = m
                        .iter()
                        .rev()
                        .find(|x| x.0 == p && x.1 == q)
                        .map_or(0, |x| x.3);
                    (lo..=hi).map(move |d| {
                        let mut m = m.clone();
                        m.push((p, q, v, (d - 1).max(ahead)));
                        m
                    })
                })
                .collect();
        }
        out.into_iter()
            .map(|m| ((rows.clone(), m), moves))
            .collect()
    }
}

/// `verify` of a program that runs in ticks against the relay's tick
/// relation written out by hand: configurations, legitimate ones,
/// transitions, closure and the worst case in ticks and in moves, on
/// chains, a ring and a star, under three ranges of delays.
#[test]
fn verify_agrees_with_a_tick_relation_written_by_hand() {
    use guarded::load::{load, read_file};
    use guarded::verify::{verify_ticks, Convergence};
    use std::collections::HashMap;
    let cases = [
        ("chain:2", 1, 2, vec![vec![1], vec![0]]),
        ("chain:3", 1, 2, vec![vec![1], vec![0, 2], vec![1]]),
        ("ring:3", 1, 2, vec![vec![1, 2], vec![0, 2], vec![0, 1]]),
        (
            "star:4",
            1,
            2,
            vec![vec![1, 2, 3], vec![0], vec![0], vec![0]],
        ),
        ("chain:3", 2, 3, vec![vec![1], vec![0, 2], vec![1]]),
        ("chain:2", 1, 3, vec![vec![1], vec![0]]),
    ];
    for (topology, lo, hi, nbrs) in cases {
        let src = RELAY.replace("LO..HI", &format!("{lo}..{hi}"));
        let setup = Setup {
            topology: Some(topology.into()),
            ..Setup::default()
        };
        let mut inst = load(&src, &setup, &read_file).unwrap();
        let start = inst.initial(&InitMode::Declared, &[]).unwrap();
        let v = verify_ticks(&inst, start, None).unwrap();
        // The reference: breadth first from the start, then the longest
        // ways (in ticks, in moves) to legitimacy, which closes.
        let first: relay::Config = (vec![(0, 0, false, 0); nbrs.len()], Vec::new());
        let mut succ: HashMap<relay::Config, Vec<(relay::Config, u64)>> = HashMap::new();
        let mut queue = vec![first.clone()];
        let mut transitions = 0;
        while let Some(c) = queue.pop() {
            if succ.contains_key(&c) {
                continue;
            }
            let mut next: Vec<_> = relay::successors(&c, &nbrs, (lo, hi))
                .into_iter()
                .map(|(d, moves)| (relay::by_receiver(d), moves))
                .collect();
            next.sort();
            next.dedup();
            transitions += next
                .iter()
                .map(|(d, _)| d)
                .collect::<std::collections::HashSet<_>>()
                .len() as u64;
            queue.extend(next.iter().map(|(d, _)| d.clone()));
            if relay::legitimate(&c) {
                assert!(next.iter().all(|(d, _)| relay::legitimate(d)), "closure");
            }
            succ.insert(c, next);
        }
        let legitimate = succ.keys().filter(|c| relay::legitimate(c)).count() as u64;
        fn worst(
            c: &relay::Config,
            succ: &HashMap<relay::Config, Vec<(relay::Config, u64)>>,
            memo: &mut HashMap<relay::Config, (u64, u64)>,
        ) -> (u64, u64) {
            if relay::legitimate(c) {
                return (0, 0);
            }
            if let Some(&w) = memo.get(c) {
                return w;
            }
            let next = &succ[c];
            assert!(!next.is_empty(), "a deadlock outside legitimacy");
            let w = next.iter().fold((0, 0), |(t, m), (d, moves)| {
                let (dt, dm) = worst(d, succ, memo);
                (t.max(dt + 1), m.max(dm + moves))
            });
            memo.insert(c.clone(), w);
            w
        }
        let (ticks, moves) = worst(&first, &succ, &mut HashMap::new());
        let case = format!("{topology}, delays {lo}..{hi}");
        assert_eq!(
            v.configurations,
            succ.len() as u64,
            "{case}: configurations"
        );
        assert_eq!(v.legitimate, legitimate, "{case}: legitimate");
        assert_eq!(v.transitions, Some(transitions), "{case}: transitions");
        assert!(v.closure.is_none(), "{case}: closure");
        match &v.convergence {
            Convergence::Holds {
                steps, moves: most, ..
            } => {
                assert_eq!(steps.steps.len() as u64, ticks, "{case}: worst ticks");
                assert_eq!(
                    most.as_ref().map(|r| r.moves()),
                    Some(moves),
                    "{case}: worst moves"
                );
            }
            other => panic!("{case}: {other:?}"),
        }
    }
}
