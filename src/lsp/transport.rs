//! The server's standard input and output, framed as LSP messages, with
//! what one message may take bounded: lsp-server's own stdio transport
//! makes room for whatever `Content-Length` a message claims, and a
//! claim of a terabyte aborted the process (found by fuzzing the
//! server). Here a header line, and a message, past their bounds end the
//! session with an error saying so; lsp-server still parses each message
//! and writes the answers.

use crate::load::MAX_PROGRAM_BYTES;
use lsp_server::{Connection, Message};
use std::io::{BufRead, Cursor, Read, Write};
use std::thread::JoinHandle;

/// The most bytes one message may take: a whole program (the editor
/// sends the text at every change), each byte possibly escaped in JSON as
/// six, and room for the rest.
pub const MOST_MESSAGE_BYTES: usize = 6 * MAX_PROGRAM_BYTES as usize + (64 << 10);

/// The most bytes one header line may take.
const MOST_HEADER_BYTES: u64 = 1 << 10;

/// The threads that carry messages between the server and its streams.
pub struct Transport {
    reader: JoinHandle<Result<(), String>>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl Transport {
    /// Waits for both threads: the reader's error (a message out of its
    /// bounds or not a message) first, then the writer's.
    pub fn join(self) -> Result<(), String> {
        let read = self.reader.join().unwrap_or(Ok(()));
        let written = self.writer.join().unwrap_or(Ok(()));
        read?;
        written.map_err(|e| format!("writing to the editor: {e}"))
    }
}

/// A connection over standard input and output, messages bounded as above.
pub fn stdio() -> (Connection, Transport) {
    let (server, editor) = Connection::memory();
    let Connection { sender, receiver } = editor;
    let reader = std::thread::spawn(move || {
        let mut input = std::io::stdin().lock();
        while let Some(message) = read_bounded(&mut input)? {
            let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
            // The server has stopped listening, or the editor said goodbye.
            if sender.send(message).is_err() || exit {
                break;
            }
        }
        Ok(())
    });
    let writer = std::thread::spawn(move || {
        let mut output = std::io::stdout().lock();
        for message in receiver {
            message.write(&mut output)?;
        }
        output.flush()
    });
    (server, Transport { reader, writer })
}

/// The next message of `input`, `None` at its end; an error where a header
/// line or the message is longer than its bound, or it is not a message.
pub fn read_bounded(input: &mut impl BufRead) -> Result<Option<Message>, String> {
    let mut frame = Vec::new();
    let mut length = None;
    loop {
        let mut line = Vec::new();
        let read = (input.by_ref().take(MOST_HEADER_BYTES))
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("reading from the editor: {e}"))?;
        if read == 0 && frame.is_empty() {
            return Ok(None);
        }
        if !line.ends_with(b"\n") {
            return Err(match read as u64 {
                MOST_HEADER_BYTES => {
                    format!("a message header line longer than {MOST_HEADER_BYTES} bytes")
                }
                _ => "the input ended inside a message's header".into(),
            });
        }
        frame.extend_from_slice(&line);
        let text = String::from_utf8_lossy(&line);
        let header = text.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    // A header without a length is lsp-server's to report.
    let length = length.unwrap_or(0);
    if length > MOST_MESSAGE_BYTES {
        return Err(format!(
            "a message of {length} bytes, more than the {MOST_MESSAGE_BYTES} the server reads"
        ));
    }
    let start = frame.len();
    frame.resize(start + length, 0);
    input
        .read_exact(&mut frame[start..])
        .map_err(|e| format!("reading a message of {length} bytes from the editor: {e}"))?;
    Message::read(&mut Cursor::new(frame)).map_err(|e| format!("not an LSP message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Messages are read one after another to the input's end; a claimed
    /// length past the bound, a header line past its own, a header cut
    /// short and a body that is not a message are errors, not an attempt
    /// to make room for them.
    #[test]
    fn messages_are_read_within_their_bounds() {
        let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let shutdown = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let two = format!("{}{}", framed(shutdown), framed(exit));
        let mut input = Cursor::new(two.into_bytes());
        assert!(matches!(
            read_bounded(&mut input),
            Ok(Some(Message::Request(_)))
        ));
        assert!(matches!(
            read_bounded(&mut input),
            Ok(Some(Message::Notification(_)))
        ));
        assert!(matches!(read_bounded(&mut input), Ok(None)));
        let huge = format!("Content-Length: 999999999999\r\n\r\n{exit}");
        let err = read_bounded(&mut Cursor::new(huge.into_bytes())).unwrap_err();
        assert!(err.contains("a message of 999999999999 bytes"), "{err}");
        let long_line = format!("X-{}: 1\r\n\r\n", "a".repeat(5000));
        let err = read_bounded(&mut Cursor::new(long_line.into_bytes())).unwrap_err();
        assert!(err.contains("header line longer than"), "{err}");
        let cut = "Content-Length: 5\r\nContent-Type: x";
        let err = read_bounded(&mut Cursor::new(cut.as_bytes().to_vec())).unwrap_err();
        assert!(err.contains("ended inside a message's header"), "{err}");
        let garbage = framed("{bad}");
        let err = read_bounded(&mut Cursor::new(garbage.into_bytes())).unwrap_err();
        assert!(err.contains("not an LSP message"), "{err}");
        let short = "Content-Length: 50\r\n\r\n{}";
        let err = read_bounded(&mut Cursor::new(short.as_bytes().to_vec())).unwrap_err();
        assert!(err.contains("reading a message of 50 bytes"), "{err}");
    }
}
