//! The tree-sitter grammar (`editors/tree-sitter-guarded/`) with
//! tree-sitter's own CLI: the parser committed is the one `tree-sitter
//! generate` makes of `grammar.js`; every program of the repository
//! parses without an ERROR or MISSING node; and the highlight queries
//! pass tree-sitter's highlight tests (`test/highlight/`). `.ci/run`
//! installs the CLI (`cargo install tree-sitter-cli`); without it the
//! tests say they were skipped, and under `CI=true` they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cli() -> String {
    std::env::var("TREE_SITTER").unwrap_or_else(|_| "tree-sitter".into())
}

fn have_cli() -> bool {
    if Command::new(cli()).arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "tree-sitter's CLI (`{}`) is not installed: CI must install it (.ci/run does)",
        cli()
    );
    eprintln!("SKIPPED: tree-sitter's CLI is not installed; the grammar was not tested");
    false
}

/// A copy of the grammar's sources in a folder of its own, generated there.
fn generated(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guarded-ts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let from = Path::new("editors/tree-sitter-guarded");
    for part in [
        "grammar.js",
        "tree-sitter.json",
        "queries/highlights.scm",
        "test/highlight/ring.gc",
        "test/highlight/forks.gc",
    ] {
        let to = dir.join(part);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(part), &to).unwrap();
    }
    let out = run(&dir, &["generate"]);
    assert!(out.0, "tree-sitter generate: {}", out.1);
    dir
}

/// Runs the CLI in `dir` (with its own configuration); success and output.
fn run(dir: &Path, args: &[&str]) -> (bool, String) {
    let config = dir.join(".config");
    std::fs::create_dir_all(&config).unwrap();
    let out = Command::new(cli())
        .args(args)
        .current_dir(dir)
        .env("TREE_SITTER_DIR", &config)
        .env("NO_COLOR", "1")
        .output()
        .expect("tree-sitter runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn the_committed_parser_is_the_grammars() {
    if !have_cli() {
        return;
    }
    let dir = generated("parser");
    let made = std::fs::read_to_string(dir.join("src/parser.c")).unwrap();
    let committed = std::fs::read_to_string("editors/tree-sitter-guarded/src/parser.c").unwrap();
    assert!(made == committed, "src/parser.c is not what grammar.js generates: run `tree-sitter generate` in editors/tree-sitter-guarded");
}

#[test]
fn every_program_parses_without_an_error() {
    if !have_cli() {
        return;
    }
    let dir = generated("parse");
    let mut programs = Vec::new();
    for folder in [
        "programs",
        "tests/golden/programs",
        "tests/fmt",
        "benches/programs",
    ] {
        for e in std::fs::read_dir(folder).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "gc") {
                programs.push(std::fs::canonicalize(e.path()).unwrap());
            }
        }
    }
    assert!(programs.len() >= 20, "{}", programs.len());
    for p in programs {
        let (ok, text) = run(&dir, &["parse", "-p", ".", p.to_str().unwrap()]);
        assert!(ok, "{}: {text}", p.display());
        assert!(
            !text.contains("ERROR") && !text.contains("MISSING"),
            "{}: {text}",
            p.display()
        );
        assert!(text.starts_with("(program"), "{}: {text}", p.display());
    }
}

#[test]
fn the_highlight_queries_pass_their_tests() {
    if !have_cli() {
        return;
    }
    let dir = generated("highlight");
    let (_, _) = run(&dir, &["init-config"]);
    let (ok, text) = run(&dir, &["test"]);
    assert!(ok, "{text}");
    for file in ["ring.gc", "forks.gc"] {
        assert!(text.contains(&format!("✓ {file}")), "{file}: {text}");
    }
}

/// The VS Code extension's files are JSON and agree with each other: the
/// language, its files, its grammar's scope (the tree-sitter grammar's too).
#[test]
fn the_vscode_extension_hangs_together() {
    let read = |p: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(p).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
    };
    let package = read("editors/vscode/package.json");
    let grammar = read("editors/vscode/syntaxes/guarded.tmLanguage.json");
    read("editors/vscode/language-configuration.json");
    let ts = read("editors/tree-sitter-guarded/tree-sitter.json");
    let language = &package["contributes"]["languages"][0];
    assert_eq!(language["id"], "guarded");
    assert_eq!(language["extensions"], serde_json::json!([".gc"]));
    let contributed = &package["contributes"]["grammars"][0];
    assert_eq!(contributed["scopeName"], grammar["scopeName"]);
    assert_eq!(grammar["scopeName"], ts["grammars"][0]["scope"]);
    // Every rule the patterns include is in the repository.
    for p in grammar["patterns"].as_array().unwrap() {
        let name = p["include"].as_str().unwrap().trim_start_matches('#');
        assert!(grammar["repository"].get(name).is_some(), "{name}");
    }
    let main = package["main"].as_str().unwrap();
    assert!(std::path::Path::new("editors/vscode").join(main).exists());
}
