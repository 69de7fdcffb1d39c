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
