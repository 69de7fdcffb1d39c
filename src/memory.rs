//! The memory budget: what building and running one instance may allocate
//! (the topology, the configuration and the simulator's tables, messages in
//! transit), estimated before allocating, so that a small input asking for
//! a huge instance (`ring:1000` with `array[1048576]` per process, a
//! 12-byte edge list naming process 49,999,999) gets a diagnostic instead
//! of an allocation failure. `--memory-limit` sets it; by default it is
//! 8 GiB or what the process may really use, whichever is smaller (an
//! estimate under 8 GiB would still abort in the allocator under a smaller
//! `ulimit -v` or cgroup limit).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// The default budget where the process may use more: 8 GiB.
pub const DEFAULT_LIMIT: u64 = 8 << 30;

static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_LIMIT);
static SOURCE: AtomicU8 = AtomicU8::new(Source::Default as u8);

/// What set the budget, for the diagnostic to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Source {
    /// `--memory-limit`.
    Given,
    /// [`DEFAULT_LIMIT`].
    Default,
    /// What the address-space limit (`ulimit -v`, RLIMIT_AS) leaves.
    AddressSpace,
    /// What the cgroup's memory limit leaves.
    Cgroup,
    /// The memory the system has available.
    Available,
}

impl Source {
    fn from_u8(v: u8) -> Source {
        [
            Source::Given,
            Source::Default,
            Source::AddressSpace,
            Source::Cgroup,
            Source::Available,
        ]
        .into_iter()
        .find(|s| *s as u8 == v)
        .unwrap_or(Source::Default)
    }

    /// How the diagnostic names it.
    fn text(self) -> &'static str {
        match self {
            Source::Given => "--memory-limit",
            Source::Default => "the default",
            Source::AddressSpace => "what the address-space limit, ulimit -v, leaves this process",
            Source::Cgroup => "what the cgroup's memory limit leaves",
            Source::Available => "the memory the system has available",
        }
    }
}

/// Sets the budget for everything built afterwards: `given` bytes, or by
/// default the smaller of 8 GiB and what the process may use.
pub fn set_limit(given: Option<u64>) {
    let (bytes, source) = match given {
        Some(b) => (b, Source::Given),
        None => default_budget(),
    };
    LIMIT.store(bytes, Ordering::Relaxed);
    SOURCE.store(source as u8, Ordering::Relaxed);
}

/// The budget, in bytes.
pub fn limit() -> u64 {
    LIMIT.load(Ordering::Relaxed)
}

/// The default budget and what set it: [`DEFAULT_LIMIT`], or less where the
/// address-space limit, the cgroup or the system leaves less (read from
/// `/proc` and `/sys`; where they cannot be read, they do not count).
pub fn default_budget() -> (u64, Source) {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let address_space = read("/proc/self/limits")
        .and_then(|t| address_space_limit(&t))
        .map(|limit| {
            let used = read("/proc/self/status").and_then(|t| status_bytes(&t, "VmSize:"));
            limit.saturating_sub(used.unwrap_or(0))
        });
    let cgroup = read("/proc/self/cgroup").and_then(|t| cgroup_left(&t, &read));
    let available = read("/proc/meminfo").and_then(|t| status_bytes(&t, "MemAvailable:"));
    [
        (address_space, Source::AddressSpace),
        (cgroup, Source::Cgroup),
        (available, Source::Available),
    ]
    .into_iter()
    .filter_map(|(bytes, source)| Some((bytes?, source)))
    .fold((DEFAULT_LIMIT, Source::Default), |best, next| {
        if next.0 < best.0 {
            next
        } else {
            best
        }
    })
}

/// The soft address-space limit of a `/proc/self/limits` text; `None`
/// when unlimited.
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// A `NAME:   N kB` line of `/proc/self/status` or `/proc/meminfo`, in bytes.
fn status_bytes(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix(name))?;
    let kib: u64 = line.split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What the cgroup of a `/proc/self/cgroup` text leaves: its limit less
/// its use, for cgroup v2 (`memory.max`) or v1 (`memory.limit_in_bytes`),
/// looked for at the group's path and at the root (a container sees its
/// own group there). `None` when unlimited or unreadable.
fn cgroup_left(cgroups: &str, read: &dyn Fn(&str) -> Option<String>) -> Option<u64> {
    let number = |path: String| -> Option<u64> {
        let v: u64 = read(&path)?.trim().parse().ok()?;
        // v1 writes "no limit" as a number near 2^63.
        (v < 1 << 60).then_some(v)
    };
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (dir, max, current) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max", "memory.current"),
            c if c.split(',').any(|c| c == "memory") => (
                "/sys/fs/cgroup/memory",
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ),
            _ => continue,
        };
        for base in [format!("{dir}{path}"), dir.to_string()] {
            let base = base.trim_end_matches('/');
            if let Some(limit) = number(format!("{base}/{max}")) {
                let used = number(format!("{base}/{current}")).unwrap_or(0);
                return Some(limit.saturating_sub(used));
            }
        }
    }
    None
}

/// `bytes` as a person reads it.
pub fn size_text(bytes: u128) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{b} bytes"),
    }
}

/// Refuses `what` when it would take more than the budget (`bytes`, an
/// estimate, computed without overflow by the caller).
pub fn check(bytes: u128, what: &str) -> Result<(), String> {
    if bytes <= u128::from(limit()) {
        return Ok(());
    }
    Err(format!(
        "{what} would take about {}, more than the memory budget of {} ({}); shrink the instance or raise the budget with --memory-limit",
        size_text(bytes),
        size_text(u128::from(limit())),
        Source::from_u8(SOURCE.load(Ordering::Relaxed)).text()
    ))
}

/// Parses a size: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        Some((i, 'T' | 't')) => (&t[..i], 40),
        _ => (t, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(1 << shift))
        .filter(|&v| v > 0)
        .ok_or_else(|| format!("`{s}` is not a size (e.g. 512M, 8G, or bytes)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn what_the_process_may_use_is_read_from_proc() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max stack size            8388608              unlimited            bytes\n\
                      Max address space         2048000000           unlimited            bytes\n";
        assert_eq!(address_space_limit(limits), Some(2_048_000_000));
        let unlimited = limits.replace("2048000000", "unlimited");
        assert_eq!(address_space_limit(&unlimited), None);
        let status = "Name:\tguarded\nVmPeak:\t  10000 kB\nVmSize:\t   2048 kB\n";
        assert_eq!(status_bytes(status, "VmSize:"), Some(2 << 20));
        // cgroup v2 at the group's path; v1 at the root, unlimited.
        let files = |path: &str| -> Option<String> {
            match path {
                "/sys/fs/cgroup/user/app/memory.max" => Some("1073741824\n".into()),
                "/sys/fs/cgroup/user/app/memory.current" => Some("73741824\n".into()),
                "/sys/fs/cgroup/memory/memory.limit_in_bytes" => {
                    Some("9223372036854771712\n".into())
                }
                _ => None,
            }
        };
        assert_eq!(cgroup_left("0::/user/app\n", &files), Some(1_000_000_000));
        assert_eq!(cgroup_left("4:memory:/process_api/x\n0::/\n", &files), None);
        assert!(default_budget().0 <= DEFAULT_LIMIT);
    }
}
