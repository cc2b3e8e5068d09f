//! The built-in workloads, as the TOML users would write them
//! (`examples/*.toml` holds copies; a test keeps them in sync).

pub(crate) const HOMELAB: &str = r#"# The homelab of the blog post (docs/whatif.md, "Calibration"): ~70 containers
# on a 31.24 GiB box, about 22,000 ARC reads a second.
name = "homelab"
description = "container images, libraries and databases with a Zipf-like hot set, periodic backups and image pulls"
kind = "mixture"
duration_secs = 240
rate = 22000

# Container images, shared libraries, application data: 9 GiB of 128 KiB
# records with a steep popularity; one read in ten is metadata.
[[components]]
kind = "zipf"
weight = 0.92
alpha = 1.2
objects = 73728
size = "128KiB"
metadata_fraction = 0.1
prefill = true

# Databases (PostgreSQL, SQLite, …): 1 GiB in 16 KiB pages, a quarter writes.
[[components]]
kind = "oltp"
weight = 0.08
bytes = "1GiB"
size = "16KiB"
alpha = 1.1
write_fraction = 0.25
prefill = true

# Backups: the same 1 GiB dataset read every two minutes.
[[components]]
kind = "scan"
rate = 1200
bytes = "1GiB"
start_secs = 5
period_secs = 120
new_file_each_pass = false

# Image pulls: 128 MiB of new layers a minute.
[[components]]
kind = "scan"
rate = 400
bytes = "128MiB"
start_secs = 30
period_secs = 60

# Data read once a while ago (old layers, logs) that an uncapped ARC still
# holds: read once during the warm-up.
[[components]]
kind = "scan"
rate = 4000
bytes = "1.5GiB"
start_secs = 10
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
