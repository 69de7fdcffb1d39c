//! `guarded sweep` end to end: the same sweep gives the same bytes on one
//! thread, on two, and as shards merged; each row is the run `guarded run`
//! does with that point's options; the plot is well-formed SVG with a point
//! per size in every series; Ctrl-C leaves a valid CSV of the finished runs.
//! (The CSV of small sweeps, failing runs among them, is golden: see
//! tests/golden/run/sweep_*.)

use guarded::sweep::table::Table;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn guarded(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The grid every comparison below runs: 3 sizes x 4 daemons x 2 values of
/// K x 15 seeds = 360 runs, on Dijkstra's ring from random starts.
const GRID: &[&str] = &[
    "sweep",
    "programs/dijkstra_kstate.gc",
    "--topology",
    "ring:4..12+4",
    "--daemon",
    "all",
    "--param",
    "K=n,n+1",
    "--seeds",
    "0..14",
    "--init",
    "random",
    "--until",
    "legitimate",
];

fn sweep_to(csv: &Path, extra: &[&str]) -> (String, String) {
    let mut args = GRID.to_vec();
    args.extend(["--csv", path(csv)]);
    args.extend(extra);
    let out = guarded(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(csv).expect("the CSV is written");
    (csv, text(&out.stdout))
}

#[test]
fn one_thread_two_threads_and_merged_shards_agree_byte_for_byte() {
    let dir = scratch("agree");
    let (one, summary_one) = sweep_to(&dir.join("one.csv"), &["--threads", "1"]);
    let (two, summary_two) = sweep_to(&dir.join("two.csv"), &["--threads", "2"]);
    assert_eq!(one.lines().count(), 1 + 360, "a header and a row per run");
    assert_eq!(one, two, "the CSV does not depend on the thread count");
    assert_eq!(summary_one, summary_two);
    assert!(summary_one.contains("360 runs, 360 stabilized, 0 failed"));

    // Three shards, merged in another order than they were cut.
    let mut pieces = Vec::new();
    for i in 1..=3 {
        let piece = dir.join(format!("shard{i}.csv"));
        let shard = format!("{i}/3");
        let (rows, _) = sweep_to(&piece, &["--shard", &shard]);
        assert_eq!(rows.lines().count(), 1 + 120);
        pieces.push(piece);
    }
    let merged = dir.join("merged.csv");
    let out = guarded(&[
        "sweep",
        "--merge",
        path(&pieces[2]),
        path(&pieces[0]),
        path(&pieces[1]),
        "--csv",
        path(&merged),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&merged).unwrap(), one);
    assert_eq!(text(&out.stdout), summary_one);

    // A missing shard is said, not hidden.
    let out = guarded(&["sweep", "--merge", path(&pieces[0]), path(&pieces[1])]);
    assert!(text(&out.stderr).contains("is a shard missing?"));
}

#[test]
fn merging_pieces_of_different_sweeps_is_refused() {
    let dir = scratch("foreign");
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    sweep_to(&a, &["--shard", "1/2"]);
    let out = guarded(&[
        "sweep",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:4",
        "--seeds",
        "0..3",
        "--init",
        "random",
        "--csv",
        path(&b),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let out = guarded(&["sweep", "--merge", path(&a), path(&b)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("different columns")
            || text(&out.stderr).contains("different results"),
        "{}",
        text(&out.stderr)
    );
}

/// A JSON field of `guarded run --format json`'s summary.
fn field<'a>(json: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    json.get(key)
        .unwrap_or_else(|| panic!("no `{key}` in {json}"))
}

#[test]
fn each_row_is_the_run_guarded_run_does() {
    let dir = scratch("rows");
    let csv = dir.join("rows.csv");
    sweep_to(&csv, &[]);
    let table = Table::read("rows.csv", &std::fs::read_to_string(&csv).unwrap()).unwrap();
    // A spread of points: every daemon, both values of K, several sizes.
    for row in table.rows.iter().step_by(17) {
        let k = &row.param_values[0];
        let param = format!("K={k}");
        let seed = row.seed.to_string();
        let out = guarded(&[
            "run",
            "programs/dijkstra_kstate.gc",
            "--topology",
            &row.topology,
            "--daemon",
            &row.daemon,
            "--param",
            &param,
            "--seed",
            &seed,
            "--init",
            "random",
            "--until",
            "legitimate",
            "--format",
            "json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let m = row.measured.as_ref().expect("the run started");
        let point = format!("point {}", row.point);
        assert_eq!(field(&json, "steps"), m.steps, "{point}");
        assert_eq!(field(&json, "moves"), m.moves, "{point}");
        assert_eq!(field(&json, "rounds"), m.rounds, "{point}");
        let stabilized = field(&json, "stabilized");
        let s = m.stabilized.expect("stabilized");
        assert_eq!(stabilized["step"], s[0], "{point}");
        assert_eq!(stabilized["moves"], s[1], "{point}");
        assert_eq!(stabilized["round"], s[2], "{point}");
        assert_eq!(field(&json, "stopped"), row.stop, "{point}");
    }
}

#[test]
fn the_plot_is_svg_with_a_point_per_size_in_every_series() {
    let dir = scratch("plot");
    let svg = dir.join("plot.svg");
    for log in [false, true] {
        let mut args = vec![
            "sweep",
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:4..16*2,24",
            "--daemon",
            "central,synchronous,distributed",
            "--seeds",
            "0..9",
            "--init",
            "random",
            "--until",
            "legitimate",
            "--plot-measure",
            "rounds",
            "--plot",
            path(&svg),
        ];
        if log {
            args.extend(["--log", "--plot-bound", "2*n+1"]);
        }
        let out = guarded(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let doc = std::fs::read_to_string(&svg).unwrap();
        let xml = roxmltree::Document::parse(&doc).expect("well-formed XML");
        assert_eq!(xml.root_element().tag_name().name(), "svg");
        // The series' colours, in order: a dot per size at the median.
        for colour in ["#1F77B4", "#D62728", "#2CA02C"] {
            let dots = xml
                .descendants()
                .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(colour))
                .count();
            assert_eq!(dots, 4, "series {colour}, log axes {log}");
        }
        let legend: Vec<String> = xml
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(|t| t.trim().to_string()))
            .filter(|t| t.contains("~ n^"))
            .collect();
        assert_eq!(legend.len(), 3, "{legend:?}");
        assert!(legend[0].starts_with("central: median ~ n^"), "{legend:?}");
        let bound = xml.descendants().any(|n| {
            n.has_tag_name("text") && n.text().is_some_and(|t| t.trim() == "bound: 2*n+1")
        });
        assert_eq!(bound, log, "the bound is in the legend when asked for");
        // The legend lies under the chart (below the x axis's name), not
        // over its data.
        let y_of = |t: &str| -> f64 {
            let node = xml
                .descendants()
                .find(|n| {
                    n.has_tag_name("text") && n.text().is_some_and(|x| x.trim().starts_with(t))
                })
                .unwrap_or_else(|| panic!("no `{t}`"));
            node.attribute("y").unwrap().parse().unwrap()
        };
        assert!(y_of("central: median") > y_of("n (processes)"), "{doc}");
    }
    // Runs that start legitimate take 0 rounds: on log axes they sit on the
    // axis's bottom edge, and the note says so.
    let out = guarded(&[
        "sweep",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:4..12+4",
        "--seeds",
        "0..3",
        "--until",
        "legitimate",
        "--log",
        "--plot",
        path(&svg),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(
        doc.contains("0 is drawn on the bottom edge of the log axis"),
        "{doc}"
    );
    let xml = roxmltree::Document::parse(&doc).expect("well-formed XML");
    let axis_name = xml
        .descendants()
        .find(|n| n.has_tag_name("text") && n.text().is_some_and(|t| t.trim() == "n (processes)"))
        .and_then(|n| n.attribute("y")?.parse::<f64>().ok())
        .unwrap();
    for dot in xml.descendants().filter(|n| n.has_tag_name("circle")) {
        let cy: f64 = dot.attribute("cy").unwrap().parse().unwrap();
        assert!(cy < axis_name - 30.0, "a dot below the axis: {cy}");
    }
}

#[test]
fn no_plot_without_a_stabilized_run() {
    let dir = scratch("noplot");
    let svg = dir.join("none.svg");
    // Program without legitimacy, so nothing stabilizes.
    let out = guarded(&[
        "sweep",
        "tests/golden/programs/faults.gc",
        "--param",
        "D=1",
        "--plot",
        path(&svg),
    ]);
    assert!(text(&out.stderr).contains("no plot written"));
    assert!(!svg.exists());
}

#[test]
fn ctrl_c_keeps_the_runs_that_finished_in_a_valid_csv() {
    let dir = scratch("interrupt");
    let csv = dir.join("part.csv");
    // Long runs (a million steps each on a large ring), two at a time.
    let child = Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args([
            "sweep",
            "programs/dijkstra_kstate.gc",
            "--topology",
            "ring:64",
            "--seeds",
            "0..199",
            "--init",
            "random",
            "--max-steps",
            "1000000",
            "--threads",
            "2",
            "--csv",
            path(&csv),
        ])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Wait until a row is in the file (rows are flushed as they finish).
    let started = std::time::Instant::now();
    let rows = || std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count().saturating_sub(1));
    while rows() == 0 && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(rows() > 0, "no run finished within a minute");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("the sweep stops");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted:"), "{stderr}");
    let table =
        Table::read("part.csv", &std::fs::read_to_string(&csv).unwrap()).expect("the CSV is valid");
    assert!(table.rows.len() < 200, "the sweep stopped early");
    for row in &table.rows {
        assert_eq!(row.exit, 0);
        assert_eq!(row.measured.as_ref().map(|m| m.steps), Some(1_000_000));
    }
    // The summary counts what finished.
    let summary = text(&out.stdout);
    assert!(
        summary.contains(&format!("{} runs", table.rows.len())),
        "{summary}"
    );
}

#[test]
fn grids_are_sized_before_they_are_laid_out_and_shards_lay_out_their_own() {
    let dir = scratch("grid");
    // Three parameters of 1,000 values each: 10^9 points, refused at once.
    // And a grid just over the cap (1,000 x 10,001 x 2 points).
    let too_large: [&[&str]; 2] = [
        &[
            "sweep",
            "programs/ssle.gc",
            "--param",
            "max_id=1..1000",
            "--param",
            "max_level=1..1000",
            "--param",
            "repair=1..1000",
        ],
        &[
            "sweep",
            "programs/dijkstra_kstate.gc",
            "--param",
            "K=1..1000",
            "--seeds",
            "0..10000",
            "--topology",
            "ring:3..4",
        ],
    ];
    for args in too_large {
        let out = guarded(args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("the grid has more than 10000000 points"),
            "{}",
            text(&out.stderr)
        );
    }
    // Two parameter axes, the last varying fastest, and a shard's points
    // are the whole grid's at their indices.
    let args = [
        "sweep",
        "programs/ssle.gc",
        "--topology",
        "chain:3",
        "--param",
        "max_id=n,n+1",
        "--param",
        "max_level=10,11",
        "--seeds",
        "0",
        "--until",
        "legitimate",
    ];
    let whole = dir.join("whole.csv");
    let mut all = args.to_vec();
    all.extend(["--csv", path(&whole)]);
    assert_eq!(guarded(&all).status.code(), Some(0));
    let rows = std::fs::read_to_string(&whole).unwrap();
    let words: Vec<&str> = rows
        .lines()
        .skip(1)
        .map(|l| l.split(',').find(|f| f.starts_with("max_id=")).unwrap())
        .collect();
    assert_eq!(
        words,
        [
            "max_id=n max_level=10",
            "max_id=n max_level=11",
            "max_id=n+1 max_level=10",
            "max_id=n+1 max_level=11"
        ]
    );
    let piece = dir.join("piece.csv");
    let mut second = args.to_vec();
    second.extend(["--shard", "2/3", "--csv", path(&piece)]);
    assert_eq!(guarded(&second).status.code(), Some(0));
    let piece = std::fs::read_to_string(&piece).unwrap();
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(piece, format!("{}\n{}\n", lines[0], lines[2]));
    // A topology only another shard runs is not built (nor its file read).
    let out = guarded(&[
        "sweep",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:4,file:/nonexistent/edges.txt",
        "--shard",
        "1/2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_column_wider_than_a_format_width_is_laid_out() {
    // A `--param` value of 70,000 characters: the summary's column is
    // wider than Rust's format width allows (65,535), which panicked.
    let long = format!("K=n{}", "+0".repeat(35_000));
    let out = guarded(&[
        "sweep",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:3",
        "--param",
        &long,
        "--seeds",
        "0",
        "--init",
        "random",
        "--until",
        "legitimate",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("ring    central  {long}")));
}

#[test]
fn merged_pieces_hold_only_what_a_sweep_writes_and_print_no_control_characters() {
    let dir = scratch("hostile-merge");
    let good = dir.join("good.csv");
    let out = guarded(&[
        "sweep",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:4",
        "--seeds",
        "18446744073709551614..18446744073709551615",
        "--init",
        "random",
        "--csv",
        path(&good),
    ]);
    // Every u64 is a seed, as for `run --seed`.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let csv = std::fs::read_to_string(&good).unwrap();
    assert!(csv.contains(",18446744073709551615,"), "{csv}");
    let header = csv.lines().next().unwrap();
    let row = csv.lines().nth(1).unwrap();
    let cells: Vec<&str> = row.split(',').collect();
    let column = |name: &str| header.split(',').position(|h| h == name).unwrap();
    // An exit or a stop no sweep writes is refused, naming the column.
    for (name, value) in [("exit", "300"), ("stop", "exploded")] {
        let mut bad = cells.clone();
        bad[column(name)] = value;
        let piece = dir.join(format!("{name}.csv"));
        std::fs::write(&piece, format!("{header}\n{}\n", bad.join(","))).unwrap();
        let out = guarded(&["sweep", "--merge", path(&piece)]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!(
                "`{value}` in column `{name}` is not what a sweep writes"
            )),
            "{}",
            text(&out.stderr)
        );
    }
    // An escape sequence in a cell reaches the terminal as text.
    let mut bad = cells.clone();
    let family = "\"ring\x1b[31m\"";
    bad[column("family")] = family;
    let piece = dir.join("escape.csv");
    std::fs::write(&piece, format!("{header}\n{}\n", bad.join(","))).unwrap();
    let out = guarded(&["sweep", "--merge", path(&piece)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains('\x1b'), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("ring\\u{1b}[31m"),
        "{}",
        text(&out.stdout)
    );
}
