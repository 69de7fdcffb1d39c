//! The steps of every configuration reached from a start, kept by the
//! breadth-first search that numbers them for the searches after it (the
//! most steps, cycles, rounds), which would otherwise work each one out
//! again: decoding the configuration, looking its processes' views up,
//! writing each successor's bytes and looking them up, nearly half of a
//! search with channels. Under the central daemon, with configurations
//! kept whole (channels) and not by orbits: a step is then where it leads
//! and its one mover, 5 bytes in a file, unlinked once open, so that the
//! memory kept is 1.125 bytes a configuration (where its steps begin), and
//! up to 2 MiB a thread of the file's blocks read last. A
//! configuration's steps are read back in the order the step relation
//! lists them, faulting ones left out (as the searches leave them out);
//! a search whose first pass met a fault, or whose file cannot be
//! written or read, works them out again instead.

use super::process_bits::as_bits;
use super::successors::Succ;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many files of steps the process made: each has its number, which
/// the blocks a thread keeps of one are known by.
static MADE: AtomicU64 = AtomicU64::new(0);

/// The bytes of a step in the file: where it leads, then its mover.
const STEP_BYTES: usize = 5;

/// The mover byte of a mover past 64 processes, whose bit no set holds.
const NO_BIT: u8 = 64;

/// The steps being written, configuration after configuration.
pub(super) struct KeptStepsWriter {
    file: BufWriter<File>,
    /// Which of the process's files it is (see [`MADE`]).
    made: u64,
    starts: Starts,
}

/// The steps of every configuration, written: see the module's doc.
pub(super) struct KeptSteps {
    file: File,
    made: u64,
    starts: Starts,
}

/// Per configuration, where its steps begin: how many it has (at most
/// 255), and where those of every 64th begin, 1.125 bytes a
/// configuration.
#[derive(Default)]
struct Starts {
    counts: Vec<u8>,
    marks: Vec<u64>,
    /// The steps of every configuration so far.
    total: u64,
}

impl Starts {
    /// The next configuration has `count` steps; false where they are too
    /// many to say.
    fn push(&mut self, count: usize) -> bool {
        let Ok(count) = u8::try_from(count) else {
            return false;
        };
        if self.counts.len().is_multiple_of(64) {
            self.marks.push(self.total);
        }
        self.counts.push(count);
        self.total += u64::from(count);
        true
    }

    /// Where configuration `i`'s steps begin, and how many it has.
    fn get(&self, i: usize) -> Option<(u64, usize)> {
        let count = *self.counts.get(i)?;
        let mark = i / 64;
        let before: u64 = self.counts[mark * 64..i]
            .iter()
            .map(|&c| u64::from(c))
            .sum();
        Some((self.marks[mark] + before, usize::from(count)))
    }

    fn bytes(&self) -> usize {
        self.counts.capacity() + 8 * self.marks.capacity()
    }
}

impl KeptStepsWriter {
    /// An empty file for the steps, where one can be made.
    pub(super) fn new() -> Option<Self> {
        let made = MADE.fetch_add(1, Ordering::Relaxed);
        let file = temporary_file(made)?;
        Some(KeptStepsWriter {
            file: BufWriter::with_capacity(1 << 16, file),
            made,
            starts: Starts::default(),
        })
    }

    /// The next configuration's steps, each where it leads and its one
    /// mover; false where the file cannot take them (it is then of no use).
    pub(super) fn config(&mut self, steps: &[(u32, u32)]) -> bool {
        if !self.starts.push(steps.len()) {
            return false;
        }
        for &(to, mover) in steps {
            let mut bytes = [0; STEP_BYTES];
            bytes[..4].copy_from_slice(&to.to_le_bytes());
            bytes[4] = u8::try_from(mover).map_or(NO_BIT, |m| m.min(NO_BIT));
            if self.file.write_all(&bytes).is_err() {
                return false;
            }
        }
        true
    }

    /// The bytes it keeps in memory.
    pub(super) fn bytes(&self) -> usize {
        self.starts.bytes() + self.file.capacity()
    }

    /// The steps written, to read; `None` if they cannot be.
    pub(super) fn finish(mut self) -> Option<KeptSteps> {
        self.starts.counts.shrink_to_fit();
        self.starts.marks.shrink_to_fit();
        let file = self.file.into_inner().ok()?;
        Some(KeptSteps {
            file,
            made: self.made,
            starts: self.starts,
        })
    }
}

impl KeptSteps {
    /// The steps of configuration `i` into `out` (emptied first); false
    /// where they cannot be read.
    pub(super) fn read(&self, i: u32, out: &mut Vec<Succ>) -> bool {
        out.clear();
        let Some((from, count)) = self.starts.get(i as usize) else {
            return false;
        };
        let (at, len) = (from * STEP_BYTES as u64, count * STEP_BYTES);
        CACHE.with_borrow_mut(|cache| {
            let Some(bytes) = cache.read(self, at, len) else {
                return false;
            };
            out.extend(bytes.chunks_exact(STEP_BYTES).map(|step| Succ {
                to: u32::from_le_bytes([step[0], step[1], step[2], step[3]]),
                moves: 1,
                movers: as_bits(&[u32::from(step[4])]),
            }));
            true
        })
    }

    /// The bytes the file holds.
    fn file_bytes(&self) -> u64 {
        self.starts.total * STEP_BYTES as u64
    }
}

/// The bytes of a block of the file a thread keeps.
const BLOCK: usize = 1 << 12;

/// The most blocks a thread keeps (2 MiB): a depth-first search reads
/// from a few places at a time, one for each depth on its stack (the
/// steps of a configuration's successors lie together, as they were
/// numbered together), and a read from the file costs a system call.
const MOST_BLOCKS: usize = 512;

thread_local! {
    static CACHE: std::cell::RefCell<Blocks> = std::cell::RefCell::new(Blocks::default());
}

/// The blocks of one file a thread keeps, each in the slot of its number
/// modulo their count, and the bytes last read.
#[derive(Default)]
struct Blocks {
    /// Which file they are of, one more than its number (0: none).
    of: u64,
    /// Per slot, the number of the block in it, one more (0: none).
    tags: Vec<u64>,
    data: Vec<u8>,
    read: Vec<u8>,
}

impl Blocks {
    /// The `len` bytes of `kept`'s file from `at`; `None` where they
    /// cannot be read.
    fn read(&mut self, kept: &KeptSteps, at: u64, len: usize) -> Option<&[u8]> {
        let of = kept.made + 1;
        let total = kept.file_bytes();
        if self.of != of {
            // As many slots as the file has blocks, up to the most.
            let slots = (total.div_ceil(BLOCK as u64) as usize).clamp(1, MOST_BLOCKS);
            *self = Blocks {
                of,
                tags: vec![0; slots],
                data: vec![0; slots * BLOCK],
                read: std::mem::take(&mut self.read),
            };
        }
        self.read.clear();
        let (mut at, end) = (at, at + len as u64);
        while at < end {
            let block = at / BLOCK as u64;
            let slot = (block % self.tags.len() as u64) as usize;
            let bytes = &mut self.data[slot * BLOCK..(slot + 1) * BLOCK];
            if self.tags[slot] != block + 1 {
                let start = block * BLOCK as u64;
                let filled = (total - start).min(BLOCK as u64) as usize;
                self.tags[slot] = 0;
                if !read_at(&kept.file, &mut bytes[..filled], start) {
                    return None;
                }
                self.tags[slot] = block + 1;
            }
            let from = (at % BLOCK as u64) as usize;
            let upto = (end - block * BLOCK as u64).min(BLOCK as u64) as usize;
            self.read.extend_from_slice(&bytes[from..upto]);
            at = (block + 1) * BLOCK as u64;
        }
        Some(&self.read)
    }
}

/// A file in the system's temporary directory, already unlinked, so that
/// nothing is left behind whatever becomes of the process.
#[cfg(unix)]
fn temporary_file(made: u64) -> Option<File> {
    let name = format!("guarded-steps-{}-{made}", std::process::id());
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
fn temporary_file(_: u64) -> Option<File> {
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

    /// `steps` written to a file, read back.
    fn written(steps: &[Vec<(u32, u32)>]) -> KeptSteps {
        let mut w = KeptStepsWriter::new().expect("a temporary file");
        for config in steps {
            assert!(w.config(config));
        }
        w.finish().expect("finished")
    }

    fn succs(steps: &[(u32, u32)]) -> Vec<Succ> {
        steps
            .iter()
            .map(|&(to, p)| Succ {
                to,
                moves: 1,
                movers: if p < 64 { 1 << p } else { 0 },
            })
            .collect()
    }

    /// Steps come back as written, configuration by configuration, a
    /// mover past 64 processes with no bit; a configuration past the last
    /// is not read. Read in any order, from a file of more blocks than a
    /// thread keeps (configurations across two blocks, blocks put out of
    /// their slot by others), with another file read between.
    #[test]
    fn steps_come_back_as_written() {
        let few = vec![
            vec![(1, 0), (2, 3)],
            vec![],
            vec![(u32::MAX - 1, 63), (7, 64), (8, 300)],
        ];
        let many: Vec<Vec<(u32, u32)>> = (0..400_000u32)
            .map(|i| (0..i % 7).map(|k| (i * 7 + k, (i + k) % 70)).collect())
            .collect();
        let total: usize = many.iter().map(Vec::len).sum();
        assert!(total * STEP_BYTES > 2 * MOST_BLOCKS * BLOCK);
        let (small, large) = (written(&few), written(&many));
        let mut out = Vec::new();
        for (i, steps) in few.iter().enumerate() {
            assert!(small.read(i as u32, &mut out));
            assert_eq!(out, succs(steps));
        }
        assert!(!small.read(3, &mut out));
        let mut w = KeptStepsWriter::new().expect("a temporary file");
        assert!(w.config(&[(0, 0); 255]) && !w.config(&[(0, 0); 256]));
        // Forwards, then strided backwards (every block out of its slot).
        let order = (0..many.len()).chain((0..many.len()).rev().step_by(97));
        for (k, i) in order.enumerate() {
            assert!(large.read(i as u32, &mut out));
            assert_eq!(out, succs(&many[i]), "{i}");
            if k % 1000 == 0 {
                assert!(small.read(2, &mut out));
                assert_eq!(out, succs(&few[2]));
            }
        }
    }
}
