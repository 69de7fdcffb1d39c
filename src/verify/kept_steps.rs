//! The steps of every configuration reached from a start, kept by the
//! breadth-first search that numbers them for the searches after it (the
//! most steps, cycles, rounds), which would otherwise work each one out
//! again: decoding the configuration, looking its processes' views up,
//! writing each successor's bytes and looking them up, nearly half of a
//! search with channels. Where configurations are kept whole (channels)
//! and not by orbits, in an unlinked file: under the central daemon a step
//! is where it leads and its one mover, 5 bytes, and the memory kept is
//! 1.125 bytes a configuration (where its steps begin); under the others
//! (at most 64 processes), where it leads and its movers as bits, 4 bytes
//! and one a group of 8 processes, and 2.125 bytes a configuration; up to
//! 2 MiB a thread of the file's blocks read last. A configuration's steps
//! are read back in the order the step relation lists them, faulting ones
//! left out (as the searches leave them out); a search whose first pass
//! met a fault, or whose file cannot be written or read or would pass half
//! the memory budget (the temporary directory is memory on some systems;
//! Chang and Roberts' ring of 13 under the distributed daemon writes 1.2
//! GB), works them out again instead.

use super::process_bits::as_bits;
use super::successors::Succ;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// How many files of steps the process made: each has its number, which
/// the blocks a thread keeps of one are known by.
static MADE: AtomicU64 = AtomicU64::new(0);

/// The mover byte of a central step whose mover is past 64 processes,
/// whose bit no set holds.
const NO_BIT: u8 = 64;

/// How a step's movers are written, after where it leads (4 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum MoverBytes {
    /// One mover (the central daemon): its number, in a byte ([`NO_BIT`]
    /// past 64 processes).
    One,
    /// Any set of the first 64 processes: its bits, the lowest this many
    /// bytes of them.
    Bits(usize),
}

impl MoverBytes {
    /// How a step's movers are written under `daemon` with `n`
    /// processes: `None` where they cannot be (several movers, past 64).
    pub(super) fn under(daemon: &crate::runtime::daemon::Daemon, n: usize) -> Option<Self> {
        use crate::runtime::daemon::Daemon;
        match daemon {
            Daemon::Central => Some(MoverBytes::One),
            Daemon::Distributed | Daemon::LocallyCentral | Daemon::Synchronous if n <= 64 => {
                Some(MoverBytes::Bits(n.div_ceil(8).max(1)))
            }
            _ => None,
        }
    }

    /// The bytes of a step in the file.
    fn step_bytes(self) -> usize {
        4 + match self {
            MoverBytes::One => 1,
            MoverBytes::Bits(width) => width,
        }
    }

    /// The bytes of a configuration's count of steps: one under the
    /// central daemon (at most 255 steps), else two (at most 65,535).
    fn count_bytes(self) -> usize {
        match self {
            MoverBytes::One => 1,
            MoverBytes::Bits(_) => 2,
        }
    }
}

/// The steps being written, configuration after configuration.
pub(super) struct KeptStepsWriter {
    file: BufWriter<File>,
    /// Which of the process's files it is (see [`MADE`]).
    made: u64,
    starts: Starts,
    /// How a step's movers are written.
    movers: MoverBytes,
    /// Scratch: the bytes of the configuration's steps being written.
    config_bytes: Vec<u8>,
    /// The most bytes the file may take: half the memory budget.
    most_bytes: u64,
}

/// The steps of every configuration, written: see the module's doc.
pub(super) struct KeptSteps {
    file: File,
    made: u64,
    starts: Starts,
    movers: MoverBytes,
}

/// Per configuration, where its steps begin: how many it has (in
/// `width` bytes, little-endian), and where those of every 64th begin.
#[derive(Default)]
struct Starts {
    width: usize,
    counts: Vec<u8>,
    marks: Vec<u64>,
    /// The steps of every configuration so far.
    total: u64,
}

impl Starts {
    fn new(width: usize) -> Self {
        Starts {
            width,
            ..Starts::default()
        }
    }

    /// How many configurations it has.
    fn len(&self) -> usize {
        self.counts.len() / self.width
    }

    /// The counts of steps of configurations `range`, which it has,
    /// summed (a slice of bytes, or of pairs, summed in one loop: each
    /// step a search reads asks for up to 63 of them).
    fn sum(&self, range: std::ops::Range<usize>) -> u64 {
        let bytes = &self.counts[range.start * self.width..range.end * self.width];
        match self.width {
            1 => bytes.iter().map(|&c| u64::from(c)).sum(),
            _ => bytes
                .chunks_exact(2)
                .map(|c| u64::from(u16::from_le_bytes([c[0], c[1]])))
                .sum(),
        }
    }

    /// The next configuration has `count` steps; false where they are too
    /// many to say.
    fn push(&mut self, count: usize) -> bool {
        if count >> (8 * self.width) != 0 {
            return false;
        }
        if self.len().is_multiple_of(64) {
            self.marks.push(self.total);
        }
        self.counts
            .extend_from_slice(&count.to_le_bytes()[..self.width]);
        self.total += count as u64;
        true
    }

    /// Where configuration `i`'s steps begin, and how many it has.
    fn get(&self, i: usize) -> Option<(u64, usize)> {
        if i >= self.len() {
            return None;
        }
        let mark = i / 64;
        let before = self.sum(mark * 64..i);
        Some((self.marks[mark] + before, self.sum(i..i + 1) as usize))
    }

    fn bytes(&self) -> usize {
        self.counts.capacity() + 8 * self.marks.capacity()
    }
}

impl KeptStepsWriter {
    /// An empty file for the steps, their movers written as `movers`
    /// says, where one can be made.
    pub(super) fn new(movers: MoverBytes) -> Option<Self> {
        let made = MADE.fetch_add(1, Ordering::Relaxed);
        let file = temporary_file(made)?;
        Some(KeptStepsWriter {
            file: BufWriter::with_capacity(1 << 16, file),
            made,
            starts: Starts::new(movers.count_bytes()),
            movers,
            config_bytes: Vec::new(),
            most_bytes: crate::memory::limit() / 2,
        })
    }

    /// The next configuration's steps, each where it leads and its movers
    /// as bits (none for a central mover past 64 processes); false where
    /// the file cannot take them (it is then of no use).
    pub(super) fn config(&mut self, steps: &[(u32, u64)]) -> bool {
        let step_bytes = self.movers.step_bytes() as u64;
        let total = self.starts.total + steps.len() as u64;
        if total * step_bytes > self.most_bytes || !self.starts.push(steps.len()) {
            return false;
        }
        // The configuration's steps written at once (a call of `memcpy` a
        // step was 1.4% of a central search with rounds).
        self.config_bytes.clear();
        self.config_bytes.reserve(steps.len() * step_bytes as usize);
        match self.movers {
            MoverBytes::One => {
                for &(to, movers) in steps {
                    let [a, b, c, d] = to.to_le_bytes();
                    let mover = match movers {
                        0 => NO_BIT,
                        bits => bits.trailing_zeros() as u8,
                    };
                    self.config_bytes.extend_from_slice(&[a, b, c, d, mover]);
                }
            }
            MoverBytes::Bits(width) => {
                for &(to, movers) in steps {
                    self.config_bytes.extend_from_slice(&to.to_le_bytes());
                    self.config_bytes
                        .extend_from_slice(&movers.to_le_bytes()[..width]);
                }
            }
        }
        self.file.write_all(&self.config_bytes).is_ok()
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
            movers: self.movers,
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
        let step_bytes = self.movers.step_bytes();
        let (at, len) = (from * step_bytes as u64, count * step_bytes);
        CACHE.with_borrow_mut(|cache| {
            let Some(bytes) = cache.read(self, at, len) else {
                return false;
            };
            let to = |step: &[u8]| u32::from_le_bytes([step[0], step[1], step[2], step[3]]);
            // One loop for each form, not a test at each step; the
            // central one's steps of a size known when compiled.
            match self.movers {
                MoverBytes::One => out.extend(bytes.chunks_exact(5).map(|step| Succ {
                    to: to(step),
                    moves: 1,
                    movers: as_bits(&[u32::from(step[4])]),
                })),
                MoverBytes::Bits(_) => out.extend(bytes.chunks_exact(step_bytes).map(|step| {
                    let mut bits = [0; 8];
                    bits[..step.len() - 4].copy_from_slice(&step[4..]);
                    let movers = u64::from_le_bytes(bits);
                    Succ {
                        to: to(step),
                        moves: movers.count_ones(),
                        movers,
                    }
                })),
            }
            true
        })
    }

    /// The bytes the file holds.
    fn file_bytes(&self) -> u64 {
        self.starts.total * self.movers.step_bytes() as u64
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

    /// `steps` written to a file with movers as `movers` says, read back.
    fn written(movers: MoverBytes, steps: &[Vec<(u32, u64)>]) -> KeptSteps {
        let mut w = KeptStepsWriter::new(movers).expect("a temporary file");
        for config in steps {
            assert!(w.config(config));
        }
        w.finish().expect("finished")
    }

    fn succs(steps: &[(u32, u64)]) -> Vec<Succ> {
        steps
            .iter()
            .map(|&(to, movers)| Succ {
                to,
                moves: movers.count_ones().max(1),
                movers,
            })
            .collect()
    }

    /// A central mover: as bits, none past 64 processes.
    fn one(p: u32) -> u64 {
        as_bits(&[p])
    }

    /// Steps come back as written, configuration by configuration, a
    /// mover past 64 processes with no bit; a configuration past the last
    /// is not read. Read in any order, from a file of more blocks than a
    /// thread keeps (configurations across two blocks, blocks put out of
    /// their slot by others), with another file read between.
    #[test]
    fn steps_come_back_as_written() {
        let few = vec![
            vec![(1, one(0)), (2, one(3))],
            vec![],
            vec![(u32::MAX - 1, one(63)), (7, one(64)), (8, one(300))],
        ];
        let many: Vec<Vec<(u32, u64)>> = (0..400_000u32)
            .map(|i| (0..i % 7).map(|k| (i * 7 + k, one((i + k) % 70))).collect())
            .collect();
        let total: usize = many.iter().map(Vec::len).sum();
        assert!(total * MoverBytes::One.step_bytes() > 2 * MOST_BLOCKS * BLOCK);
        let (small, large) = (
            written(MoverBytes::One, &few),
            written(MoverBytes::One, &many),
        );
        let mut out = Vec::new();
        for (i, steps) in few.iter().enumerate() {
            assert!(small.read(i as u32, &mut out));
            assert_eq!(out, succs(steps));
        }
        assert!(!small.read(3, &mut out));
        let mut w = KeptStepsWriter::new(MoverBytes::One).expect("a temporary file");
        assert!(w.config(&[(0, 1); 255]) && !w.config(&[(0, 1); 256]));
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

    /// Steps of several movers come back with their sets and how many
    /// move, in as few bytes as the processes need (12 processes: two;
    /// 64: eight, the last process's bit too); a configuration may have
    /// up to 65,535 of them, whose starts are found past the 64th.
    #[test]
    fn sets_of_movers_come_back_as_written() {
        for (n, width) in [(12, 2), (64, 8), (1, 1)] {
            let movers = MoverBytes::under(&crate::runtime::daemon::Daemon::Distributed, n);
            assert_eq!(movers, Some(MoverBytes::Bits(width)));
            let full = if n == 64 { u64::MAX } else { (1 << n) - 1 };
            let steps: Vec<Vec<(u32, u64)>> = (0..200u32)
                .map(|i| {
                    let count = if i == 70 {
                        65_535
                    } else {
                        (i % 5) as u64 * 100
                    };
                    (0..count)
                        .map(|k| (i + k as u32, (k * 2_654_435_761) & full | 1))
                        .collect()
                })
                .collect();
            let kept = written(movers.unwrap(), &steps);
            let mut out = Vec::new();
            for i in (0..steps.len()).rev() {
                assert!(kept.read(i as u32, &mut out), "{n}: {i}");
                assert_eq!(out, succs(&steps[i]), "{n}: {i}");
            }
            let mut w = KeptStepsWriter::new(movers.unwrap()).expect("a temporary file");
            assert!(!w.config(&vec![(0, 1); 65_536]));
        }
        assert_eq!(
            MoverBytes::under(&crate::runtime::daemon::Daemon::Distributed, 65),
            None
        );
    }

    /// Past the most bytes the file may take, a configuration's steps are
    /// refused (the writer is then dropped).
    #[test]
    fn the_file_takes_at_most_its_bytes() {
        let mut w = KeptStepsWriter::new(MoverBytes::Bits(8)).expect("a temporary file");
        assert_eq!(w.most_bytes, crate::memory::limit() / 2);
        w.most_bytes = 12 * 25;
        assert!(w.config(&[(0, 1); 10]) && w.config(&[(0, 1); 15]));
        assert!(!w.config(&[(0, 1); 1]));
    }
}
