//! After the benchmarks, a table of each baseline/guarded pair measured in
//! this run: both throughputs (criterion's medians) and guarded/baseline,
//! read from the estimates criterion has just written.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where criterion keeps its results, found as criterion finds it (but for
/// asking cargo: a project's own `target/` otherwise).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("criterion")
}

fn json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Elements per second of the benchmark in `dir`, if it ran after `since`.
fn throughput(dir: &Path, since: SystemTime) -> Option<f64> {
    let estimates = dir.join("new/estimates.json");
    if std::fs::metadata(&estimates).ok()?.modified().ok()? < since {
        return None;
    }
    let ns = json(&estimates)?["median"]["point_estimate"].as_f64()?;
    let elements = json(&dir.join("new/benchmark.json"))?["throughput"]["Elements"].as_f64()?;
    Some(elements / ns * 1e9)
}

/// Prints the pairs of `groups` that ran since `since`, smallest size first.
pub fn print(groups: &[&str], since: SystemTime) {
    let mut lines = Vec::new();
    for group in groups {
        let root = criterion_dir().join(group);
        let mut sizes: Vec<u64> = std::fs::read_dir(root.join("baseline"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect();
        sizes.sort_unstable();
        for n in sizes {
            let side = |s: &str| throughput(&root.join(s).join(n.to_string()), since);
            if let (Some(base), Some(ours)) = (side("baseline"), side("guarded")) {
                lines.push(format!(
                    "{group:<18} {n:>9} {base:>12.3e} {ours:>12.3e} {:>7.3}",
                    ours / base
                ));
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    println!("\nguarded against the baseline, elements per second (medians of this run):");
    println!(
        "{:<18} {:>9} {:>12} {:>12} {:>7}",
        "group", "size", "baseline", "guarded", "ratio"
    );
    for line in lines {
        println!("{line}");
    }
}
