//! `arclab-zfs`: the host side of arclab — reading arcstats from Linux procfs
//! and FreeBSD sysctl output, the field catalogue, and tunables files.
//!
//! Work in progress: see the "Observe and tune" issue.
