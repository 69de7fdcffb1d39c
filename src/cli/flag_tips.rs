//! Flags people reach for that go by another name here. clap suggests a
//! flag spelt like the one typed, which misleads where the word is right
//! and the spelling far: `--steps` gets `--set`, `--runs` nothing. Where
//! the command has the flag meant, the tip names it instead.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

/// A word typed, and the flag (with a value where the word implies one)
/// this tool calls it.
const SYNONYMS: &[(&str, &str)] = &[
    ("--steps", "--max-steps"),
    ("--step", "--max-steps"),
    ("--limit", "--max-steps"),
    ("--moves", "--max-moves"),
    ("--runs", "--seeds"),
    ("--repeat", "--seeds"),
    ("--json", "--format json"),
    ("--verbose", "--trace"),
    ("-v", "--trace"),
    ("--daemons", "--daemon"),
    ("--scheduler", "--daemon"),
    ("--graph", "--topology"),
    ("--network", "--topology"),
    ("--out", "--csv"),
    ("--output", "--csv"),
    ("--counterexample", "--witness"),
    ("--initial", "--init"),
    ("--start", "--from"),
];

/// The flag meant by `typed` on `cli`'s command `command`, if the word is
/// a synonym of one it has.
fn meant(cli: &clap::Command, command: &str, typed: &str) -> Option<&'static str> {
    let word = typed.split('=').next().unwrap_or(typed);
    let (_, flag) = SYNONYMS.iter().find(|(w, _)| *w == word)?;
    let long = flag.split(' ').next()?.trim_start_matches("--");
    let has = cli
        .find_subcommand(command)?
        .get_arguments()
        .any(|a| a.get_long() == Some(long));
    has.then_some(*flag)
}

/// Names the flag meant in `error`, an unknown argument's, where it is a
/// synonym (and drops clap's tip to pass it as a value, which it is not).
pub(super) fn mend(error: &mut clap::Error, args: &[std::ffi::OsString]) {
    if error.kind() != ErrorKind::UnknownArgument {
        return;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidArg) else {
        return;
    };
    let command = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy())
        .find(|a| !a.starts_with('-'));
    let mut cli = super::Cli::command();
    cli.build();
    let Some(flag) = command.as_deref().and_then(|c| meant(&cli, c, typed)) else {
        return;
    };
    error.insert(ContextKind::SuggestedArg, ContextValue::String(flag.into()));
    error.remove(ContextKind::Suggested);
    // clap's usage line showed the flag it had suggested (`--set`).
    if let Some(sub) = command.and_then(|c| cli.find_subcommand_mut(&*c)) {
        error.insert(
            ContextKind::Usage,
            ContextValue::StyledStr(sub.render_usage()),
        );
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Each synonym names a flag some command has, and is offered only to
    /// the commands that have it.
    #[test]
    fn synonyms_name_flags_the_command_has() {
        let cli = crate::cli::Cli::command();
        let meant = |command: &str, typed: &str| super::meant(&cli, command, typed);
        assert_eq!(meant("run", "--steps"), Some("--max-steps"));
        assert_eq!(meant("sweep", "--steps=10"), Some("--max-steps"));
        assert_eq!(meant("verify", "--steps"), None);
        assert_eq!(meant("sweep", "--runs"), Some("--seeds"));
        assert_eq!(meant("run", "--runs"), None);
        assert_eq!(meant("verify", "--json"), Some("--format json"));
        assert_eq!(meant("sweep", "--out"), Some("--csv"));
        let commands = [
            "run", "check", "verify", "expect", "sweep", "explore", "repl",
        ];
        for (word, _) in super::SYNONYMS {
            assert!(
                commands.iter().any(|c| meant(c, word).is_some()),
                "{word} names a flag no command has"
            );
        }
    }
}
