//! The `arclab` command-line tool: see what the ZFS ARC does with your
//! memory, and what a change will cost before you make it.
//!
//! Exit codes: 0 success (a closed output pipe counts as success), 1 failure
//! (bad input, unreadable files), 2 bad usage.

mod args;
mod cmd;
mod output;
mod progress;
mod remote;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// See what the ZFS ARC does with your memory, and what a cap or a prefetch
/// change will cost before you make it.
#[derive(Parser, Debug)]
#[command(name = "arclab", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// What a cap on zfs_arc_max (or prefetch off) will cost, and what it buys.
    ///
    /// One row per cap. dmiss/s (JSON `misses_per_sec`) counts demand misses:
    /// demand reads that went to the disk, as arcstat's `dmis` counts them.
    /// disk rd/s (`disk_reads_per_sec`) adds the prefetch reads that missed
    /// the ARC, which load the disk too; disk busy is the time all of them
    /// take on --device.
    Whatif(cmd::whatif::WhatifArgs),
    /// The built-in workloads and scenarios (`show NAME` prints one's TOML).
    Workloads(cmd::workloads::WorkloadsArgs),
    /// Replay a block or object trace through cache policies at several sizes.
    Sim(cmd::sim::SimArgs),
    /// Inspect or convert trace files.
    #[command(subcommand)]
    Trace(cmd::trace::TraceCommand),
    /// The ARC limits a host gets (c_min, c_max, arc_sys_free), by version.
    Limits(cmd::limits::LimitsArgs),
    /// What the ARC does with your RAM right now, and why it is above its target.
    Status(cmd::status::StatusArgs),
    /// The ARC live: full-screen on a terminal, arcstat-like lines otherwise.
    ///
    /// On a terminal, a full-screen view refreshed every --interval: a RAM bar
    /// (applications, ARC evictable and non-evictable, free, and what is really
    /// available: MemAvailable + the ARC's reclaimable part, size − max(c_min,
    /// non-evictable)), the ARC panel (size, c, c_min, c_max and its default for
    /// the inferred release, MRU/MFU data/metadata, why size is above c),
    /// per-second rates with sparklines and colour thresholds, and events as
    /// they happen (c falling, arc_no_grow, memory throttle, zfs_arc_max changed,
    /// counter resets, missed intervals). Keys: q quit, p pause, h help, 1/2/3
    /// panels. See docs/live.md.
    ///
    /// Otherwise (standard output not a terminal, or --lines / --json /
    /// --on-stdin) one line per interval, like arcstat: reads, hits, misses, hit
    /// %, demand and prefetch misses, size, c and available memory. The first
    /// line is the average since the module loaded. A counter that goes down
    /// (module reload, reboot) is shown as a reset, never as a negative rate.
    Top(cmd::top::TopArgs),
    /// Serve the ARC to Prometheus on /metrics, with the answers as metrics.
    Exporter(cmd::exporter::ExporterArgs),
    /// Record this host's ARC reads into a trace for whatif (Linux, root).
    Capture(cmd::capture::CaptureArgs),
    /// Write a whatif scenario of this host (RAM, release, caps, pinned and other memory).
    Scenario(cmd::scenario::ScenarioArgs),
    /// Check tunables files, or plan a cap on zfs_arc_max.
    #[command(subcommand)]
    Tune(cmd::tune::TuneCommand),
    /// Export series from a Prometheus-compatible server into a file.
    Export(cmd::export::ExportArgs),
    /// Sample arcstats into a SQLite recording (hosts without Prometheus).
    Record(cmd::record::RecordArgs),
    /// Record a change marker ("zfs_arc_max=8G") in a recording.
    Change(cmd::change::ChangeArgs),
    /// Compare before and after a change: rates, gauges, hit ratio, uncertainty.
    Compare(cmd::compare::CompareArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Whatif(args) => cmd::whatif::run(args),
        Command::Workloads(args) => cmd::workloads::run(args),
        Command::Sim(args) => cmd::sim::run(args),
        Command::Trace(c) => cmd::trace::run(c),
        Command::Limits(args) => cmd::limits::run(args),
        Command::Status(args) => cmd::status::run(args),
        Command::Top(args) => cmd::top::run(args),
        Command::Exporter(args) => cmd::exporter::run(args),
        Command::Capture(args) => cmd::capture::run(args),
        Command::Scenario(args) => cmd::scenario::run(args),
        Command::Tune(c) => cmd::tune::run(c),
        Command::Export(args) => cmd::export::run(args),
        Command::Record(args) => cmd::record::run(args),
        Command::Change(args) => cmd::change::run(args),
        Command::Compare(args) => cmd::compare::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors quote input (values, lines, names): control characters
            // are escaped, never sent to the terminal raw.
            if let Some(u) = e.downcast_ref::<cmd::UsageError>() {
                output::note(&format!("arclab: usage error: {u}"));
                return ExitCode::from(2);
            }
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            output::note(&format!("arclab: error: {}", dedup_chain(&chain)));
            ExitCode::from(1)
        }
    }
}

/// Join an error chain on one line, dropping a cause already quoted by its parent.
fn dedup_chain(chain: &[String]) -> String {
    let mut out = String::new();
    for (i, msg) in chain.iter().enumerate() {
        if i > 0 && out.contains(msg.as_str()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(msg);
    }
    out
}
