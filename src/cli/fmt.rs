//! `guarded fmt`: programs in the canonical layout (`crate::syntax::format`).

use super::*;
use std::io::Read as _;

#[derive(Args, Debug)]
pub(super) struct FmtArgs {
    /// The programs to format in place; none (or `-`): standard input to standard output.
    files: Vec<String>,
    /// Change nothing: show how each file that is not in the layout would change, and exit
    /// with 1 if any is not.
    #[arg(long)]
    check: bool,
}

/// A unified diff of `old` to `new`, named `name`.
fn diff(name: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(name, &format!("{name} (formatted)"))
        .to_string()
}

pub(super) fn fmt(a: &FmtArgs) -> i32 {
    if a.files.is_empty() || a.files == ["-"] {
        let mut source = String::new();
        if std::io::stdin().read_to_string(&mut source).is_err() {
            return usage_error("standard input is not UTF-8 text".into());
        }
        return match crate::syntax::format_program(&source) {
            Ok(text) if a.check && text != source => {
                print!("{}", diff("<stdin>", &source, &text));
                EXIT_INPUT
            }
            Ok(_) if a.check => EXIT_OK,
            Ok(text) => {
                print!("{text}");
                EXIT_OK
            }
            Err(p) => {
                eprint!(
                    "{}",
                    crate::diagnostic::render(&[p], "<stdin>", &source, plain())
                );
                EXIT_INPUT
            }
        };
    }
    let mut code = EXIT_OK;
    for file in &a.files {
        let source = match crate::load::read_program(file) {
            Ok(s) => s,
            Err(e) => {
                code = code.max(report_load_error(&e, file, ""));
                continue;
            }
        };
        let text = match crate::syntax::format_program(&source) {
            Ok(t) => t,
            Err(p) => {
                eprint!(
                    "{}",
                    crate::diagnostic::render(&[p], file, &source, plain())
                );
                code = code.max(EXIT_INPUT);
                continue;
            }
        };
        if text == source {
            continue;
        }
        if a.check {
            print!("{}", diff(file, &source, &text));
            code = code.max(EXIT_INPUT);
        } else if let Err(e) = std::fs::write(file, &text) {
            eprintln!("error: cannot write `{file}`: {e}");
            code = code.max(EXIT_INPUT);
        } else {
            eprintln!("formatted {file}");
        }
    }
    code
}

/// Every program of the repository formatted twice: the same text, and
/// the same checked program as before.
#[cfg(test)]
mod tests {
    /// The checked program as text, without the places in the source.
    fn meaning(source: &str) -> String {
        let ast = crate::syntax::parse_program(source).expect("parses");
        let prog = crate::check::check(&ast).expect("checks");
        let text = format!("{prog:?}");
        // Spans: `Span { start: 1, end: 2 }`.
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("Span { start: ") {
            out.push_str(&rest[..at]);
            let after = &rest[at..];
            let close = after.find('}').expect("a span closes");
            out.push_str("Span");
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Every program in the repository that checks.
    fn programs() -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in [
            "programs",
            "tests/golden/programs",
            "tests/fmt",
            "benches/programs",
            "tests/fuzz/corpus",
        ] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.extension().is_some_and(|x| x == "gc") {
                    // The fuzzers' corpus holds some that are not text.
                    if let Ok(source) = String::from_utf8(std::fs::read(&path).unwrap()) {
                        out.push((path.display().to_string(), source));
                    }
                }
            }
        }
        out.sort();
        assert!(out.len() > 20, "found the programs: {}", out.len());
        out
    }

    /// Runs `f` on a thread with the stack the command line gives (the
    /// fuzzers' programs nest deeply).
    fn big_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(super::super::STACK_SIZE)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn formatting_twice_is_formatting_once_and_keeps_the_meaning() {
        big_stack(every_program_twice);
    }

    fn every_program_twice() {
        for (name, source) in programs() {
            let Ok(once) = crate::syntax::format_program(&source) else {
                continue;
            };
            let twice = crate::syntax::format_program(&once)
                .unwrap_or_else(|p| panic!("{name}: {p:?}\n{once}"));
            assert_eq!(once, twice, "{name} is not stable");
            if crate::syntax::parse_program(&source)
                .ok()
                .and_then(|ast| crate::check::check(&ast).ok())
                .is_some()
            {
                assert_eq!(meaning(&source), meaning(&once), "{name} changed meaning");
            }
            // No line longer than the width but where a comment or an
            // unbreakable stretch makes it so.
            let words = |s: &str| -> Vec<String> {
                s.split_whitespace().map(str::to_string).collect::<Vec<_>>()
            };
            let strip = |s: &str| {
                s.lines()
                    .map(|l| l.split("//").next().unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            // The tokens are the program's, in its order (spacing aside).
            assert_eq!(
                words(&strip(&source)).concat().replace(' ', ""),
                words(&strip(&once)).concat().replace(' ', ""),
                "{name}"
            );
        }
    }
}
