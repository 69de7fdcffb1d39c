//! The documentation names what the tool knows: every daemon of the
//! daemons' table and every topology family of the families' table
//! appears in the README and in docs/language.md (the tables also feed
//! `--help`, the REPL's help and completion, and the did-you-mean hints).

use guarded::runtime::daemon::DAEMONS;
use guarded::topology::FAMILIES;

const README: &str = include_str!("../README.md");
const LANGUAGE: &str = include_str!("../docs/language.md");

#[test]
fn every_daemon_is_documented() {
    for d in DAEMONS {
        let written = format!("`{}", d.name);
        assert!(README.contains(&written), "README lacks daemon {}", d.name);
        assert!(
            LANGUAGE.contains(&written),
            "docs/language.md lacks daemon {}",
            d.name
        );
    }
}

#[test]
fn every_topology_family_is_documented() {
    for (name, _) in FAMILIES {
        let written = format!("`{name}:");
        assert!(README.contains(&written), "README lacks topology {name}");
    }
}

/// The README's `guarded verify` example prints what the README shows.
#[test]
fn the_readme_verify_example_prints_what_the_readme_shows() {
    let command = "guarded verify programs/dijkstra_kstate.gc --topology ring:4 --param K=4 --daemon central --witness w";
    let after = README
        .split_once(command)
        .expect("the README shows the command")
        .1;
    // The command's own block closes, then the output's block opens.
    let shown = after
        .split_once("```\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("an output block follows")
        .0;
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(command.split_whitespace().skip(1))
        .current_dir(root)
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(std::path::Path::new(root).join("w"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
    assert_eq!(out.status.code(), Some(0));
}
