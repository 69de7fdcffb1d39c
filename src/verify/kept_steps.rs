//! The steps of every configuration reached from a start, kept by the
//! breadth-first search that numbers them for the searches after it (the
//! most steps, cycles, rounds), which would otherwise work each one out
//! again: decoding the configuration, looking its processes' views up,
//! writing each successor's bytes and looking them up, nearly half of a
//! search with channels. Under the central daemon, with configurations
//! kept whole (channels) and not by orbits: a step is then where it leads
//! and its one mover, 5 bytes in a file, unlinked once open, so that the
//! memory kept is 4 bytes a configuration (where its steps begin). A
//! configuration's steps are read back in one call, in the order the
//! step relation lists them, faulting ones left out (as the searches
//! leave them out); a search whose first pass met a fault, or whose file
//! cannot be written or read, works them out again instead.

use super::successors::Succ;
use std::fs::File;
use std::io::{BufWriter, Write};

/// The bytes of a step in the file: where it leads, then its mover.
const STEP_BYTES: usize = 5;

/// The mover byte of a mover past 64 processes, whose bit no set holds.
const NO_BIT: u8 = 64;

/// The steps being written, configuration after configuration.
pub(super) struct KeptStepsWriter {
    file: BufWriter<File>,
    /// Per configuration written, where its steps begin (counted in steps).
    starts: Vec<u32>,
    steps: u64,
}

/// The steps of every configuration, written: see the module's doc.
pub(super) struct KeptSteps {
    file: File,
    /// Per configuration, where its steps begin, and one past the last.
    starts: Vec<u32>,
}

impl KeptStepsWriter {
    /// An empty file for the steps, where one can be made.
    pub(super) fn new() -> Option<Self> {
        let file = temporary_file()?;
        Some(KeptStepsWriter {
            file: BufWriter::with_capacity(1 << 16, file),
            starts: Vec::new(),
            steps: 0,
        })
    }

    /// The next configuration's steps, each where it leads and its one
    /// mover; false where the file cannot take them (it is then of no use).
    pub(super) fn config(&mut self, steps: &[(u32, u32)]) -> bool {
        let Ok(start) = u32::try_from(self.steps) else {
            return false;
        };
        self.starts.push(start);
        for &(to, mover) in steps {
            let mut bytes = [0; STEP_BYTES];
            bytes[..4].copy_from_slice(&to.to_le_bytes());
            bytes[4] = u8::try_from(mover).map_or(NO_BIT, |m| m.min(NO_BIT));
            if self.file.write_all(&bytes).is_err() {
                return false;
            }
        }
        self.steps += steps.len() as u64;
        true
    }

    /// The bytes it keeps in memory.
    pub(super) fn bytes(&self) -> usize {
        4 * self.starts.capacity() + self.file.capacity()
    }

    /// The steps written, to read; `None` if they cannot be.
    pub(super) fn finish(mut self) -> Option<KeptSteps> {
        self.starts.push(u32::try_from(self.steps).ok()?);
        self.starts.shrink_to_fit();
        let file = self.file.into_inner().ok()?;
        Some(KeptSteps {
            file,
            starts: self.starts,
        })
    }
}

impl KeptSteps {
    /// The steps of configuration `i` into `out` (emptied first); false
    /// where they cannot be read.
    pub(super) fn read(&self, i: u32, out: &mut Vec<Succ>) -> bool {
        thread_local! {
            static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        out.clear();
        let (Some(&from), Some(&to)) =
            (self.starts.get(i as usize), self.starts.get(i as usize + 1))
        else {
            return false;
        };
        BYTES.with_borrow_mut(|buf| {
            buf.resize((to - from) as usize * STEP_BYTES, 0);
            if !read_at(&self.file, buf, u64::from(from) * STEP_BYTES as u64) {
                return false;
            }
            out.extend(buf.chunks_exact(STEP_BYTES).map(|step| Succ {
                to: u32::from_le_bytes([step[0], step[1], step[2], step[3]]),
                moves: 1,
                movers: 1u64.checked_shl(u32::from(step[4])).unwrap_or(0),
            }));
            true
        })
    }
}

/// A file in the system's temporary directory, already unlinked, so that
/// nothing is left behind whatever becomes of the process.
#[cfg(unix)]
fn temporary_file() -> Option<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "guarded-steps-{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    );
    let path = std::env::temp_dir().join(name);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .ok()?;
    std::fs::remove_file(&path).ok()?;
    Some(file)
}

/// Elsewhere the steps are worked out again.
#[cfg(not(unix))]
fn temporary_file() -> Option<File> {
    None
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> bool {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset).is_ok()
}

#[cfg(not(unix))]
fn read_at(_: &File, _: &mut [u8], _: u64) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps come back as written, configuration by configuration, a
    /// mover past 64 processes with no bit; a configuration past the last
    /// is not read.
    #[test]
    fn steps_come_back_as_written() {
        let mut w = KeptStepsWriter::new().expect("a temporary file");
        let written: Vec<Vec<(u32, u32)>> = vec![
            vec![(1, 0), (2, 3)],
            vec![],
            vec![(u32::MAX - 1, 63), (7, 64), (8, 300)],
        ];
        for steps in &written {
            assert!(w.config(steps));
        }
        let kept = w.finish().expect("finished");
        let mut out = Vec::new();
        for (i, steps) in written.iter().enumerate() {
            assert!(kept.read(i as u32, &mut out));
            let expected: Vec<Succ> = steps
                .iter()
                .map(|&(to, p)| Succ {
                    to,
                    moves: 1,
                    movers: if p < 64 { 1 << p } else { 0 },
                })
                .collect();
            assert_eq!(out, expected);
        }
        assert!(!kept.read(3, &mut out));
    }
}
