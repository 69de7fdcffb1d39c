//! The HTML run viewer in a real browser: headless Chromium loads the page
//! from disk, the test drives it (opens it at a step, presses its buttons)
//! and checks that it shows that step's configuration exactly as
//! `guarded run` has it, that no script error occurred, and that the page
//! fetches nothing. A screenshot is written to `target/html_viewer.png` for
//! a person to look at. Chromium is the Debian package `chromium` (or
//! `$CHROMIUM`); without it the tests say loudly that they were skipped,
//! and under `CI=true` they fail.

mod common;
use common::guarded;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    common::scratch("html", name)
}

fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into())
}

/// Whether Chromium is there; when it is not, says so (and fails under CI).
fn have_chromium() -> bool {
    if Command::new(chromium()).arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "Chromium (`{}`) is not installed: CI must install it (.ci/run does)",
        chromium()
    );
    eprintln!("SKIPPED: Chromium is not installed; the HTML viewer was not tested in a browser");
    false
}

/// Headless Chromium with its own profile (tests run in parallel).
fn browser(page: &Path, fragment: &str, extra: &[&str]) -> String {
    let profile = scratch(&format!(
        "profile-{}",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let url = format!("file://{}#{fragment}", page.display());
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium fails on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The page's configuration table: (process, enabled, values).
fn table(dom: &str) -> Vec<(usize, bool, String)> {
    let mut rows = Vec::new();
    for part in dom.split("<tr data-p=\"").skip(1) {
        let p: usize = part[..part.find('"').unwrap()].parse().unwrap();
        let head = &part[..part.find('>').unwrap()];
        let enabled = head.contains("class=\"enabled");
        let values = part
            .split("<td class=\"values\">")
            .nth(1)
            .and_then(|v| v.split("</td>").next())
            .unwrap_or_else(|| panic!("no values cell for {p}"));
        rows.push((
            p,
            enabled,
            values
                .replace("&gt;", ">")
                .replace("&lt;", "<")
                .replace("&amp;", "&"),
        ));
    }
    rows
}

/// The summary's final configuration: (process, enabled, values).
fn final_configuration(summary: &str) -> Vec<(usize, bool, String)> {
    let at = summary
        .find("final configuration:")
        .expect("a final configuration");
    summary[at..]
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (p, rest) = l.trim().split_once(": ")?;
            let p: usize = p.parse().ok()?;
            let enabled = rest.ends_with(" *");
            Some((p, enabled, rest.trim_end_matches(" *").to_string()))
        })
        .collect()
}

/// The page must not have failed, must have finished its script, and shows `step`.
fn check_sound(dom: &str, step: u64) {
    assert!(
        !dom.contains("data-errors=\"yes\""),
        "a script error: {dom}"
    );
    assert!(
        dom.contains("<pre id=\"errors\" hidden=\"\"></pre>"),
        "errors shown"
    );
    assert!(
        dom.contains(&format!("data-step=\"{step}\"")),
        "not at step {step}"
    );
    assert!(
        dom.contains("data-ready=\"yes\""),
        "the script did not finish"
    );
}

#[test]
fn the_page_shows_step_k_as_the_run_has_it() {
    if !have_chromium() {
        return;
    }
    let cases: &[(&str, &[&str], u64)] = &[
        (
            "ssle.gc",
            &["--topology", "random:10", "--seed", "2", "--init", "random"],
            7,
        ),
        ("arbitration.gc", &["--topology", "complete:4"], 9),
        (
            "dijkstra_kstate.gc",
            &[
                "--topology",
                "uring:6",
                "--init",
                "random",
                "--daemon",
                "distributed",
                "--seed",
                "5",
            ],
            4,
        ),
        ("arrow.gc", &["--topology", "tree:6", "--seed", "1"], 12),
    ];
    for (k, (program, options, step)) in cases.iter().enumerate() {
        let program = format!("programs/{program}");
        let page = scratch(&format!("case{k}.html"));
        let page_s = page.to_str().unwrap();
        let mut args = vec!["run", &program];
        args.extend_from_slice(options);
        let (code, _, err) =
            guarded(&[&args[..], &["--max-steps", "40", "--html", page_s]].concat());
        assert!(code == 0, "{program}: {err}");
        let steps = step.to_string();
        let (code, summary, err) = guarded(&[&args[..], &["--max-steps", &steps]].concat());
        assert!(code == 0, "{program}: {err}");
        // Open 3 steps early, five forward and two back: step + 0.
        let fragment = format!(
            "step={}&clicks=forward,forward,forward,forward,forward,back,back",
            step - 3
        );
        let dom = browser(&page, &fragment, &["--dump-dom"]);
        check_sound(&dom, *step);
        assert_eq!(
            table(&dom),
            final_configuration(&summary),
            "{program} at step {step}"
        );
    }
}

/// The node labels of the page's graph, in process order.
fn node_labels(dom: &str) -> Vec<String> {
    dom.split("class=\"vals\"")
        .skip(1)
        .map(|part| {
            let text = &part[part.find('>').unwrap() + 1..];
            text[..text.find('<').unwrap()].to_string()
        })
        .collect()
}

#[test]
fn node_labels_show_what_fits() {
    if !have_chromium() {
        return;
    }
    // SSLE's five values do not fit beside a node: its parent alone.
    let ssle = scratch("labels-ssle.html");
    let args = ["run", "programs/ssle.gc", "--topology", "random:10"];
    let html = ["--seed", "2", "--init", "random", "--html"];
    let (code, _, err) = guarded(&[&args[..], &html, &[ssle.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let labels = node_labels(&browser(&ssle, "step=0", &["--dump-dom"]));
    assert_eq!(labels.len(), 10);
    assert!(
        labels
            .iter()
            .all(|l| l.starts_with("parent=") && !l.contains(' ')),
        "{labels:?}"
    );
    // Dijkstra's one value does.
    let ring = scratch("labels-ring.html");
    let (code, _, err) = guarded(&[
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:5",
        "--html",
        ring.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let labels = node_labels(&browser(&ring, "step=0", &["--dump-dom"]));
    assert_eq!(labels, vec!["x=0"; 5]);
    // Two values beside each node of a chain of 6 would run into the next
    // node's (`x=false up=false` is 16 characters, the nodes about 100
    // units apart): the first variable alone.
    let program = scratch("four_state.gc");
    std::fs::write(
        &program,
        "var x: bool = false\nvar up: bool = false\n\
         process { set :: not x -> x := true; up := true }\n",
    )
    .unwrap();
    let chain = scratch("labels-chain.html");
    let (code, _, err) = guarded(&[
        "run",
        program.to_str().unwrap(),
        "--topology",
        "chain:6",
        "--html",
        chain.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let labels = node_labels(&browser(&chain, "step=0", &["--dump-dom"]));
    assert_eq!(labels, vec!["x=false"; 6]);
}

#[test]
fn the_page_is_self_contained_and_says_when_it_is_cut() {
    let page = scratch("cut.html");
    let (code, _, err) = guarded(&[
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:12",
        "--init",
        "random",
        "--max-steps",
        "300",
        "--html",
        page.to_str().unwrap(),
        "--html-steps",
        "20",
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    // Nothing fetched: no links, no sources, no address but SVG's namespace.
    assert!(!html.contains("<link") && !html.contains(" src=") && !html.contains("@import"));
    let addresses = html.matches("http").count();
    assert_eq!(
        addresses,
        html.matches("http://www.w3.org/2000/svg").count(),
        "an address in the page"
    );
    // The program and the summary are in it.
    assert!(html.contains("advance :: x == left.x"));
    assert!(html.contains("steps       300"));
    if !have_chromium() {
        return;
    }
    let dom = browser(&page, "step=100", &["--dump-dom"]);
    // Asked past the recorded steps: the last recorded one.
    check_sound(&dom, 20);
    assert!(
        dom.contains("Recorded steps 0 to 20 of 300 (the first --html-steps 20)"),
        "{dom}"
    );
    let (code, _, err) = guarded(&[
        "run",
        "programs/dijkstra_kstate.gc",
        "--topology",
        "ring:6000",
        "--html",
        "x.html",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--html draws at most 5000 processes"), "{err}");
}

#[test]
fn a_screenshot_for_a_person() {
    if !have_chromium() {
        return;
    }
    let page = scratch("shot.html");
    let (code, _, err) = guarded(&[
        "run",
        "programs/ssle.gc",
        "--topology",
        "random:10",
        "--seed",
        "2",
        "--init",
        "random",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/html_viewer.png");
    // `target/` is not there where the build's target directory is elsewhere.
    std::fs::create_dir_all(shot.parent().expect("a folder")).expect("create target/");
    let _ = std::fs::remove_file(&shot);
    browser(
        &page,
        "step=49",
        &[
            "--window-size=1300,1000",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "an empty screenshot?"
    );
}

#[test]
fn script_data_in_the_program_and_messages_on_their_edges() {
    if !have_chromium() {
        return;
    }
    // A comment the HTML parser would read as script data states.
    let program = scratch("hostile.gc");
    let source = std::fs::read_to_string("programs/dijkstra_kstate.gc").unwrap();
    std::fs::write(
        &program,
        format!("// <!-- <script> </script> & -->\n{source}"),
    )
    .unwrap();
    let page = scratch("hostile.html");
    let (code, _, err) = guarded(&[
        "run",
        program.to_str().unwrap(),
        "--topology",
        "ring:5",
        "--max-steps",
        "5",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let dom = browser(&page, "step=5", &["--dump-dom"]);
    check_sound(&dom, 5);
    assert!(
        dom.contains("// &lt;!-- &lt;script&gt; &lt;/script&gt; &amp; --&gt;"),
        "{dom}"
    );
    // Messages in transit are drawn on their edges, one tag a channel,
    // its title the channel's messages, as the list under the table says.
    let page = scratch("messages.html");
    let (code, _, err) = guarded(&[
        "run",
        "programs/arrow.gc",
        "--topology",
        "tree:6",
        "--seed",
        "1",
        "--max-steps",
        "40",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let dom = browser(&page, "step=12", &["--dump-dom"]);
    check_sound(&dom, 12);
    let listed = dom
        .split("<pre id=\"channels\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap();
    let channels: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    assert!(!channels.is_empty(), "no messages in transit at step 12");
    let tags = dom.matches("<g class=\"msg\"").count();
    assert_eq!(tags, channels.len(), "{dom}");
    for line in channels {
        let (name, msgs) = line.split_once(": ").unwrap();
        let title = format!("<title>{name} (next received first): {msgs}</title>");
        assert!(
            dom.contains(&title.replace("->", "-&gt;")),
            "{title} missing"
        );
    }
}
