//! The summary's counts: moves per action add up to the moves, whichever
//! path the steps took (one move, column by column, the general one), and
//! messages are conserved: in transit at the end = at the start + sent -
//! delivered.

use serde_json::Value;
use std::process::Command;

fn json_run(args: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .arg("run")
        .args(args)
        .args(["--trace-format", "json", "--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn moves_per_action_add_up_to_the_moves() {
    for args in [
        // Single moves, then column by column (a million processes would
        // print too much trace; 5000 synchronous still takes the column path).
        &[
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:300",
            "--init",
            "random",
            "--max-steps",
            "3000",
        ][..],
        &[
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:5000",
            "--init",
            "random",
            "--daemon",
            "synchronous",
            "--max-steps",
            "20",
        ],
        &[
            "programs/johnen_leader.gc",
            "--topology",
            "uring:12",
            "--init",
            "random",
            "--daemon",
            "distributed",
        ],
        &[
            "programs/arbitration.gc",
            "--topology",
            "random:10",
            "--max-steps",
            "500",
        ],
        &[
            "programs/herman.gc",
            "--topology",
            "uring:15",
            "--daemon",
            "synchronous",
            "--init",
            "random",
            "--until",
            "legitimate",
        ],
    ] {
        let lines = json_run(args);
        let summary = lines.last().unwrap();
        let moves = summary["moves"].as_u64().unwrap();
        let counted: u64 = summary["actions"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(counted, moves, "{args:?}: {summary}");
        // And per action, as the trace has them.
        let mut per_action = std::collections::HashMap::<String, u64>::new();
        for step in &lines[1..lines.len() - 1] {
            for m in step["moves"].as_array().unwrap() {
                *per_action
                    .entry(m["action"].as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
        for (label, count) in summary["actions"].as_object().unwrap() {
            assert_eq!(
                per_action.get(label).copied().unwrap_or(0),
                count.as_u64().unwrap(),
                "{args:?}: {label}"
            );
        }
    }
}

#[test]
fn messages_in_transit_are_conserved() {
    let lines = json_run(&[
        "programs/arrow.gc",
        "--topology",
        "tree:8",
        "--seed",
        "3",
        "--init",
        "random",
        "--max-steps",
        "400",
    ]);
    let in_transit = |v: &Value| -> u64 {
        v["channels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["messages"].as_array().unwrap().len() as u64)
            .sum()
    };
    let (first, summary) = (&lines[0], lines.last().unwrap());
    let (sent, delivered) = (
        summary["messages"]["sent"].as_u64().unwrap(),
        summary["messages"]["delivered"].as_u64().unwrap(),
    );
    assert!(sent > 0 && delivered > 0, "{summary}");
    assert_eq!(in_transit(first) + sent - delivered, in_transit(summary));
    // Each step's moves say what they took and sent.
    let (mut took, mut put) = (0, 0);
    // (Lines without moves are rounds in which only timers advanced.)
    for step in &lines[1..lines.len() - 1] {
        for m in step["moves"].as_array().into_iter().flatten() {
            took += u64::from(m.get("took").is_some());
            put += m
                .get("sent")
                .map_or(0, |s| s.as_array().unwrap().len() as u64);
        }
    }
    assert_eq!((took, put), (delivered, sent));
    // Per-neighbour and edge values are keyed by the neighbour.
    let p0 = &summary["final"][0];
    assert!(p0["state"].is_object(), "{p0}");
}
