//! The explorer's JSON API (docs/explore.md) over HTTP: every call, the
//! moves it lists against the steps it takes, paths saved and replayed,
//! malformed requests, and sessions side by side.

mod common;

use common::server::Server;
use serde_json::{json, Value};
use std::process::Command;

const DIJKSTRA: &str = "programs/dijkstra_kstate.gc";

fn session(s: &Server) -> (String, Value) {
    let answer = s.ok("session", json!({}));
    (answer["session"].as_str().unwrap().to_string(), answer)
}

fn rows(state: &Value) -> Vec<Vec<String>> {
    serde_json::from_value(state["rows"].clone()).unwrap()
}

#[test]
fn every_move_listed_is_the_step_taken() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:6", "--init", "random", "--seed", "4"]);
    let (id, first) = session(&s);
    let start = first["state"].clone();
    assert_eq!(first["instance"]["picture"]["n"], 6);
    assert_eq!(start["step"], 0);
    let moves = start["moves"].as_array().unwrap();
    let enabled: Vec<u64> = serde_json::from_value(start["enabled"].clone()).unwrap();
    // Dijkstra's processes have one move each when enabled.
    assert_eq!(moves.len(), enabled.len());
    assert!(moves.len() >= 2, "{start}");
    for m in moves {
        let text = m["text"].as_str().unwrap();
        let after = s.ok("step", json!({"session": id, "line": text}))["state"].clone();
        assert_eq!(after["step"], 1);
        assert_eq!(after["last_movers"], json!([m["process"]]));
        // The preview said what changes, and nothing else did.
        let mut expected = rows(&start);
        for c in m["changes"].as_array().unwrap() {
            let (p, value) = (c[0].as_u64().unwrap() as usize, c[3].as_str().unwrap());
            expected[p][0] = value.to_string();
        }
        assert_eq!(rows(&after), expected, "{text}");
        s.ok("goto", json!({"session": id, "node": 0}));
    }
    // Each first move made a child of the start; taking one again follows it.
    let state = s.ok("state", json!({"session": id}))["state"].clone();
    assert_eq!(state["tree"].as_array().unwrap().len(), 1 + moves.len());
    let again = s.ok("step", json!({"session": id, "line": moves[0]["text"]}))["state"].clone();
    assert_eq!(again["tree"].as_array().unwrap().len(), 1 + moves.len());
    assert_eq!(again["node"], 1);
}

#[test]
fn the_daemon_is_obeyed() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:6", "--init", "random", "--seed", "4"]);
    let (id, first) = session(&s);
    let enabled: Vec<u64> = serde_json::from_value(first["state"]["enabled"].clone()).unwrap();
    let two = format!("{} {}", enabled[0], enabled[1]);
    let (status, answer) = s.call("step", json!({"session": id, "line": two}));
    assert_eq!(status, 422);
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("central daemon moves one process"));
    let off = (0..6).find(|p| !enabled.contains(p)).unwrap();
    let (status, answer) = s.call("step", json!({"session": id, "line": off.to_string()}));
    assert_eq!(status, 422);
    assert!(
        answer["error"].as_str().unwrap().contains("not enabled"),
        "{answer}"
    );
    // Synchronous: every enabled process, or nothing.
    let sync = s.ok("daemon", json!({"session": id, "daemon": "synchronous"}));
    assert_eq!(sync["state"]["daemon"], "synchronous");
    let (status, _) = s.call("step", json!({"session": id, "line": two}));
    assert_eq!(status, 422);
    let all: Vec<String> = enabled.iter().map(u64::to_string).collect();
    let after = s.ok("step", json!({"session": id, "line": all.join(" ")}))["state"].clone();
    assert_eq!(after["moves_taken"], enabled.len());
    let (status, answer) = s.call("daemon", json!({"session": id, "daemon": "sched"}));
    assert_eq!(status, 422, "{answer}");
    let (status, answer) = s.call("daemon", json!({"session": id, "daemon": "schedule:x"}));
    assert_eq!(status, 422);
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("open a schedule as a path"));
}

#[test]
fn runs_stop_where_asked_and_paths_replay() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:7", "--init", "random", "--seed", "9"]);
    let (id, _) = session(&s);
    let run = s.ok(
        "run",
        json!({"session": id, "steps": 5000, "until": "legitimate"}),
    );
    assert_eq!(run["stopped"], "until");
    assert_eq!(run["state"]["legitimate"], true);
    let taken = run["taken"].as_u64().unwrap();
    assert!(taken > 0);
    assert_eq!(run["state"]["step"], taken);
    // A break stops a run when its condition becomes true.
    s.ok("goto", json!({"session": id, "node": 0}));
    let run = s.ok(
        "run",
        json!({"session": id, "steps": 100, "breaks": ["count(p in procs : enabled(p)) == 1"]}),
    );
    assert!(
        run["stopped"].as_str().unwrap().starts_with("break"),
        "{run}"
    );
    assert_eq!(run["state"]["enabled"].as_array().unwrap().len(), 1);
    let value = s.ok(
        "eval",
        json!({"session": id, "expr": "count(p in procs : enabled(p))"}),
    );
    assert_eq!(value["value"], "1");
    // A tuple and a set are shown whole, the set's members by number.
    let value = s.ok(
        "eval",
        json!({"session": id, "expr": "(count(p in procs : enabled(p)), 2)"}),
    );
    assert_eq!(value["value"], "(1, 2)");
    let enabled = &run["state"]["enabled"][0];
    let value = s.ok(
        "eval",
        json!({"session": id, "expr": "{p in procs : enabled(p)}"}),
    );
    assert_eq!(value["value"], format!("{{{enabled}}}"));
    let (status, answer) = s.call("eval", json!({"session": id, "expr": "x +"}));
    assert_eq!(status, 422);
    assert!(
        answer["error"].as_str().unwrap().contains("<input>"),
        "{answer}"
    );
    let (status, _) = s.call("run", json!({"session": id, "until": "1 + 1"}));
    assert_eq!(status, 422);
    // The path saved replays to the same configuration.
    let state = s.ok("state", json!({"session": id}))["state"].clone();
    let saved = s.ok("save", json!({"session": id}));
    let dir = std::env::temp_dir().join(format!("guarded-explore-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (init, sched) = (dir.join("p.init"), dir.join("p.sched"));
    std::fs::write(&init, saved["init"].as_str().unwrap()).unwrap();
    std::fs::write(&sched, saved["sched"].as_str().unwrap()).unwrap();
    assert_eq!(
        saved["sched"].as_str().unwrap().lines().count() as u64,
        state["step"].as_u64().unwrap()
    );
    let replay = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .arg("run")
        .args([DIJKSTRA, "-t", "ring:7", "--init"])
        .arg(&init)
        .arg("--daemon")
        .arg(format!("schedule:{}", sched.display()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    let finals: Vec<String> = text
        .split("final configuration:")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.trim()
                .split_once(": x=")
                .map(|(_, v)| v.trim_end_matches(" *").to_string())
        })
        .collect();
    let shown: Vec<String> = rows(&state).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(finals, shown);
}

#[test]
fn edits_verify_and_witnesses() {
    let s = Server::start(&[
        DIJKSTRA,
        "-t",
        "ring:4",
        "--param",
        "K=3",
        "-d",
        "synchronous",
    ]);
    let (id, first) = session(&s);
    let instance = s.ok("instance", json!({"session": id}));
    assert_eq!(instance, first["instance"]);
    assert_eq!(instance["has_messages"], false);
    assert_eq!(instance["program"], DIJKSTRA);
    let source = first["instance"]["source"].as_str().unwrap().to_string();
    let broken = source.replacen("x := left.x", "x := left.x == 0", 1);
    let (status, answer) = s.call("program", json!({"session": id, "source": broken}));
    assert_eq!(status, 422);
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains("expected int, found bool") && error.contains("help:"),
        "{error}"
    );
    let fixed = s.ok("program", json!({"session": id, "source": source}));
    assert_eq!(fixed["state"]["step"], 0);
    // No verify yet.
    assert_eq!(s.call("verify_status", json!({"session": id})).0, 409);
    assert_eq!(
        s.call("open", json!({"session": id, "witness": "x"})).0,
        409
    );
    s.ok("verify", json!({"session": id}));
    let status = loop {
        let st = s.ok("verify_status", json!({"session": id}));
        if st["running"] == false {
            break st;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status["exit"], 5, "{status}");
    assert!(status["output"]
        .as_str()
        .unwrap()
        .contains("convergence  fails"));
    assert_eq!(status["witnesses"], json!(["synchronous-cycle"]));
    let opened = s.ok(
        "open",
        json!({"session": id, "witness": "synchronous-cycle"}),
    )["state"]
        .clone();
    let path = opened["path"].as_array().unwrap();
    assert_eq!(path.len(), 4, "{opened}");
    // The cycle ends where it began.
    let start = s.ok("goto", json!({"session": id, "node": 0}))["state"].clone();
    assert_eq!(rows(&start), rows(&opened));
    for bad in ["../etc/passwd", "", "synchronous-nothing"] {
        let (status, _) = s.call("open", json!({"session": id, "witness": bad}));
        assert_eq!(status, 422, "{bad}");
    }
}

#[test]
fn malformed_requests_get_json_errors() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:4"]);
    let (id, _) = session(&s);
    let cases: Vec<(&str, &str, String, u16)> = vec![
        ("POST", "/api/state", "not json".into(), 400),
        ("POST", "/api/state", "[1, 2]".into(), 400),
        ("POST", "/api/state", "{}".into(), 400),
        (
            "POST",
            "/api/state",
            json!({"session": "s999"}).to_string(),
            404,
        ),
        ("POST", "/api/state", json!({"session": 7}).to_string(), 400),
        ("POST", "/api/fly", json!({"session": id}).to_string(), 404),
        ("GET", "/api/state", String::new(), 405),
        ("POST", "/", String::new(), 405),
        ("GET", "/etc/passwd", String::new(), 404),
        ("POST", "/api/step", json!({"session": id}).to_string(), 400),
        (
            "POST",
            "/api/step",
            json!({"session": id, "line": "0:nothing"}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/step",
            json!({"session": id, "line": "zero"}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/step",
            json!({"session": id, "line": "99"}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/goto",
            json!({"session": id, "node": 99}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/goto",
            json!({"session": id, "node": -1}).to_string(),
            400,
        ),
        (
            "POST",
            "/api/run",
            json!({"session": id, "steps": "many"}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/run",
            json!({"session": id, "breaks": "x"}).to_string(),
            422,
        ),
        (
            "POST",
            "/api/program",
            json!({"session": id, "source": "var"}).to_string(),
            422,
        ),
        ("POST", "/api/state", "x".repeat(9 << 20), 413),
    ];
    for (method, path, body, want) in cases {
        let (status, text) = s.request(method, path, &body);
        assert_eq!(
            status,
            want,
            "{method} {path} {}",
            &body[..body.len().min(80)]
        );
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{answer}"
        );
    }
    // The page and its parts are served; the server still answers.
    for path in ["/", "/explore.js", "/explore.css"] {
        assert_eq!(s.request("GET", path, "").0, 200, "{path}");
    }
    assert_eq!(s.ok("state", json!({"session": id}))["state"]["step"], 0);
}

#[test]
fn sessions_are_apart_even_at_once() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:8", "--init", "random", "--seed", "2"]);
    let (a, _) = session(&s);
    let (b, _) = session(&s);
    s.ok("run", json!({"session": a, "steps": 10}));
    let sb = s.ok("state", json!({"session": b}))["state"].clone();
    assert_eq!(sb["step"], 0);
    // Four clients at once, each on its own session.
    let address = s.address.clone();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let address = address.clone();
            std::thread::spawn(move || {
                let client = common::server::Client { address };
                let client = &client;
                let id = client.ok("session", json!({}))["session"]
                    .as_str()
                    .unwrap()
                    .to_string();
                for k in 1..=20u64 {
                    let st = client.ok("daemon_step", json!({"session": id}))["state"].clone();
                    assert_eq!(st["step"], k);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(s.ok("state", json!({"session": a}))["state"]["step"], 10);
    assert_eq!(s.ok("state", json!({"session": b}))["state"]["step"], 0);
}

#[test]
fn programs_in_ticks_step_by_ticks_and_their_paths_replay() {
    let args = [
        "programs/arrow.gc",
        "-t",
        "tree:7",
        "--init",
        "random",
        "--seed",
        "4",
    ];
    let s = Server::start(&args);
    let (id, first) = session(&s);
    assert_eq!(first["state"]["ticks"], true);
    assert_eq!(first["instance"]["daemons"], json!(["ticks"]));
    assert!(!first["state"]["channels"].as_array().unwrap().is_empty());
    let run = s.ok("run", json!({"session": id, "steps": 6}));
    assert_eq!(run["taken"], 6);
    let state = run["state"].clone();
    // Each tick is written with the delays its messages took.
    let texts: Vec<&str> = state["path"].as_array().unwrap()[1..]
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert!(texts.iter().all(|t| t.starts_with("tick")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.len() > 4),
        "some tick sends: {texts:?}"
    );
    let saved = s.ok("save", json!({"session": id}));
    let dir = std::env::temp_dir().join(format!("guarded-explore-ticks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (init, sched) = (dir.join("p.init"), dir.join("p.sched"));
    std::fs::write(&init, saved["init"].as_str().unwrap()).unwrap();
    std::fs::write(&sched, saved["sched"].as_str().unwrap()).unwrap();
    let replay = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .arg("run")
        .args(&args[..3])
        .args(["--seed", "4", "--init"])
        .arg(&init)
        .arg("--daemon")
        .arg(format!("schedule:{}", sched.display()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let vars: Vec<String> =
        serde_json::from_value(first["instance"]["picture"]["vars"].clone()).unwrap();
    let finals: Vec<String> = text
        .split("final configuration:")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.trim()
                .split_once(": ")
                .map(|(_, v)| v.trim_end_matches(" *").to_string())
        })
        .take(7)
        .collect();
    let shown: Vec<String> = rows(&state)
        .iter()
        .map(|r| {
            r.iter()
                .zip(&vars)
                .map(|(v, n)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(finals, shown);
}

#[test]
fn what_cannot_be_served_is_said() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
            .arg("explore")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, err) = run(&[DIJKSTRA, "-t", "ring:6000"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("at most 5000 processes"), "{err}");
    let (code, err) = run(&[DIJKSTRA, "-t", "ring:4", "-d", "schedule:nothing.sched"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("open a schedule as a path"), "{err}");
    let (code, err) = run(&[DIJKSTRA, "--witness", "no/such"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--witness"), "{err}");
    // A port taken is said, not a crash.
    let s = Server::start(&[DIJKSTRA, "-t", "ring:4"]);
    let port = s.address.rsplit(':').next().unwrap();
    let (code, err) = run(&[DIJKSTRA, "-t", "ring:4", "--port", port]);
    assert_eq!(code, Some(1));
    assert!(err.contains("cannot listen"), "{err}");
}

#[test]
fn a_witness_named_on_the_command_line_is_the_path() {
    let dir = std::env::temp_dir().join(format!("guarded-explore-w-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "verify",
            DIJKSTRA,
            "-t",
            "ring:4",
            "-p",
            "K=3",
            "-d",
            "distributed",
        ])
        .args(["--no-properties", "--no-rounds", "--witness"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let witness = dir.join("distributed-cycle");
    let s = Server::start(&[
        DIJKSTRA,
        "-t",
        "ring:4",
        "-p",
        "K=3",
        "-d",
        "distributed",
        "--witness",
        witness.to_str().unwrap(),
    ]);
    let (_, first) = session(&s);
    let state = &first["state"];
    let sched = std::fs::read_to_string(witness.with_extension("sched")).unwrap();
    let texts: Vec<&str> = state["path"].as_array().unwrap()[1..]
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), sched.lines().count());
    assert_eq!(state["step"].as_u64().unwrap() as usize, texts.len());
}

#[test]
fn ctrl_c_takes_the_verify_folders_with_it() {
    let mut s = Server::start(&[DIJKSTRA, "-t", "ring:3", "-d", "central"]);
    let (id, _) = session(&s);
    s.ok("verify", json!({"session": id}));
    while s.ok("verify_status", json!({"session": id}))["running"] == true {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let folder = std::env::temp_dir().join(format!("guarded-explore-{}-{id}", s.pid()));
    assert!(folder.join("witnesses").is_dir(), "{}", folder.display());
    assert!(s.interrupt().success());
    assert!(!folder.exists(), "{} is left", folder.display());
}

#[test]
fn a_preview_says_what_a_move_takes_and_sends() {
    let s = Server::start(&["tests/golden/programs/chang_roberts.gc", "-t", "ring:3"]);
    let (id, first) = session(&s);
    let moves = first["state"]["moves"].as_array().unwrap().clone();
    let wake = moves.iter().find(|m| m["text"] == "0:wake").unwrap();
    assert_eq!(
        wake["changes"],
        json!([
            [0, "awake", "false", "true"],
            ["message", "sent elect(0) to 1"]
        ])
    );
    let after = s.ok("step", json!({"session": id, "line": "0:wake"}))["state"].clone();
    assert_eq!(after["channels"], json!([[0, 1, ["elect(0)"]]]));
    // Process 1, asleep, joins on taking the smaller id and sends its own.
    let join = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["text"] == "1:join")
        .unwrap()
        .clone();
    assert_eq!(
        join["changes"],
        json!([
            [1, "awake", "false", "true"],
            ["message", "took elect(0) from 0"],
            ["message", "sent elect(1) to 2"]
        ])
    );
    let joined = s.ok("step", json!({"session": id, "line": "1:join"}))["state"].clone();
    assert_eq!(joined["channels"], json!([[1, 2, ["elect(1)"]]]));
}

#[test]
fn why_a_process_cannot_move_is_the_repls_answer() {
    let s = Server::start(&[DIJKSTRA, "-t", "ring:6", "--init", "random", "--seed", "4"]);
    let (id, first) = session(&s);
    let enabled: Vec<u64> = serde_json::from_value(first["state"]["enabled"].clone()).unwrap();
    let off = (0..6).find(|p| !enabled.contains(p)).unwrap();
    let answer = s.ok("why", json!({"session": id, "process": off}));
    let text = answer["text"].as_str().unwrap();
    // What `fire P` prints in the REPL on the same start, after its header.
    let role = if off == 0 { "advance" } else { "copy" };
    assert!(
        text.starts_with(&format!("  `{role}`: its guard is false\n")),
        "{text}"
    );
    let repl = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "repl", DIJKSTRA, "-t", "ring:6", "--init", "random", "--seed", "4",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    repl.stdin
        .as_ref()
        .unwrap()
        .write_all(format!("fire {off}\n").as_bytes())
        .unwrap();
    let out = repl.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("process {off} is not enabled:\n{text}")),
        "{said}"
    );
    // Only processes of the instance.
    let (status, answer) = s.call("why", json!({"session": id, "process": 6}));
    assert_eq!(status, 422);
    assert!(
        answer["error"].as_str().unwrap().contains("does not exist"),
        "{answer}"
    );
}

#[test]
fn a_process_given_alone_is_named_by_the_move_it_made() {
    for (program, topology) in [
        ("programs/matching.gc", "ring:4"),
        ("programs/herman.gc", "uring:3"),
    ] {
        let s = Server::start(&[program, "-t", topology, "--seed", "2"]);
        let (id, first) = session(&s);
        let listed: Vec<String> = first["state"]["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["process"] == 0)
            .map(|m| m["text"].as_str().unwrap().to_string())
            .collect();
        // Each of process 0's moves here has a member or a value drawn.
        assert!(listed.len() >= 2, "{program}: {listed:?}");
        let after = s.ok("step", json!({"session": id, "line": "0"}))["state"].clone();
        let tree = after["tree"].as_array().unwrap();
        let text = tree.last().unwrap()["text"].as_str().unwrap().to_string();
        assert!(
            listed.contains(&text),
            "{program}: {text} not in {listed:?}"
        );
        // Taken again by that name, it is the same child.
        s.ok("goto", json!({"session": id, "node": 0}));
        let again = s.ok("step", json!({"session": id, "line": text}))["state"].clone();
        assert_eq!(again["tree"].as_array().unwrap().len(), 2, "{program}");
    }
}
