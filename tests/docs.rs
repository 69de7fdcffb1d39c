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
