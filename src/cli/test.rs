//! `guarded test`: golden-output tests of a user's own programs. A `.test`
//! file holds one `guarded` command line, optionally what it reads on
//! standard input, and the exit status and output it gave when blessed;
//! the command runs each again and compares byte for byte.

use super::*;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub(super) struct TestArgs {
    /// `.test` files, or folders searched for them (hidden folders and `target` left out)
    #[arg(default_value = ".")]
    paths: Vec<String>,
    /// Write each test's output into its file instead of comparing (then read the diff)
    #[arg(long)]
    bless: bool,
    /// Seconds a test's command may take before it is stopped and the test fails
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = parse_timeout)]
    timeout: f64,
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds above 0 (for example 60 or 0.5)"
        )),
    }
}

/// Marks the line a section's text ends with when it has no newline of its own.
const NO_NEWLINE: &str = "--- (no newline at the end)";

/// A test as its file holds it.
struct Case {
    path: PathBuf,
    /// The lines before the expectation: comments, the command and its input.
    head: String,
    args: Vec<String>,
    stdin: String,
    /// The expectation as written, if blessed.
    expected: Option<String>,
}

/// Reads a `.test` file, or says what is wrong with it.
fn read_case(path: &Path) -> Result<Case, String> {
    let name = path.display();
    let text = crate::load::read_file(&path.to_string_lossy())?;
    let (head, expected) = match text.find("\n--- exit ") {
        Some(i) => (&text[..=i], Some(text[i + 1..].to_string())),
        None if text.starts_with("--- exit ") => ("", Some(text.clone())),
        None => (text.as_str(), None),
    };
    let mut lines = head.lines();
    let command = lines
        .by_ref()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .ok_or_else(|| {
            format!(
                "`{name}`: no command: the first line that is not a `#` comment is `$ guarded ...`"
            )
        })?;
    let words = command
        .strip_prefix("$ guarded ")
        .and_then(shlex::split)
        .ok_or_else(|| format!("`{name}`: `{command}` is not a command: write `$ guarded run PROGRAM ...` (quotes as a shell takes them)"))?;
    match words.first().map(String::as_str) {
        Some("test") => return Err(format!("`{name}`: a test may not run `guarded test`")),
        Some("explore") => {
            return Err(format!(
                "`{name}`: a test may not run `guarded explore`, a server that runs until stopped: test the same steps with `guarded repl` and `--- stdin`"
            ))
        }
        _ => {}
    }
    let stdin = match lines.next() {
        None => String::new(),
        Some("--- stdin") => lines.map(|l| format!("{l}\n")).collect(),
        Some(other) => {
            return Err(format!(
                "`{name}`: `{other}` after the command: only `--- stdin` and the lines it reads may follow it"
            ))
        }
    };
    let mut head = head.to_string();
    if !head.ends_with('\n') {
        head.push('\n');
    }
    Ok(Case {
        path: path.to_path_buf(),
        head,
        args: words,
        stdin,
        expected,
    })
}

/// A section's text as the file holds it.
fn section(title: &str, text: &str) -> String {
    let mut out = format!("--- {title}\n{text}");
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
        out.push_str(NO_NEWLINE);
        out.push('\n');
    }
    out
}

/// Runs a case's command where its file is, as the file would record it;
/// a command still running after `timeout` is stopped and the case fails.
fn outcome(case: &Case, timeout: Duration) -> Result<String, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find `guarded` itself: {e}"))?;
    let dir = case.path.parent().filter(|d| !d.as_os_str().is_empty());
    let mut child = Process::new(me)
        .args(&case.args)
        .current_dir(dir.unwrap_or(Path::new(".")))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `guarded`: {e}"))?;
    let mut input = child.stdin.take();
    let stdin = case.stdin.clone();
    // Written from a thread, so that a command that answers before it has
    // read everything cannot block the writer.
    let writer = std::thread::spawn(move || {
        if let Some(input) = input.as_mut() {
            use std::io::Write as _;
            let _ = input.write_all(stdin.as_bytes());
        }
    });
    // Both pipes are drained from threads so that neither can fill and
    // stall the command while the clock runs.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "still running after {} s, stopped (`--timeout SECONDS` allows longer)",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot run `guarded`: {e}")),
        }
    };
    let _ = writer.join();
    let (stdout, stderr) = (
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    );
    let code = status.code().map_or("killed".into(), |c| c.to_string());
    Ok(format!(
        "--- exit {code}\n{}{}",
        section("stdout", &String::from_utf8_lossy(&stdout)),
        section("stderr", &String::from_utf8_lossy(&stderr))
    ))
}

/// Reads a pipe to its end on a thread of its own.
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// The `.test` files under `path` (itself if it is one), sorted.
fn cases_under(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if path.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_dir() && !name.starts_with('.') && name != "target" {
            cases_under(&p, out)?;
        } else if p.is_file() && name.ends_with(".test") {
            out.push(p);
        }
    }
    Ok(())
}

pub(super) fn test(a: &TestArgs) -> i32 {
    let mut files = Vec::new();
    for p in &a.paths {
        if let Err(message) = cases_under(Path::new(p), &mut files) {
            return usage_error(message);
        }
    }
    if files.is_empty() {
        return usage_error(format!(
            "no `.test` file under {}: write one whose first line is `$ guarded run PROGRAM ...`, then `guarded test --bless`",
            a.paths.join(", ")
        ));
    }
    // Each case and what its command did now; a case that cannot be read
    // or run says why (its name in the message).
    let results: Vec<Result<(Case, String), String>> = files
        .par_iter()
        .map(|f| {
            let case = read_case(f)?;
            let now = outcome(&case, Duration::from_secs_f64(a.timeout))
                .map_err(|e| format!("`{}`: {e}", f.display()))?;
            Ok((case, now))
        })
        .collect();
    let (mut passed, mut failed, mut blessed) = (0, 0, 0);
    for result in results {
        let name = match &result {
            Ok((case, _)) => case.path.display().to_string(),
            Err(_) => String::new(),
        };
        match result {
            Err(message) => {
                eprintln!("error: {message}");
                failed += 1;
            }
            Ok((case, got)) if case.expected.as_deref() == Some(got.as_str()) => passed += 1,
            Ok((case, got)) if a.bless => {
                if let Err(e) = std::fs::write(&case.path, format!("{}{got}", case.head)) {
                    eprintln!("error: cannot write `{name}`: {e}");
                    failed += 1;
                    continue;
                }
                println!("blessed {name}");
                blessed += 1;
            }
            Ok((Case { expected: None, .. }, _)) => {
                println!("FAILED {name}: no output kept yet (`guarded test --bless` keeps it)");
                failed += 1;
            }
            Ok((case, got)) => {
                let expected = case.expected.unwrap_or_default();
                println!("FAILED {name}");
                print!(
                    "{}",
                    similar::TextDiff::from_lines(&expected, &got)
                        .unified_diff()
                        .context_radius(3)
                        .header(&format!("{name} (expected)"), &format!("{name} (now)"))
                );
                failed += 1;
            }
        }
    }
    println!(
        "{} passed, {} failed{}",
        passed,
        failed,
        if a.bless {
            format!(", {blessed} blessed")
        } else {
            String::new()
        }
    );
    if failed > 0 {
        EXIT_INPUT
    } else {
        EXIT_OK
    }
}
