//! Reading the files a command names as text: a program, and the other
//! inputs (configurations, schedules, edge lists, DOT files, CSVs), each
//! with a size limit, refusing what is not text before reading it whole.

use super::LoadError;
use crate::diagnostic::Problem;

/// The largest program text read: far beyond any protocol's, and small
/// enough that no check of it runs out of memory.
pub const MAX_PROGRAM_BYTES: u64 = 4 << 20;

/// The largest other input file read (a configuration, a schedule, an edge
/// list, a DOT file, a sweep's CSV).
pub const MAX_FILE_BYTES: u64 = 512 << 20;

/// Why a file could not be read as text.
#[derive(Debug)]
pub enum ReadError {
    /// It cannot be opened or read, or is larger than the limit.
    Unreadable(String),
    /// It is not UTF-8 text: its text with the bad bytes replaced, and
    /// where the first one is.
    NotText {
        /// The text, each invalid sequence replaced by U+FFFD.
        lossy: String,
        /// The byte offset of the first invalid sequence.
        at: usize,
    },
}

/// How the refusal of a file that was read but is not text says so: such a
/// file is a wrong input (exit 1), like a wrong line in it, while one that
/// cannot be read or is too large is a wrong command line (exit 2).
pub const NOT_TEXT: &str = "is not text:";

/// Whether `message` refuses a file for not being text ([`NOT_TEXT`]).
pub fn refuses_as_not_text(message: &str) -> bool {
    message.contains(NOT_TEXT)
}

/// Reads at most `limit` bytes of `path` as UTF-8 text; a larger file is
/// refused before it is read whole (`/dev/zero` included).
pub fn read_text(path: &str, limit: u64) -> Result<String, ReadError> {
    use std::io::Read;
    let unreadable =
        |e: std::io::Error| ReadError::Unreadable(format!("cannot read `{path}`: {e}"));
    let too_large = || {
        ReadError::Unreadable(format!(
            "cannot read `{path}`: it is larger than {} MB, the most this tool reads",
            limit >> 20
        ))
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let regular = file.metadata().map_err(unreadable)?;
    if regular.is_file() && regular.len() > limit {
        return Err(too_large());
    }
    // A chunk at a time, so that a device or pipe that is not text
    // (`/dev/zero`, `/dev/urandom`) is refused at its first NUL byte, not
    // once the cap is read.
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let got = file.read(&mut chunk).map_err(unreadable)?;
        if got == 0 {
            break;
        }
        if let Some(k) = chunk[..got].iter().position(|&b| b == 0) {
            return Err(ReadError::Unreadable(format!(
                "`{path}` {NOT_TEXT} byte {} is a NUL",
                bytes.len() + k
            )));
        }
        bytes.extend_from_slice(&chunk[..got]);
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
    }
    String::from_utf8(bytes).map_err(|e| ReadError::NotText {
        at: e.utf8_error().valid_up_to(),
        lossy: String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Reads a file a program or set-up names (at most [`MAX_FILE_BYTES`]).
pub fn read_file(path: &str) -> Result<String, String> {
    read_text(path, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::Unreadable(m) => m,
        ReadError::NotText { at, .. } => {
            format!("`{path}` {NOT_TEXT} byte {at} does not start a UTF-8 character")
        }
    })
}

/// Reads a program (at most [`MAX_PROGRAM_BYTES`]): a file that cannot be
/// read is a usage error; one that is not UTF-8 text is a wrong program,
/// pointed at its first bad byte.
pub fn read_program(path: &str) -> Result<String, LoadError> {
    read_text(path, MAX_PROGRAM_BYTES).map_err(|e| match e {
        ReadError::Unreadable(m) => {
            LoadError::Usage(m.replacen("cannot read", "cannot read program", 1))
        }
        ReadError::NotText { lossy, at } => LoadError::Input {
            origin: path.to_string(),
            problems: vec![Problem::new(
                "guarded::syntax::not_utf8",
                "the program is not UTF-8 text",
            )
            .label(
                crate::span::Span::new(at, at + 3),
                "this byte cannot start a character",
            )
            .help("save the program as UTF-8 (plain ASCII is UTF-8)")],
            text: lossy,
        },
    })
}
