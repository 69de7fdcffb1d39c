//! The documentation names what the tool knows: every daemon of the
//! daemons' table and every topology family of the families' table
//! appears in the README and in docs/language.md (the tables also feed
//! `--help`, the REPL's help and completion, and the did-you-mean hints),
//! and every flag of `guarded verify` has a row in docs/verify.md.

use guarded::runtime::daemon::DAEMONS;
use guarded::topology::FAMILIES;

const README: &str = include_str!("../README.md");
const LANGUAGE: &str = include_str!("../docs/language.md");
const VERIFY: &str = include_str!("../docs/verify.md");

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
    for (name, spec) in FAMILIES {
        // A family with a size is written `name:...`; one without, `name`.
        let written = if spec.contains(':') {
            format!("`{name}:")
        } else {
            format!("`{name}`")
        };
        assert!(README.contains(&written), "README lacks topology {name}");
    }
}

/// docs/verify.md, the command's reference, has a row for every flag
/// `guarded verify --help` lists.
#[test]
fn every_verify_flag_is_documented() {
    let out = guarded(&["verify", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    // An option's line starts with its short or long name; its first
    // long name is the flag.
    let flags: Vec<&str> = help
        .lines()
        .filter(|line| line.trim_start().starts_with('-'))
        .filter_map(|line| line.split_whitespace().find_map(|w| w.strip_prefix("--")))
        .map(|flag| flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|flag| *flag != "help")
        .collect();
    assert!(flags.contains(&"no-rounds"), "read the flags: {flags:?}");
    for flag in flags {
        assert!(
            VERIFY.contains(&format!("| `--{flag}")) || VERIFY.contains(&format!(", --{flag}")),
            "docs/verify.md has no row for --{flag}"
        );
    }
}

/// The output block the README shows after `command`'s own block.
fn output_shown_after(command: &str) -> &'static str {
    let after = README
        .split_once(command)
        .expect("the README shows the command")
        .1;
    // The command's own block closes, then the output's block opens.
    after
        .split_once("```\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("an output block follows")
        .0
}

/// The README's `guarded verify` example prints what the README shows.
#[test]
fn the_readme_verify_example_prints_what_the_readme_shows() {
    let command = "guarded verify programs/dijkstra_kstate.gc --topology ring:4 --param K=4 --daemon central --witness w";
    let shown = output_shown_after(command);
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

/// The README's family of sizes prints what the README shows.
#[test]
fn the_readme_family_example_prints_what_the_readme_shows() {
    let command = "guarded verify programs/dijkstra_kstate.gc --topology ring:3..8 --param K=n --daemon central --no-rounds";
    let shown = output_shown_after(command);
    let out = guarded(&command.split_whitespace().skip(1).collect::<Vec<_>>());
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
    assert_eq!(out.status.code(), Some(0));
}

/// Runs a README command (without its leading `guarded`) from the crate root.
fn guarded(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_guarded"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

/// The README's `guarded sweep` example prints the tables the README shows.
#[test]
fn the_readme_sweep_example_prints_what_the_readme_shows() {
    let command = "guarded sweep programs/dijkstra_kstate.gc --topology ring:8..128*2 --seeds 0..49 --daemon central,synchronous --init random --csv out.csv --plot out.svg";
    let shown = output_shown_after(command);
    let dir = std::env::temp_dir().join(format!("guarded-docs-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, svg) = (dir.join("out.csv"), dir.join("out.svg"));
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let n = args.len();
    args[n - 3] = csv.to_str().unwrap();
    args[n - 1] = svg.to_str().unwrap();
    let out = guarded(&args);
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8_lossy(&out.stdout);
    // The README shows the moves table and the growth table, as printed.
    for block in shown.split("\n\n") {
        assert!(printed.contains(block.trim_end()), "not printed:\n{block}");
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 501);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}

/// The plot the README shows is what its command draws today.
#[test]
fn the_readme_plot_is_current() {
    let command = "guarded sweep programs/johnen_leader.gc --topology uring:4..128*2 --param k=1 --ids random --seeds 0..99 --daemon distributed,synchronous --init random --until legitimate --plot docs/sweep_johnen.svg --plot-measure rounds --plot-bound 3*n+1";
    assert!(README.contains(command), "the README shows the command");
    let svg = std::env::temp_dir().join(format!("guarded-docs-plot-{}.svg", std::process::id()));
    let args: Vec<&str> = command
        .split_whitespace()
        .skip(1)
        .map(|a| match a {
            "docs/sweep_johnen.svg" => svg.to_str().unwrap(),
            other => other,
        })
        .collect();
    let out = guarded(&args);
    assert_eq!(out.status.code(), Some(0));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    let committed = include_str!("../docs/sweep_johnen.svg");
    assert!(
        drawn == committed,
        "docs/sweep_johnen.svg is stale: rerun the README's command"
    );
}
