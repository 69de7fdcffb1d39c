//! Graphviz out: `run --dot`, `export dot` and `verify --witness`'s `.dot`.
//! A configuration's file reads back as a `dot:` topology with the same
//! values, ids and enabled processes; arrows follow node-valued variables;
//! Graphviz itself reads every file written (when it is installed; under
//! `CI=true` it must be).

mod common;
use common::guarded;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    common::scratch("dot", name)
}

/// The summary's final configuration (values and enabled marks).
fn final_configuration(summary: &str) -> String {
    let at = summary
        .find("final configuration:")
        .unwrap_or_else(|| panic!("no final configuration in\n{summary}"));
    summary[at..].to_string()
}

/// Whether Graphviz reads `file` (true), or is missing (false, said loudly;
/// a failure under CI).
fn graphviz_reads(file: &Path, layout: &str) -> bool {
    match Command::new(layout).arg("-Tsvg").arg(file).output() {
        Ok(out) => {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "{layout} fails on {}: {err}",
                file.display()
            );
            assert!(
                !err.contains("Warning"),
                "{layout} warns on {}: {err}",
                file.display()
            );
            assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
            true
        }
        Err(_) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "Graphviz (`{layout}`) is not installed: CI must install it (.ci/run does)"
            );
            eprintln!("SKIPPED: Graphviz is not installed; `{layout}` did not check the files");
            false
        }
    }
}

#[test]
fn a_configuration_reads_back_with_the_same_values() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("dijkstra_kstate.gc", "ring:6", "random", "9"),
        ("dijkstra_kstate.gc", "uring:5", "random", "6"),
        ("johnen_leader.gc", "uring:5", "random", "12"),
        // `color` is a Graphviz attribute: written as `gc:color`.
        ("ssle.gc", "random:8", "random", "40"),
        ("ssle.gc", "grid:2x3", "random", "500"),
        // Edge variables, on the edges.
        ("arbitration.gc", "random:8", "declared", "7"),
    ];
    for (k, (program, topology, init, steps)) in cases.iter().enumerate() {
        let program = format!("programs/{program}");
        let file = scratch(&format!("rt{k}.dot"));
        let file = file.to_str().unwrap();
        let (code, first, err) = guarded(&[
            "run",
            &program,
            "--topology",
            topology,
            "--seed",
            "4",
            "--init",
            init,
            "--max-steps",
            steps,
            "--dot",
            file,
            "--ids",
            "random",
        ]);
        assert!(code == 0, "{program}: {err}");
        let back = format!("dot:{file}");
        let (code, again, err) = guarded(&[
            "run",
            &program,
            "--topology",
            &back,
            "--init",
            "declared",
            "--max-steps",
            "0",
        ]);
        assert_eq!(code, 0, "{program} read back: {err}");
        assert_eq!(
            final_configuration(&first),
            final_configuration(&again),
            "{program} on {topology}"
        );
        graphviz_reads(Path::new(file), "neato");
    }
}

/// Each node line's `id` attribute (none when the id is the index).
fn ids(dot: &str) -> Vec<Option<String>> {
    dot.lines()
        .filter(|l| {
            l.starts_with("  ")
                && l.trim_start().as_bytes()[0].is_ascii_digit()
                && !l.contains(" -- ")
                && !l.contains(" -> ")
        })
        .map(|l| {
            l.split("\"id\"=\"")
                .nth(1)
                .map(|r| r.split('"').next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn the_ids_come_back_too() {
    let file = scratch("ids.dot");
    let file = file.to_str().unwrap();
    let (code, _, err) = guarded(&[
        "export",
        "dot",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "uring:4",
        "--ids",
        "9,3,7,5",
        "-o",
        file,
    ]);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read_to_string(file).unwrap();
    assert!(
        first.contains("label=\"0 (id 9)") || first.contains("\"label\"=\"0 (id 9)"),
        "the label shows the id: {first}"
    );
    let back = format!("dot:{file}");
    let (code, again, err) = guarded(&[
        "export",
        "dot",
        "programs/dijkstra_kstate.gc",
        "--topology",
        &back,
    ]);
    assert_eq!(code, 0, "{err}");
    let want: Vec<Option<String>> = ["9", "3", "7", "5"]
        .iter()
        .map(|s| Some(s.to_string()))
        .collect();
    assert_eq!(ids(&first), want);
    assert_eq!(ids(&again), want);
}

#[test]
fn a_step_is_drawn_as_a_run_of_that_many_steps_ends() {
    let (a, b) = (scratch("step7.dot"), scratch("end7.dot"));
    let args = [
        "run",
        "programs/ssle.gc",
        "--topology",
        "random:9",
        "--seed",
        "3",
    ];
    let (code, _, err) = guarded(
        &[
            &args[..],
            &["--dot", a.to_str().unwrap(), "--dot-step", "7"],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = guarded(
        &[
            &args[..],
            &["--dot", b.to_str().unwrap(), "--max-steps", "7"],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    let (a, b) = (
        std::fs::read_to_string(a).unwrap(),
        std::fs::read_to_string(b).unwrap(),
    );
    assert_eq!(a, b);
    assert!(a.contains("step 7 (moves 7"), "{a}");
    // The mover of step 7 has the red border, the enabled processes the fill.
    assert_eq!(a.matches("\"penwidth\"=\"3\"").count(), 1, "{a}");
    assert!(a.contains("#ffe08a"));
    // Past the end: the last step, with a warning.
    let c = scratch("late.dot");
    let (code, _, err) = guarded(
        &[
            &args[..],
            &["--dot", c.to_str().unwrap(), "--dot-step", "100000"],
        ]
        .concat(),
    );
    assert_eq!(code, 0);
    assert!(
        err.contains("warning: --dot-step 100000: the run ended at step"),
        "{err}"
    );
    let (code, _, err) = guarded(&["run", "programs/ssle.gc", "--dot-step", "3"]);
    assert_eq!(code, 2, "--dot-step needs --dot: {err}");
}

#[test]
fn node_valued_variables_are_arrows() {
    // SSLE's parents form a BFS tree once legitimate: one arrow per non-root.
    let file = scratch("tree.dot");
    let (code, out, err) = guarded(&[
        "run",
        "programs/ssle.gc",
        "--topology",
        "random:10",
        "--seed",
        "5",
        "--init",
        "random",
        "--until",
        "legitimate",
        "--dot",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("legitimate  yes"), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    let arrows = text.matches("\"dir\"=").count();
    assert_eq!(arrows, 9, "{text}");
    // Arbitration: an arrow on exactly the directed forks, towards the head.
    let file = scratch("forks.dot");
    let (code, _, err) = guarded(&[
        "run",
        "programs/arbitration.gc",
        "--topology",
        "complete:4",
        "--max-steps",
        "2",
        "--dot",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let directed = text.matches("\"directed\"=\"true\"").count();
    assert_eq!(text.matches("\"dir\"=").count(), directed, "{text}");
    assert!(
        directed > 0,
        "two thinking philosophers turned hungry: {text}"
    );
    for line in text.lines().filter(|l| l.contains("\"directed\"=\"true\"")) {
        // `a -- b` with head b points forward, with head a back.
        let ends: Vec<&str> = line.trim().split(' ').collect();
        let (a, b) = (ends[0], ends[2]);
        if line.contains(&format!("\"head\"=\"{b}\"")) {
            assert!(line.contains("\"dir\"=\"forward\""), "{line}");
        } else {
            assert!(
                line.contains(&format!("\"head\"=\"{a}\"")) && line.contains("\"dir\"=\"back\""),
                "{line}"
            );
        }
    }
}

#[test]
fn export_dot_draws_the_start() {
    let (code, exported, err) = guarded(&[
        "export",
        "dot",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:5",
    ]);
    assert_eq!(code, 0, "{err}");
    let file = scratch("start.dot");
    let (code, _, err) = guarded(&[
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:5",
        "--max-steps",
        "0",
        "--dot",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(exported, std::fs::read_to_string(file).unwrap());
    assert!(exported.starts_with("// programs/dijkstra_kstate.gc on ring:5, step 0"));
    assert!(exported.contains("graph \"ring:5\" {"));
    assert_eq!(exported.matches(" -- ").count(), 5, "{exported}");
    let (code, _, err) = guarded(&[
        "export",
        "dot",
        "programs/dijkstra_kstate.gc",
        "-o",
        "/nonexistent/dir/x.dot",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot write `/nonexistent/dir/x.dot`"),
        "{err}"
    );
}

#[test]
fn a_counterexample_is_a_closed_chain_of_configurations() {
    let dir = scratch("witness");
    let (code, out, _) = guarded(&[
        "verify",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:5",
        "--param",
        "K=3",
        "--daemon",
        "central",
        "--witness",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("central-cycle.init, .sched, .dot"), "{out}");
    let file = dir.join("central-cycle.dot");
    let text = std::fs::read_to_string(&file).unwrap();
    // 15 steps round a cycle from its first configuration: 15 configurations,
    // the last step back to the first.
    let nodes = text
        .lines()
        .filter(|l| l.starts_with("  c") && !l.contains(" -> "))
        .count();
    assert_eq!(nodes, 15, "{text}");
    assert_eq!(text.matches(" -> ").count(), 15);
    assert!(text.contains("c14 -> c0 [label=\"step 15: 1\"]"), "{text}");
    assert!(
        text.contains("c0 [label=\"start\\l0: x=0\\l1: x=0\\l2: x=2\\l3: x=1\\l4: x=0\\l\"]"),
        "{text}"
    );
    graphviz_reads(&file, "dot");
}

#[test]
fn values_a_random_start_ignores_and_unknown_attributes_are_warned_about() {
    let file = scratch("warn.dot");
    std::fs::write(
        &file,
        "graph { 0 -- 1 -- 2 -- 0; 1 [x=2, colour=3, shape=box] }\n",
    )
    .unwrap();
    let topology = format!("dot:{}", file.display());
    let args = [
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        &topology,
        "--max-steps",
        "0",
    ];
    let (code, _, err) = guarded(&[&args[..], &["--init", "random"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: the start is random, so the 1 values"),
        "{err}"
    );
    assert!(
        err.contains("attributes that name no variable of the program: colour"),
        "{err}"
    );
    let (code, out, err) = guarded(&args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("start is random"), "{err}");
    assert!(
        out.contains("  1: x=2"),
        "the declared start takes the value: {out}"
    );
    // A file this tool wrote has nothing to warn about.
    let drawn = scratch("drawn.dot");
    guarded(&[
        "run",
        "programs/arbitration.gc",
        "--topology",
        "random:6",
        "--max-steps",
        "5",
        "--dot",
        drawn.to_str().unwrap(),
    ]);
    let (_, _, err) = guarded(&[
        "run",
        "programs/arbitration.gc",
        "--topology",
        &format!("dot:{}", drawn.display()),
        "--max-steps",
        "0",
    ]);
    assert!(!err.contains("warning"), "{err}");
}

/// The nodes' centres `neato` (with `extra` options) places, in points.
fn neato_places(file: &Path, extra: &[&str]) -> Option<Vec<(f64, f64)>> {
    let out = Command::new("neato")
        .args(extra)
        .arg("-Tplain")
        .arg(file)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let places = text
        .lines()
        .filter(|l| l.starts_with("node "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect();
    Some(places)
}

#[test]
fn names_with_backslashes_and_places_in_points_read_back() {
    // A topology file whose name ends in a backslash: the graph's name
    // once escaped its closing quote.
    let edges = scratch("edges\\");
    std::fs::write(&edges, "0 1\n1 2\n2 0\n").unwrap();
    let spec = format!("file:{}", edges.display());
    let file = scratch("backslash.dot");
    let (code, _, err) = guarded(&[
        "export",
        "dot",
        "programs/dijkstra_kstate.gc",
        "--topology",
        &spec,
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("edges\\\\\" {"), "{text}");
    let back = format!("dot:{}", file.display());
    let (code, out, err) = guarded(&["check", "programs/dijkstra_kstate.gc", "--topology", &back]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("with 3 processes"), "{out}");
    graphviz_reads(&file, "neato");
    // The Petersen graph as drawn: `neato` and `neato -n2` keep the places
    // (one shift apart: -n2 does not move the picture to the origin).
    let file = scratch("petersen.dot");
    let (code, _, err) = guarded(&[
        "export",
        "dot",
        "programs/arbitration.gc",
        "--topology",
        "petersen",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (Some(plain), Some(n2)) = (neato_places(&file, &[]), neato_places(&file, &["-n2"])) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "neato is missing"
        );
        return;
    };
    assert_eq!(plain.len(), 10);
    let dx = plain[0].0 - n2[0].0;
    for (a, b) in plain.iter().zip(&n2) {
        assert!(
            (a.0 - b.0 - dx).abs() < 0.02 && (a.1 - b.1).abs() < 0.02,
            "{plain:?} {n2:?}"
        );
    }
    // Outer pentagon 0..4 twice as far from the centre as the pentagram 5..9.
    let centre = plain
        .iter()
        .fold((0.0, 0.0), |c, p| (c.0 + p.0 / 10.0, c.1 + p.1 / 10.0));
    let r = |p: &(f64, f64)| (p.0 - centre.0).hypot(p.1 - centre.1);
    for i in 0..5 {
        assert!(
            (r(&plain[i]) / r(&plain[i + 5]) - 2.0).abs() < 0.01,
            "{plain:?}"
        );
    }
}
