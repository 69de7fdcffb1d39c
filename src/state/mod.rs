//! The configuration as a value: every process's row of values and every
//! channel's contents. Below the compiler, which reads it, and the runtime,
//! which steps it.

pub mod channels;

use channels::Channels;

/// A configuration: `stride` values per process (its row) and every
/// channel's contents. Equal configurations compare equal and hash alike
/// once in canonical form ([`Config::canonicalize`]), whatever run led to them.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// The rows, process after process.
    pub rows: Vec<i64>,
    /// The channels (empty when the program passes no messages).
    pub chans: Channels,
}

impl Clone for Config {
    fn clone(&self) -> Self {
        Config {
            rows: self.rows.clone(),
            chans: self.chans.clone(),
        }
    }

    /// Into the buffers there are (see [`Channels`]'s).
    fn clone_from(&mut self, source: &Self) {
        self.rows.clone_from(&source.rows);
        self.chans.clone_from(&source.chans);
    }
}

impl Config {
    /// Puts the channels in canonical form: the messages' sequence numbers
    /// renumbered from 0 in the order they were sent, which is all they
    /// mean (a process takes its oldest message first).
    pub fn canonicalize(&mut self) {
        self.chans.canonicalize();
    }

    /// Process `p`'s row.
    pub fn row(&self, p: usize, stride: usize) -> &[i64] {
        &self.rows[p * stride..(p + 1) * stride]
    }
}
