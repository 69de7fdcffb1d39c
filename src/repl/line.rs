//! The REPL's terminal side: rustyline with history in the user's data
//! directory, completion of commands, process numbers, variables and action
//! labels, and hints; plain line-by-line reading when input is not a terminal.

use super::{Control, Session, COMMANDS, INTERRUPTED};
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::Ordering;

/// Completion and hints for the prompt.
pub struct ReplHelper {
    words: Vec<String>,
    processes: usize,
}

impl ReplHelper {
    /// Candidates for the word ending at `pos`: commands first, then
    /// process numbers, variables and action labels.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| c.is_whitespace() || c == '.' || c == '(')
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let mut out: Vec<String> = if start == 0 {
            COMMANDS
                .iter()
                .map(|c| c.0.to_string())
                .filter(|c| c.starts_with(word))
                .collect()
        } else if before.trim_start().starts_with("daemon ") {
            crate::runtime::daemon::DAEMONS
                .iter()
                .map(|d| match d.name {
                    "schedule" => "schedule:".to_string(),
                    n => n.to_string(),
                })
                .filter(|d| d.starts_with(word))
                .collect()
        } else {
            let mut v: Vec<String> = self
                .words
                .iter()
                .filter(|w| w.starts_with(word))
                .cloned()
                .collect();
            if !word.is_empty()
                && word.chars().all(|c| c.is_ascii_digit())
                && self.processes <= 10_000
            {
                v.extend(
                    (0..self.processes)
                        .map(|p| p.to_string())
                        .filter(|p| p.starts_with(word)),
                );
            }
            v
        };
        out.sort();
        out.dedup();
        (start, out)
    }
}

impl Completer for ReplHelper {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(self.candidates(line, pos))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<String> {
        if pos < line.len() || line.is_empty() {
            return None;
        }
        // After a complete command name, show its arguments; while typing one, its rest.
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        match COMMANDS.iter().find(|c| c.0 == cmd) {
            Some(c) if rest.is_empty() && line.ends_with(' ') => Some(c.1.to_string()),
            Some(_) => None,
            None if !line.contains(' ') => COMMANDS
                .iter()
                .find(|c| c.0.starts_with(line))
                .map(|c| c.0[line.len()..].to_string()),
            None => None,
        }
    }
}

impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

/// Where the history lives: the user's data directory.
pub fn history_path() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("GUARDED_HISTORY_DIR")
        .map(Into::into)
        .or_else(|| dirs::data_dir().map(|d| d.join("guarded")))?;
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}

/// Runs a session on standard input; returns the exit code.
pub fn drive(mut session: Session, echo: bool) -> i32 {
    // Ctrl-C stops a long `run`, not the REPL.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    if !std::io::stdin().is_terminal() {
        return drive_plain(session, echo);
    }
    let mut editor: Editor<ReplHelper, DefaultHistory> = match Editor::new() {
        Ok(e) => e,
        Err(_) => return drive_plain(session, echo),
    };
    editor.set_helper(Some(ReplHelper {
        words: session.words(),
        processes: session.sim().n(),
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "guarded repl: {} processes; `help` lists the commands, Ctrl-D leaves",
        session.sim().n()
    );
    let mut out = String::new();
    session.execute("show", &mut out);
    print!("{out}");
    loop {
        let prompt = format!("[{}]> ", session.sim().now().step);
        match editor.readline(&prompt) {
            Ok(line) => {
                let _ = editor.add_history_entry(line.as_str());
                if let Some(h) = &history {
                    let _ = editor.append_history(h);
                }
                out.clear();
                let control = session.execute(&line, &mut out);
                print!("{out}");
                let _ = std::io::stdout().flush();
                if control == Control::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => {
                println!("(Ctrl-C: type `quit` or press Ctrl-D to leave)")
            }
            Err(_) => break,
        }
    }
    0
}

/// A script on standard input: every line is run, as a shell runs one,
/// and the session exits 1 when any command failed, naming their lines
/// (an interactive session's exit does not depend on them).
fn drive_plain(mut session: Session, echo: bool) -> i32 {
    let stdin = std::io::stdin();
    let mut out = String::new();
    let stdout = std::io::stdout();
    let mut failed: Vec<usize> = Vec::new();
    for (number, line) in stdin.lock().lines().enumerate() {
        let Ok(line) = line else {
            eprintln!(
                "error: line {} of standard input is not UTF-8 text",
                number + 1
            );
            failed.push(number + 1);
            break;
        };
        out.clear();
        if echo {
            out.push_str(&format!("> {line}\n"));
        }
        let control = session.execute(&line, &mut out);
        let mut lock = stdout.lock();
        let _ = write!(lock, "{out}");
        let _ = lock.flush();
        match control {
            Control::Quit => break,
            Control::Failed => failed.push(number + 1),
            Control::Continue => {}
        }
    }
    if failed.is_empty() {
        return crate::report::exit::EXIT_OK;
    }
    let lines: Vec<String> = failed.iter().map(usize::to_string).collect();
    eprintln!(
        "error: {} of the script failed: line{} {}",
        crate::report::counted(failed.len() as u64, "command"),
        if failed.len() == 1 { "" } else { "s" },
        lines.join(", ")
    );
    crate::report::exit::EXIT_INPUT
}

#[cfg(test)]
mod tests {
    use super::ReplHelper;

    #[test]
    fn completes_daemon_names() {
        let h = ReplHelper {
            words: vec![],
            processes: 4,
        };
        assert_eq!(h.candidates("daemon lo", 9).1, vec!["locally-central"]);
        assert_eq!(
            h.candidates("daemon s", 8).1,
            vec!["schedule:", "synchronous"]
        );
    }

    #[test]
    fn completes_commands_then_names_and_processes() {
        let h = ReplHelper {
            words: vec!["copy".into(), "x".into(), "advance".into()],
            processes: 12,
        };
        assert_eq!(h.candidates("st", 2), (0, vec!["step".to_string()]));
        assert_eq!(h.candidates("fire 1", 6).1, ["1", "10", "11"]);
        assert_eq!(h.candidates("fire 3 co", 9), (7, vec!["copy".to_string()]));
        assert_eq!(h.candidates("show 3.", 7).1.len(), 3);
    }
}
