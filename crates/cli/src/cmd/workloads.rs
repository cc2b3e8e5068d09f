//! `arclab workloads`: the built-in workloads and scenarios `whatif` knows,
//! one line each, and `show NAME` to print one's TOML (a starting point for
//! a file of one's own). The texts live in `arclab_sim::workload` and
//! `arclab_sim::scenario`; this module only prints them.

use anyhow::Result;
use arclab_sim::{scenario, workload};

use crate::output;

/// List the built-in workloads and scenarios, or print one's TOML.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  \
    arclab workloads\n  \
    arclab workloads show homelab\n  \
    arclab workloads show --scenario homelab")]
pub(crate) struct WorkloadsArgs {
    #[command(subcommand)]
    command: Option<WorkloadsCommand>,
}

#[derive(clap::Subcommand, Debug)]
enum WorkloadsCommand {
    /// Print a built-in's TOML (the workload's when a scenario has the same
    /// name; --scenario for the scenario's).
    Show {
        /// A built-in workload or scenario name.
        name: String,
        /// The scenario of that name, not the workload.
        #[arg(long)]
        scenario: bool,
    },
}

pub(crate) fn run(args: WorkloadsArgs) -> Result<()> {
    match args.command {
        None => output::print(&list()),
        Some(WorkloadsCommand::Show { name, scenario }) => output::print(show(&name, scenario)?),
    }
}

/// One line per built-in workload and scenario.
fn list() -> String {
    let width = workload::BUILTINS
        .iter()
        .chain(scenario::BUILTINS)
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let mut s =
        String::from("workloads (arclab whatif --workload NAME; arclab workloads show NAME):\n");
    for name in workload::BUILTINS {
        let line = workload::builtin(name).map_or_else(
            || "(does not parse)".to_string(),
            |w| {
                let d = w.describe();
                d.strip_prefix(&format!("{name}: "))
                    .map_or(d.clone(), str::to_string)
            },
        );
        s.push_str(&format!("  {name:<width$}  {line}\n"));
    }
    s.push_str(
        "\nscenarios (arclab whatif --scenario NAME; arclab workloads show --scenario NAME):\n",
    );
    for name in scenario::BUILTINS {
        let line = scenario::builtin(name).map_or_else(
            || "(does not parse)".to_string(),
            |sc| {
                sc.description.clone().unwrap_or_else(|| {
                    format!(
                        "{} of RAM, {}",
                        arclab_arc::units::format_bytes(sc.ram_bytes),
                        sc.os
                    )
                })
            },
        );
        s.push_str(&format!("  {name:<width$}  {line}\n"));
    }
    s
}

/// The TOML of the built-in `name` (the workload's unless `want_scenario`
/// or no workload has that name).
fn show(name: &str, want_scenario: bool) -> Result<&'static str> {
    let text = if want_scenario {
        scenario::builtin_toml(name)
    } else {
        workload::builtin_toml(name).or_else(|| scenario::builtin_toml(name))
    };
    text.ok_or_else(|| {
        anyhow::anyhow!(
            "no built-in {} `{name}` (workloads: {}; scenarios: {}); `arclab workloads` lists them",
            if want_scenario {
                "scenario"
            } else {
                "workload or scenario"
            },
            workload::BUILTINS.join(", "),
            scenario::BUILTINS.join(", ")
        )
    })
}
