//! `arclab-metrics`: time series for arclab — export files from
//! Prometheus-compatible servers, a local recording store, and honest
//! before/after comparisons.
//!
//! Not started yet: see the "Measure what a change did" issue.
