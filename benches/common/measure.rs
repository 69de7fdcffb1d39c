//! Running a command measured: its wall time, peak resident memory (with
//! `/usr/bin/time` where there is one) and output; shared by the
//! benchmarks that time whole `guarded` processes.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The `guarded` binary this benchmark was built with.
pub const GUARDED: &str = env!("CARGO_BIN_EXE_guarded");

/// What one measured process took: wall seconds, peak resident bytes (when
/// known), and what it printed.
pub struct Took {
    pub seconds: f64,
    pub bytes: Option<u64>,
    pub output: String,
}

/// Runs `program args` in `dir`, measured; panics when it fails.
pub fn measure(program: &str, args: &[&str], dir: &Path) -> Took {
    measure_on(program, args, dir, None)
}

/// [`measure`] on `threads` threads (rayon's), when given.
pub fn measure_on(program: &str, args: &[&str], dir: &Path, threads: Option<usize>) -> Took {
    let timer = Path::new("/usr/bin/time");
    let mut cmd = if timer.exists() {
        let mut c = Command::new(timer);
        c.args(["-f", "peak-kb %M"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    if let Some(threads) = threads {
        cmd.env("RAYON_NUM_THREADS", threads.to_string());
    }
    let started = Instant::now();
    let out = cmd
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let bytes = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-kb "))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map(|kb| kb * 1024);
    // `guarded verify` exits 5 when a property fails, which the instances
    // here do not.
    assert!(
        out.status.success(),
        "{program} {args:?} fails:\n{stdout}{stderr}"
    );
    Took {
        seconds,
        bytes,
        output: stdout + &stderr,
    }
}

/// Megabytes, or `-` where not measured.
pub fn mb(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.0}", b as f64 / 1e6))
}
