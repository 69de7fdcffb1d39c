//! Generators for the inputs beyond program text: init files, witness
//! directories and the schedules they hold, sweep CSV pieces for
//! `--merge`, DOT and edge-list topologies, parameter and plot formulas,
//! and instances whose daemons may choose among very many moves. Each
//! generator writes its files into a scratch directory and returns the
//! invocations that read them; `super::invoke` judges each one.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// One command line and what goes to its standard input.
pub struct Invocation {
    pub args: Vec<String>,
    pub stdin: String,
}

fn call(args: &[&str]) -> Invocation {
    fed(args, String::new())
}

/// `args` with `stdin` on standard input (a REPL script).
fn fed(args: &[&str], stdin: String) -> Invocation {
    Invocation {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin,
    }
}

/// A generator: random inputs of one kind written under the directory, and
/// the invocations that read them.
pub type Generator = fn(&mut ChaCha8Rng, &Path) -> Vec<Invocation>;

/// Every surface, by name.
pub const SURFACES: &[(&str, Generator)] = &[
    ("init file", init_file),
    ("witness", witness),
    ("sweep merge", sweep_merge),
    ("dot file", dot_file),
    ("formula", formula),
    ("many moves", many_moves),
];

/// Bundled and golden programs that check, each with a topology small
/// enough to verify from a start, and whether verifying from a start stays
/// small whatever the start (the arrow's channels do not).
const PROGRAMS: &[(&str, &str, bool)] = &[
    ("programs/dijkstra_kstate.gc", "ring:4", true),
    ("programs/arbitration.gc", "ring:4", true),
    ("programs/arrow.gc", "tree:4", false),
    ("programs/ssle.gc", "chain:3", true),
    ("programs/johnen_leader.gc", "uring:4", true),
    ("programs/matching.gc", "ring:4", true),
    ("programs/herman.gc", "uring:3", true),
    ("tests/golden/programs/chang_roberts.gc", "ring:3", true),
    ("tests/golden/programs/cond.gc", "ring:3", true),
    ("tests/golden/programs/max_graph.gc", "chain:3", true),
];

fn path_str(p: &Path) -> String {
    p.to_str().expect("UTF-8 scratch path").to_string()
}

/// The names a program declares for its processes (variables, edge
/// variables, timers), read off its declaration lines.
fn declared_names(program: &str) -> Vec<String> {
    program
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = ["var ", "edge var ", "timer "]
                .iter()
                .find_map(|k| line.strip_prefix(k))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Bytes that break line-oriented readers: NUL, a lone CR, bytes that are
/// not UTF-8, a byte-order mark, escape sequences, a very long line.
fn hostile_line(rng: &mut ChaCha8Rng) -> Vec<u8> {
    match rng.gen_range(0..7) {
        0 => b"0.x = \0".to_vec(),
        1 => b"0.x = 1\r".to_vec(),
        2 => vec![0xff, 0xfe, b'0', b'.', 0xc3],
        3 => "\u{feff}0.x = 1".as_bytes().to_vec(),
        4 => b"\x1b[31m0.x = 1\x1b[0m".to_vec(),
        5 => "9"
            .repeat(*[70_000, 1_000_000].choose(rng).unwrap())
            .into_bytes(),
        _ => "é".repeat(40_000).into_bytes(),
    }
}

/// Line-level edits of a text file: deletions, duplications, swaps,
/// truncation, hostile lines.
fn mutate_lines<S: AsRef<str>>(text: &[u8], rng: &mut ChaCha8Rng, junk: &[S]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    for _ in 0..rng.gen_range(1..3) {
        let at = rng.gen_range(0..lines.len().max(1)).min(lines.len());
        match rng.gen_range(0..7) {
            0 if at < lines.len() => {
                lines.remove(at);
            }
            1 if at < lines.len() => {
                let copy = lines[at].clone();
                let times = *[1, 2, 5000].choose(rng).unwrap();
                for _ in 0..times {
                    lines.insert(at, copy.clone());
                }
            }
            2 if lines.len() > 1 => {
                let other = rng.gen_range(0..lines.len());
                let at = at.min(lines.len() - 1);
                lines.swap(at, other);
            }
            3 if at < lines.len() => {
                let cut = rng.gen_range(0..=lines[at].len());
                lines[at].truncate(cut);
            }
            4 => lines.insert(at, hostile_line(rng)),
            _ => lines.insert(at, junk.choose(rng).unwrap().as_ref().as_bytes().to_vec()),
        }
    }
    lines.join(&b'\n')
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write a scratch file");
    path_str(&path)
}

/// `PROCESS.VAR = VALUE` and channel lines, right and wrong, for one
/// program: read by `run --init`, `verify --from`, `sweep --init` and the
/// REPL's `load`.
fn init_file(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    let &(program, topology, verifiable) = PROGRAMS.choose(rng).unwrap();
    let text = std::fs::read_to_string(super::root().join(program)).expect("a bundled program");
    let mut names = declared_names(&text);
    names.extend(["nope", "n", "x[0]", "F[1]", "sent[1]", "sent[99]", "F[-1]"].map(String::from));
    let procs = [
        "0",
        "1",
        "2",
        "3",
        "*",
        "-1",
        "99",
        "9223372036854775808",
        "",
        " 1 ",
    ];
    let values = [
        "0",
        "1",
        "2",
        "-1",
        "true",
        "false",
        "self",
        "hungry",
        "eating",
        "observe",
        "correct",
        "[0, 1]",
        "[]",
        "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
        "[[0]]",
        "9223372036854775807",
        "99999999999999999999",
        "left",
        "",
        "1 2",
        "\"x\"",
    ];
    let channels = [
        "0->1 = find(0) observer(1)",
        "1->0 =",
        "0->2 = elect(1)",
        "2->0 = elected(0) elected(0)",
        "0->0 = find(0)",
        "0->1 = nope(1)",
        "0->1 = find(99)",
        "0->1 = find(",
        "9->1 = find(0)",
    ];
    // A configuration the REPL saved in an earlier case (valid by
    // construction), edited; or lines drawn from the pools.
    let stem = Path::new(program).file_stem().unwrap().to_string_lossy();
    let base = dir.join(format!("base-{stem}.init"));
    let file = match std::fs::read(&base) {
        Ok(saved) if rng.gen_bool(0.8) => {
            if rng.gen_bool(0.6) {
                let junk = lines_junk(rng, &names, &procs, &values, &channels);
                mutate_lines(&saved, rng, &junk)
            } else {
                saved
            }
        }
        _ => {
            let mut file = Vec::new();
            for _ in 0..rng.gen_range(0..12) {
                file.extend(init_line(rng, &names, &procs, &values, &channels));
                file.push(b'\n');
            }
            file
        }
    };
    let init = write(dir, "start.init", &file);
    let saved = path_str(&dir.join("saved.init"));
    let mut out = vec![call(&[
        "run",
        program,
        "-t",
        topology,
        "--init",
        &init,
        "--max-steps",
        "40",
        "--no-final",
    ])];
    if verifiable && rng.gen_bool(0.5) {
        let daemon = *["central", "all", "synchronous"].choose(rng).unwrap();
        // Now and then every arbitrary start instead of the file's, where
        // they are few (SSLE's and Johnen's are millions: minutes).
        let few_starts = !program.contains("ssle") && !program.contains("johnen");
        let from = if few_starts && rng.gen_bool(0.1) {
            "random"
        } else {
            &init
        };
        out.push(call(&[
            "verify",
            program,
            "-t",
            topology,
            "--from",
            from,
            "-d",
            daemon,
            "--no-rounds",
        ]));
    }
    if rng.gen_bool(0.3) {
        out.push(call(&[
            "sweep",
            program,
            "-t",
            topology,
            "--init",
            &init,
            "--seeds",
            "0..2",
            "--max-steps",
            "30",
            "--csv",
            "/dev/null",
        ]));
    }
    if rng.gen_bool(0.4) {
        let script = format!("load {init}\nstep 3\nsave {saved}\nload {saved}\nshow\nquit\n");
        out.push(fed(&["repl", program, "-t", topology], script));
    }
    let seed = rng.gen_range(0..1000u32).to_string();
    let args = [
        "repl", program, "-t", topology, "--init", "random", "--seed", &seed,
    ];
    out.push(fed(&args, format!("save {}\nquit\n", path_str(&base))));
    out
}

/// Some lines from the pools, as one block (the junk `mutate_lines` inserts).
fn lines_junk(
    rng: &mut ChaCha8Rng,
    names: &[String],
    procs: &[&str],
    values: &[&str],
    channels: &[&str],
) -> Vec<String> {
    (0..8)
        .map(|_| {
            String::from_utf8_lossy(&init_line(rng, names, procs, values, channels)).into_owned()
        })
        .collect()
}

/// One init-file line: an assignment, a channel, a comment, a blank or a
/// hostile line.
fn init_line(
    rng: &mut ChaCha8Rng,
    names: &[String],
    procs: &[&str],
    values: &[&str],
    channels: &[&str],
) -> Vec<u8> {
    match rng.gen_range(0..10) {
        0..=5 => format!(
            "{}.{} = {}",
            procs.choose(rng).unwrap(),
            names.choose(rng).unwrap(),
            values.choose(rng).unwrap()
        )
        .into_bytes(),
        6 if rng.gen_bool(0.2) => format!("0->1 ={}", " find(0)".repeat(3000)).into_bytes(),
        6 => channels.choose(rng).unwrap().as_bytes().to_vec(),
        7 => b"# a comment".to_vec(),
        8 => Vec::new(),
        _ => hostile_line(rng),
    }
}

/// Schedule lines that read: moves named by process, action, binder
/// member and drawn values (the program may still refuse them).
const SCHEDULE_LINES: &[&str] = &[
    "0",
    "1 2",
    "{0, 2}",
    "0:copy",
    "0:nope",
    "1:R1@5",
    "0:flip<1>",
    "0:flip<1,0>",
    "99",
    "0 0 0",
    "# comment",
    "",
];

/// Schedule lines that do not read.
const SCHEDULE_JUNK: &[&str] = &[
    "0:flip<",
    "-1",
    "18446744073709551616",
    "0:",
    ":",
    "0:a@",
    "0:a@99999999999999999999",
];

/// A schedule line, nearly always readable (one bad line spoils a file).
fn schedule_line(rng: &mut ChaCha8Rng) -> &'static str {
    let pool = if rng.gen_bool(0.98) {
        SCHEDULE_LINES
    } else {
        SCHEDULE_JUNK
    };
    pool.choose(rng).unwrap()
}

/// `verify --witness` into directories that exist, do not, cannot, or are
/// files, then the witness it wrote, edited, replayed by `run` and the
/// REPL.
fn witness(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    std::fs::write(dir.join("file"), "not a directory").expect("scratch file");
    let &(program, topology) = [
        ("programs/dijkstra_kstate.gc", "ring:3"),
        ("programs/herman.gc", "uring:3"),
        ("tests/golden/programs/cond.gc", "ring:3"),
        ("tests/golden/programs/max_graph.gc", "chain:3"),
    ]
    .choose(rng)
    .unwrap();
    // Each program its own witness directory, so that a replay reads a
    // witness of the program it runs.
    let stem = Path::new(program).file_stem().unwrap().to_string_lossy();
    let witness_dir = dir.join(format!("w-{stem}"));
    // The replay reads files that exist only after a verify, so it is
    // built from the last witness the previous cases left (read before
    // this case may clear the directory), or from schedule lines alone.
    let (init, sched) = std::fs::read_dir(&witness_dir)
        .ok()
        .and_then(|entries| {
            let mut inits: Vec<_> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "init"))
                .collect();
            inits.sort();
            let init = inits.choose(rng)?.clone();
            let init_text = std::fs::read(&init).ok()?;
            let sched_text = std::fs::read(init.with_extension("sched")).ok()?;
            Some((init_text, sched_text))
        })
        .unwrap_or_default();
    let fresh = path_str(&witness_dir);
    if rng.gen_bool(0.3) {
        let _ = std::fs::remove_dir_all(&witness_dir);
    }
    let targets = [
        fresh.clone(),
        fresh.clone(),
        fresh.clone(),
        fresh.clone(),
        fresh.clone(),
        path_str(&dir.join("file")),
        path_str(&dir.join("file/below")),
        path_str(&dir.join("a/b/c")),
        path_str(&dir.join("x".repeat(300))),
        path_str(&dir.join("new\nline")),
        path_str(&dir.join("é ü")),
        "/dev/null".into(),
        "/proc/self/nope".into(),
        String::new(),
        format!("{fresh}/../w-{stem}"),
    ];
    let target = targets.choose(rng).unwrap().clone();
    let daemon = *["central", "all", "distributed"].choose(rng).unwrap();
    let mut out = vec![call(&[
        "verify",
        program,
        "-t",
        topology,
        "-d",
        daemon,
        "--witness",
        &target,
    ])];
    let sched = if sched.is_empty() || rng.gen_bool(0.2) {
        let lines: Vec<&str> = (0..rng.gen_range(0..20))
            .map(|_| schedule_line(rng))
            .collect();
        lines.join("\n").into_bytes()
    } else if rng.gen_bool(0.5) {
        let junk: Vec<&str> = (0..4).map(|_| schedule_line(rng)).collect();
        mutate_lines(&sched, rng, &junk)
    } else {
        sched
    };
    let init = if rng.gen_bool(0.3) {
        mutate_lines(&init, rng, &["0.x = 5", "1.x = true", "*.x = 0"])
    } else {
        init
    };
    let init = write(dir, "replay.init", &init);
    let sched = write(dir, "replay.sched", &sched);
    let schedule = format!("schedule:{sched}");
    out.push(call(&[
        "run",
        program,
        "-t",
        topology,
        "--init",
        &init,
        "--daemon",
        &schedule,
        "--max-steps",
        "200",
        "--no-final",
    ]));
    if rng.gen_bool(0.3) {
        let script = format!("load {init}\ndaemon {schedule}\nstep 5\nrun 50\nback 2\nquit\n");
        out.push(fed(&["repl", program, "-t", topology], script));
    }
    out
}

/// The two shards of a small sweep, written once per process: the pieces
/// `sweep_merge` edits.
fn sweep_pieces(dir: &Path) -> &'static (Vec<u8>, Vec<u8>) {
    static PIECES: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    PIECES.get_or_init(|| {
        let piece = |shard: &str| {
            let path = dir.join(format!("shard{}.csv", &shard[..1]));
            let args = [
                "sweep",
                "programs/dijkstra_kstate.gc",
                "-t",
                "ring:3..5",
                "-d",
                "central,synchronous",
                "--seeds",
                "0..2",
                "--shard",
                shard,
                "--csv",
                path.to_str().expect("UTF-8"),
            ];
            let code = super::invoke(&args, "").expect("the base sweep runs");
            assert_eq!(code, 0, "the base sweep succeeds");
            std::fs::read(&path).expect("the base sweep wrote its CSV")
        };
        (piece("1/2"), piece("2/2"))
    })
}

/// Fields no sweep writes: out-of-range exits and counts, control
/// characters, quoted commas, very wide values.
const CSV_JUNK: &[&str] = &[
    "",
    ",,,,",
    "-1",
    "300",
    "abc",
    "\x1b[2J",
    "99999999999999999999999",
    "NaN",
    "1e9",
    "\"a,b\"",
    "\"unterminated",
    "n,daemon",
];

/// `sweep --merge` of a sweep's shards, edited at the line and field level.
fn sweep_merge(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    let (a, b) = sweep_pieces(dir.parent().expect("the case directory has a parent"));
    let mut pieces = Vec::new();
    for (k, base) in [a, b].into_iter().enumerate() {
        if rng.gen_bool(0.2) && k == 1 {
            continue;
        }
        let text = match rng.gen_range(0..5) {
            0 => mutate_lines(base, rng, CSV_JUNK),
            1 => edit_fields(base, rng),
            _ => base.clone(),
        };
        pieces.push(write(dir, &format!("piece{k}.csv"), &text));
    }
    if rng.gen_bool(0.1) {
        pieces.push(
            ["/dev/zero", "/dev/null", "/proc/self/status", "."]
                .choose(rng)
                .unwrap()
                .to_string(),
        );
    }
    let plot = path_str(&dir.join("merged.svg"));
    let mut args = vec!["sweep".to_string(), "--merge".into()];
    args.extend(pieces);
    if rng.gen_bool(0.5) {
        args.extend(["--plot".into(), plot]);
        if rng.gen_bool(0.5) {
            args.push("--log".into());
        }
        if rng.gen_bool(0.3) {
            args.extend(["--plot-measure".into(), "rounds".into()]);
        }
    }
    if rng.gen_bool(0.3) {
        args.extend(["--csv".into(), "-".into()]);
    }
    vec![Invocation {
        args,
        stdin: String::new(),
    }]
}

/// One field of a data line replaced by junk, or widened.
fn edit_fields(text: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(text) else {
        return text.to_vec();
    };
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for _ in 0..rng.gen_range(1..3) {
        if lines.len() < 2 {
            break;
        }
        let row = rng.gen_range(1..lines.len());
        let mut fields: Vec<String> = lines[row].split(',').map(String::from).collect();
        let col = rng.gen_range(0..fields.len());
        fields[col] = if rng.gen_bool(0.1) {
            "w".repeat(70_000)
        } else {
            CSV_JUNK.choose(rng).unwrap().to_string()
        };
        lines[row] = fields.join(",");
    }
    (lines.join("\n") + "\n").into_bytes()
}

/// A Graphviz graph: names bare, numeric, quoted with escapes and HTML;
/// attributes naming variables, ids, positions and Graphviz's own; edge
/// chains, subgraphs, defaults, comments; sometimes large.
fn dot_text(rng: &mut ChaCha8Rng, nodes: usize) -> String {
    let directed = rng.gen_bool(0.2);
    let kind = ["graph", "strict graph", "GRAPH"][rng.gen_range(0..3)];
    let kind = if directed { "digraph" } else { kind };
    let op = if directed == rng.gen_bool(0.95) {
        "->"
    } else {
        "--"
    };
    let name = |rng: &mut ChaCha8Rng, i: usize| -> String {
        match rng.gen_range(0..8) {
            0 => format!("\"n {i}\""),
            1 => format!("\"a\\\"{i}\""),
            2 => format!("<<b>{i}</b>>"),
            3 => format!("\"é{i}\""),
            4 => format!("-{i}.5"),
            _ => format!("v{i}"),
        }
    };
    let names: Vec<String> = (0..nodes).map(|i| name(rng, i)).collect();
    let attrs = [
        "x=1",
        "\"x\"=2",
        "x=99",
        "id=5",
        "id=-1",
        "pos=\"1,2!\"",
        "pos=\"a,b\"",
        "label=\"q\\\\\"",
        "color=red",
        "\"gc:x\"=1",
        "\"sent[1]\"=0",
        "\"p[0]\"=1",
        "s=hungry",
        "directed=true",
        "head=1",
        "bogus=1",
        "level=9223372036854775808",
        "x=\"\"",
    ];
    let attr_list = |rng: &mut ChaCha8Rng| -> String {
        if rng.gen_bool(0.5) {
            return String::new();
        }
        let picked: Vec<&str> = (0..rng.gen_range(1..4))
            .map(|_| *attrs.choose(rng).unwrap())
            .collect();
        format!(" [{}]", picked.join(", "))
    };
    // Subgraphs, which the reader refuses, in a few files only.
    let subgraphs = rng.gen_bool(0.05);
    let mut out = format!("{kind} G {{\n");
    for (i, n) in names.iter().enumerate() {
        if rng.gen_bool(0.6) {
            out.push_str(&format!("  {n}{};\n", attr_list(rng)));
        }
        // A spanning path keeps most graphs connected; the extra edges
        // make chains, self-loops, duplicates and subgraph operands.
        if i > 0 {
            out.push_str(&format!("  {} {op} {n}{}\n", names[i - 1], attr_list(rng)));
        }
        match rng.gen_range(0..12) {
            0 => out.push_str(&format!("  {n} {op} {n}\n")),
            1 => out.push_str(&format!(
                "  {n} {op} {} {op} {}\n",
                names.choose(rng).unwrap(),
                names.choose(rng).unwrap()
            )),
            2 if subgraphs => out.push_str(&format!(
                "  {{{} {}}} {op} {n}\n",
                names.choose(rng).unwrap(),
                names.choose(rng).unwrap()
            )),
            3 if subgraphs => out.push_str(&format!("  subgraph s{i} {{ {n}; }}\n")),
            4 => out.push_str(&format!("  node{};\n", attr_list(rng))),
            5 => out.push_str("  // a comment\n  /* another */\n# cpp line\n"),
            6 => out.push_str("  rankdir=LR\n"),
            _ => {}
        }
    }
    out.push_str("}\n");
    out
}

/// DOT and edge-list topologies, generated and mutated, through `check`,
/// `run`, `export` and, when small, `verify`.
fn dot_file(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    let nodes = *[1, 2, 3, 4, 7, 30, 2000].choose(rng).unwrap();
    let mut text = dot_text(rng, nodes);
    let mutated = rng.gen_bool(0.3);
    if mutated {
        text = super::mutate(&text, rng);
    }
    let (spec, file) = if rng.gen_bool(0.8) {
        ("dot", write(dir, "topology.dot", text.as_bytes()))
    } else {
        let pairs: Vec<String> = (0..rng.gen_range(0..nodes * 2))
            .map(|_| {
                let a = rng.gen_range(0..nodes);
                let b = rng.gen_range(0..nodes);
                [
                    format!("{a} {b}"),
                    format!("{a},{b}"),
                    format!("{a}"),
                    "-1 0".into(),
                    "9223372036854775808 1".into(),
                    "# c".into(),
                ][if rng.gen_bool(0.9) {
                    0
                } else {
                    rng.gen_range(1..6)
                }]
                .clone()
            })
            .collect();
        (
            "file",
            write(dir, "topology.edges", pairs.join("\n").as_bytes()),
        )
    };
    let topology = format!("{spec}:{file}");
    let program = *[
        "tests/golden/programs/max_graph.gc",
        "programs/matching.gc",
        "programs/arbitration.gc",
        "programs/dijkstra_kstate.gc",
        "programs/ssle.gc",
    ]
    .choose(rng)
    .unwrap();
    let daemon = *["central", "distributed", "locally-central"]
        .choose(rng)
        .unwrap();
    let mut out = vec![
        call(&["check", program, "-t", &topology]),
        call(&[
            "run",
            program,
            "-t",
            &topology,
            "-d",
            daemon,
            "--max-steps",
            "30",
            "--no-final",
        ]),
    ];
    if rng.gen_bool(0.3) {
        let format = *["dot", "promela"].choose(rng).unwrap();
        out.push(call(&["export", format, program, "-t", &topology]));
    }
    if !mutated && nodes <= 4 && spec == "dot" {
        out.push(call(&[
            "verify",
            "tests/golden/programs/max_graph.gc",
            "-t",
            &topology,
            "-d",
            "central",
            "--no-rounds",
        ]));
    }
    out
}

/// A formula of `n` as `--param` and `--plot-bound` take them: small and
/// well formed, or (`hostile`) with extreme literals, overflow, deep
/// nesting and malformed pieces.
fn formula_text(rng: &mut ChaCha8Rng, depth: u32, hostile: bool) -> String {
    let leaves = ["n", "0", "1", "2", "3"];
    let extreme = [
        "63",
        "64",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
        "K",
        "",
        "(",
        "n n",
    ];
    if depth == 0 || rng.gen_bool(0.3) {
        let pool: &[&str] = if hostile && rng.gen_bool(0.3) {
            &extreme
        } else {
            &leaves
        };
        return pool.choose(rng).unwrap().to_string();
    }
    let a = formula_text(rng, depth - 1, hostile);
    let b = formula_text(rng, depth - 1, hostile);
    match rng.gen_range(0..10) {
        0 => format!("{a}+{b}"),
        1 => format!("{a}-{b}"),
        2 => format!("{a}*{b}"),
        3 => format!("{a} mod {b}"),
        4 => format!("({a})"),
        5 if hostile => format!("{a}^{b}"),
        6 if hostile => format!("-{a}"),
        7 if hostile => format!("{a}/{b}"),
        8 if hostile => format!("{}{a}{}", "(".repeat(500), ")".repeat(500)),
        9 if hostile => format!("{a}^^{b}"),
        _ => format!("{a} + {b}"),
    }
}

/// A parameter's values as `sweep --param` takes them: formulas, lists,
/// and ranges (whose bounds are integers); `hostile`, with malformed and
/// huge pieces.
fn param_values(rng: &mut ChaCha8Rng, hostile: bool) -> String {
    let bounds = ["1", "2", "0", "3", "5"];
    let bad_bounds = ["-1", "n", "2*n", "9223372036854775807"];
    let bound = |rng: &mut ChaCha8Rng| -> &str {
        if hostile && rng.gen_bool(0.3) {
            bad_bounds.choose(rng).unwrap()
        } else {
            bounds.choose(rng).unwrap()
        }
    };
    let items: Vec<String> = (0..rng.gen_range(1..4))
        .map(|_| match rng.gen_range(0..12) {
            0..=5 => formula_text(rng, 3, hostile),
            6..=8 => format!("{}..{}", bound(rng), bound(rng)),
            9 | 10 => format!(
                "{}..{}{}",
                bound(rng),
                bound(rng),
                ["+2", "*2", "*1", "+0", "+-1", "*0"].choose(rng).unwrap()
            ),
            _ if hostile => ["0..9223372036854775807", "0..99999999", "..", "1..", ""]
                .choose(rng)
                .unwrap()
                .to_string(),
            _ => "n".to_string(),
        })
        .collect();
    items.join(",")
}

/// Formulas through `sweep --param`, `--plot-bound` and `--seeds`, and
/// through `run --param`; one of them hostile at a time, so that the
/// others let the command go on.
fn formula(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    let &(program, param) = [
        ("programs/dijkstra_kstate.gc", "K"),
        ("programs/johnen_leader.gc", "k"),
        ("programs/ssle.gc", "max_level"),
    ]
    .choose(rng)
    .unwrap();
    let hostile = rng.gen_range(0..5);
    let seeds = if hostile == 0 {
        [
            "18446744073709551615",
            "0..18446744073709551615",
            "3..1",
            "-1",
            "0..",
            "a",
            "0..99999999999",
            "18446744073709551614..18446744073709551615",
        ]
        .choose(rng)
    } else {
        ["0", "0..2", "5,1,5"].choose(rng)
    };
    let seeds = format!("--seeds={}", seeds.unwrap());
    let topology = *["ring:3,4", "ring:3..5", "chain:2..4*2", "ring:3..9+3"]
        .choose(rng)
        .unwrap();
    let values = format!("{param}={}", param_values(rng, hostile == 1));
    let plot = path_str(&dir.join("plot.svg"));
    let mut sweep = vec![
        "sweep",
        program,
        "-t",
        topology,
        "--param",
        &values,
        &seeds,
        "--max-steps",
        "40",
        "--csv",
        "/dev/null",
        "--memory-limit",
        super::MEMORY,
    ];
    let bound = format!("--plot-bound={}", formula_text(rng, 3, hostile == 2));
    if rng.gen_bool(0.4) {
        sweep.extend(["--plot", &plot, &bound]);
        if rng.gen_bool(0.5) {
            sweep.push("--log");
        }
    }
    let single = format!("{param}={}", formula_text(rng, 3, hostile == 3));
    vec![
        call(&sweep),
        call(&[
            "run",
            program,
            "-t",
            "ring:3",
            "--param",
            &single,
            "--max-steps",
            "40",
            "--no-final",
            "--memory-limit",
            super::MEMORY,
        ]),
    ]
}

/// Instances where every process is always enabled, some with several
/// moves each: the distributed and locally-central daemons then allow
/// exponentially many steps from one configuration, and verify must list
/// them under its bound or refuse by name.
fn many_moves(rng: &mut ChaCha8Rng, dir: &Path) -> Vec<Invocation> {
    // One value per process keeps the configurations few, so the count of
    // steps is all that grows; two values only on small instances.
    let small = rng.gen_bool(0.4);
    let domain = if small { "bool = false" } else { "0..0 = 0" };
    let statement = if small { "x := not x" } else { "x := x" };
    let mut program = format!("var x: {domain}\nprocess {{\n    a :: true -> {statement}\n");
    if rng.gen_bool(0.5) {
        program.push_str(&format!("    c :: true -> {statement}\n"));
    }
    if rng.gen_bool(0.5) {
        program.push_str(&format!("    d for q in nbrs :: true -> {statement}\n"));
    }
    if rng.gen_bool(0.3) {
        program.push_str("    e :: true -> if random(bool) { skip }\n");
    }
    program.push_str("}\nlegitimate: forall(p in procs : p.x == p.x)\n");
    let file = write(dir, "many.gc", program.as_bytes());
    let size = if small {
        *[2, 3, 4, 5].choose(rng).unwrap()
    } else {
        *[2, 8, 16, 19, 20, 21, 24, 64, 200, 1000]
            .choose(rng)
            .unwrap()
    };
    let family = *["ring", "chain", "star", "complete"].choose(rng).unwrap();
    let topology = format!("{family}:{size}");
    let daemon = *[
        "distributed",
        "locally-central",
        "all",
        "synchronous",
        "central",
        "distributed,locally-central",
    ]
    .choose(rng)
    .unwrap();
    let mut verify = vec!["verify", &file, "-t", &topology, "-d", daemon];
    for (flag, p) in [
        (&["--choice", "first"][..], 0.3),
        (&["--symmetry"][..], 0.3),
        (&["--from", "declared"][..], 0.2),
        (&["--from", "random"][..], 0.2),
        (&["--no-rounds"][..], 0.5),
        (&["--fairness", "weak"][..], 0.2),
    ] {
        if rng.gen_bool(p) {
            verify.extend(flag);
        }
    }
    let run_daemon = *["distributed", "locally-central"].choose(rng).unwrap();
    vec![
        call(&verify),
        call(&[
            "run",
            &file,
            "-t",
            &topology,
            "-d",
            run_daemon,
            "--choice",
            "random",
            "--max-steps",
            "20",
            "--no-final",
        ]),
    ]
}
