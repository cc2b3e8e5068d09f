//! The built-in workloads, as the TOML users would write them
//! (`examples/*.toml` holds copies; a test keeps them in sync).

pub(crate) const HOMELAB: &str = r#"# The homelab of the blog post, a day of it (docs/whatif.md, "The homelab,
# fitted on the blog's before"): ~70 containers on a 31.24 GiB box, 22,000 ARC
# reads a second. What is fitted, and on what, is said at each line; nothing
# here was fitted on the blog's after.
name = "homelab"
description = "a day of ~70 containers: hot metadata, a Zipf-like data set, databases, data read once, a nightly backup"
kind = "mixture"
duration_secs = 86400
# The blog: about 22,000 hits a second.
rate = 22000

# Metadata reads: 82 % of the reads, as on a real 31.2 GiB OpenZFS 2.3 host
# (data/arcstats/linux-openzfs22plus-telegraf.arcstats: demand_metadata_hits
# are 82.5 % of the demand hits). Each reads the indirect block (L1) over a
# Zipf-popular block of 2 GiB of 16 KiB records: a small hot set (128 blocks)
# that stays cached, as the indirect blocks of busy files do. Not fitted.
[[components]]
kind = "zipf"
weight = 0.82
alpha = 1.0
objects = 131072
size = "16KiB"
metadata_fraction = 1.0

# Container images, shared libraries, application data: 3.25 GiB of 128 KiB
# records. Its size is the one fitted number of the workload: it gives the
# blog's 20 misses a second (99.91 % hits) uncapped.
[[components]]
kind = "zipf"
weight = 0.14
alpha = 1.0
objects = 26624
size = "128KiB"
prefill = true

# Databases (PostgreSQL, SQLite, …): 1 GiB in 16 KiB pages, a quarter writes.
[[components]]
kind = "oltp"
weight = 0.04
bytes = "1GiB"
size = "16KiB"
alpha = 1.1
write_fraction = 0.25
prefill = true

# Data read once (logs, metrics, new image layers, files read back after
# being written): 1 MiB/s, a new 128 MiB file every 128 s. It is what lets
# an uncapped ARC grow until memory runs short.
[[components]]
kind = "scan"
rate = 8
bytes = "128MiB"
period_secs = 128

# The nightly backup at 02:00 reads 4 GiB of changed files.
[[components]]
kind = "scan"
rate = 2000
bytes = "4GiB"
start_secs = 7200
period_secs = 86400
"#;

pub(crate) const ZIPF: &str = r#"# Zipf(0.9)-popular 128 KiB blocks: 10 GiB, 20,000 reads/s, 2 minutes.
name = "zipf"
kind = "zipf"
duration_secs = 120
rate = 20000
alpha = 0.9
objects = 81920
size = "128KiB"
"#;

pub(crate) const SCAN: &str = r#"# One sequential pass over a 4 GiB file at 2,000 blocks/s (250 MiB/s).
name = "scan"
kind = "scan"
duration_secs = 20
rate = 2000
bytes = "4GiB"
size = "128KiB"
"#;

pub(crate) const LOOP: &str = r#"# A 2 GiB range read over and over: the classic LRU-killer.
name = "loop"
kind = "loop"
duration_secs = 60
rate = 4000
bytes = "2GiB"
size = "128KiB"
"#;

pub(crate) const MIXTURE: &str = r#"# A Zipf hot set polluted by a periodic scan of new data.
name = "mixture"
kind = "mixture"
duration_secs = 120
rate = 20000

[[components]]
kind = "zipf"
weight = 0.9
alpha = 1.0
objects = 65536
size = "128KiB"

[[components]]
kind = "scan"
weight = 0.1
bytes = "2GiB"
period_secs = 30
"#;

pub(crate) const OLTP: &str = r#"# A 4 GiB database: skewed 16 KiB page reads and writes.
name = "oltp"
kind = "oltp"
duration_secs = 60
rate = 20000
bytes = "4GiB"
size = "16KiB"
alpha = 0.9
write_fraction = 0.3
"#;

pub(crate) const BACKUP: &str = r#"# A backup job reading 2,000 files of ~4 MiB each, one after another.
name = "backup"
kind = "backup"
duration_secs = 60
rate = 1600
files = 2000
file_bytes = "4MiB"
size = "128KiB"
"#;

pub(crate) const BONNIE: &str = r#"# bonnie++ -s 16g on the FreeBSD 8.2 box of the mailing-list thread: phase
# speeds from its prefetch-off run (docs/whatif.md, "bonnie").
name = "bonnie"
kind = "bonnie"
file_bytes = "16GiB"
size = "128KiB"
perchr_bytes = "16MiB"
write_mib_s = 124.0
rewrite_mib_s = 61.2
read_mib_s = 173.4
putc_kib_s = 92.0
getc_kib_s = 244.0
seeks = 8000
seeks_per_sec = 207.0
"#;

pub(crate) fn toml_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "homelab" => HOMELAB,
        "zipf" => ZIPF,
        "scan" => SCAN,
        "loop" => LOOP,
        "mixture" => MIXTURE,
        "oltp" => OLTP,
        "backup" => BACKUP,
        "bonnie" => BONNIE,
        _ => return None,
    })
}
