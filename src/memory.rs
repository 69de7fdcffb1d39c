//! The memory budget: what building and running one instance may allocate
//! (the topology, the configuration and the simulator's tables, messages in
//! transit), estimated before allocating, so that a small input asking for
//! a huge instance (`ring:1000` with `array[1048576]` per process, a
//! 12-byte edge list naming process 49,999,999) gets a diagnostic instead
//! of an allocation failure. `--memory-limit` sets it; the default suits
//! this project's machines.

use std::sync::atomic::{AtomicU64, Ordering};

/// The default budget: 8 GiB.
pub const DEFAULT_LIMIT: u64 = 8 << 30;

static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_LIMIT);

/// Sets the budget, in bytes, for everything built afterwards.
pub fn set_limit(bytes: u64) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The budget, in bytes.
pub fn limit() -> u64 {
    LIMIT.load(Ordering::Relaxed)
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
        "{what} would take about {}, more than the memory budget of {}; shrink the instance or raise the budget with --memory-limit",
        size_text(bytes),
        size_text(u128::from(limit()))
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
}
