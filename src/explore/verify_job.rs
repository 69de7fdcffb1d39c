//! `verify` from the page: the command line's own `guarded verify`, run in
//! a child process on the program as the page has it, its witnesses
//! written to a folder of the job's. The page polls the job; the server
//! never waits for it.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest a verify from the page may take before it is stopped.
const MOST_TIME: Duration = Duration::from_secs(300);

/// What a job has to say.
#[derive(Default)]
struct Outcome {
    /// The verify's output (standard output, then error), once done.
    output: Option<String>,
    exit: Option<i32>,
}

/// One verify run from the page.
pub(super) struct Job {
    started: Instant,
    child: Arc<Mutex<Option<Child>>>,
    outcome: Arc<Mutex<Outcome>>,
    /// Where its witnesses go.
    pub(super) dir: PathBuf,
}

impl Job {
    /// Starts `guarded verify` on `source` with the instance's arguments
    /// `args` (topology, parameters, ids, seed), writing into `dir`.
    /// The program is written as `dir/NAME`, `name` the file name of the
    /// program the command line named, which the output then names.
    pub(super) fn start(
        source: &str,
        name: &str,
        args: &[String],
        dir: PathBuf,
    ) -> Result<Job, String> {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot make `{}`: {e}", dir.display()))?;
        let program = dir.join(name);
        std::fs::write(&program, source)
            .map_err(|e| format!("cannot write `{}`: {e}", program.display()))?;
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find guarded itself: {e}"))?;
        let child = Command::new(exe)
            .arg("verify")
            .arg(&program)
            .args(args)
            .arg("--witness")
            .arg(dir.join("witnesses"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start verify: {e}"))?;
        let mut child = child;
        // Read as it prints, so that a long output never blocks it.
        let readers = [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        ]
        .map(|pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_string(&mut text);
                }
                text
            })
        });
        let child = Arc::new(Mutex::new(Some(child)));
        let outcome = Arc::new(Mutex::new(Outcome::default()));
        let (c, o) = (child.clone(), outcome.clone());
        std::thread::spawn(move || wait(c, o, readers));
        Ok(Job {
            started: Instant::now(),
            child,
            outcome,
            dir,
        })
    }

    /// Whether it is still running.
    pub(super) fn running(&self) -> bool {
        self.outcome.lock().expect("not poisoned").output.is_none()
    }

    /// Whether it is still running, what it printed, and the witnesses it
    /// wrote (names), once done.
    pub(super) fn status(&self) -> serde_json::Value {
        let outcome = self.outcome.lock().expect("not poisoned");
        let mut witnesses: Vec<String> = Vec::new();
        if outcome.output.is_some() {
            if let Ok(entries) = std::fs::read_dir(self.dir.join("witnesses")) {
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().to_string();
                    if let Some(stem) = name.strip_suffix(".sched") {
                        witnesses.push(stem.to_string());
                    }
                }
            }
        }
        witnesses.sort();
        serde_json::json!({
            "running": outcome.output.is_none(),
            "seconds": self.started.elapsed().as_secs_f64(),
            "output": outcome.output,
            "exit": outcome.exit,
            "witnesses": witnesses,
        })
    }

    /// The init file and schedule of witness `name`.
    pub(super) fn witness(&self, name: &str) -> Result<(String, String), String> {
        let ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(format!("`{name}` is not a witness of this verify"));
        }
        let base = self.dir.join("witnesses").join(name);
        let read = |ext: &str| {
            std::fs::read_to_string(base.with_extension(ext))
                .map_err(|_| format!("this verify wrote no witness `{name}`"))
        };
        Ok((read("init")?, read("sched")?))
    }

    /// Stops it, if it is running.
    pub(super) fn stop(&self) {
        if let Some(c) = self.child.lock().expect("not poisoned").as_mut() {
            let _ = c.kill();
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Where the jobs of session `id` of this server write.
pub(super) fn folder(id: &str) -> PathBuf {
    std::env::temp_dir().join(format!("{}{id}", prefix()))
}

/// What the folders of this server's jobs begin with.
fn prefix() -> String {
    format!("guarded-explore-{}-", std::process::id())
}

/// Removes the folders of this server's jobs (when it is stopped).
pub(super) fn clean_up() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix()) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Waits for the child (stopping it past [`MOST_TIME`]) and keeps what it
/// printed.
fn wait(
    child: Arc<Mutex<Option<Child>>>,
    outcome: Arc<Mutex<Outcome>>,
    readers: [std::thread::JoinHandle<String>; 2],
) {
    let started = Instant::now();
    let status = loop {
        let mut guard = child.lock().expect("not poisoned");
        let Some(c) = guard.as_mut() else { return };
        match c.try_wait() {
            Ok(Some(status)) => break Some(status),
            Err(_) => break None,
            Ok(None) if started.elapsed() > MOST_TIME => {
                let _ = c.kill();
            }
            Ok(None) => {}
        }
        drop(guard);
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut text = String::new();
    for r in readers {
        text.push_str(&r.join().unwrap_or_default());
    }
    let exit = status.and_then(|s| s.code());
    if exit.is_none() {
        text.push_str("\nverify was stopped\n");
    }
    let mut o = outcome.lock().expect("not poisoned");
    o.output = Some(text);
    o.exit = exit;
}
