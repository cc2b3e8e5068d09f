//! `arclab workloads`: every built-in is listed on one line, and `show`
//! prints the same TOML as the repository's `examples/` copies, so a user
//! without the source tree can start from them.

mod common;

use common::{fails, ok};
use std::path::Path;

fn example(file: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn lists_every_builtin_on_one_line() {
    let out = ok(&["workloads"]);
    let (workloads, scenarios) = out.split_once("\nscenarios").expect("two sections");
    // The names whatif's --help and docs/whatif.md give.
    for name in [
        "homelab", "zipf", "scan", "loop", "mixture", "oltp", "backup", "bonnie",
    ] {
        let lines: Vec<&str> = workloads
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("{name} ")))
            .collect();
        assert_eq!(lines.len(), 1, "{name}:\n{out}");
        assert!(lines[0].contains("req/s"), "{}", lines[0]);
    }
    for name in ["homelab", "bonnie"] {
        assert!(
            scenarios
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{name} "))),
            "{name}:\n{out}"
        );
    }
    // The homelab scenario's own description line (examples/scenario-homelab.toml).
    assert!(scenarios.contains("~70 containers"), "{out}");
}

#[test]
fn show_prints_the_toml_of_the_examples() {
    for name in ["homelab", "bonnie", "mixture", "zipf"] {
        assert_eq!(
            ok(&["workloads", "show", name]),
            example(&format!("{name}.toml")),
            "{name}"
        );
    }
    assert_eq!(
        ok(&["workloads", "show", "--scenario", "homelab"]),
        example("scenario-homelab.toml")
    );
    let err = fails(&["workloads", "show", "nosuch"], 1);
    assert!(
        err.contains("homelab") && err.contains("arclab workloads"),
        "{err}"
    );
    let err = fails(&["workloads", "show", "--scenario", "zipf"], 1);
    assert!(err.contains("no built-in scenario `zipf`"), "{err}");
    fails(&["workloads", "show"], 2);
}
