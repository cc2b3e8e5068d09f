#!/usr/bin/env bash
# Regenerate data/golden/zfs-model.json: the ZFS model's full arcstats and
# zfetchstats on the repository's traces, as printed by a given arclab binary.
# The speed work on the model (issue 16) must leave every counter identical;
# crates/cli/tests/zfs_identity.rs replays the same runs and compares.
#
#   bash bench/zfs_golden.sh [ARCLAB_BINARY]     (default: target/release/arclab)
#
# Only regenerate when the model's behaviour is meant to change, and say so
# in the commit message.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/target/release/arclab}
out=$root/data/golden/zfs-model.json
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
python3 - "$bin" "$root" "$tmp" <<'PY'
import json, subprocess, sys
bin_, root, out = sys.argv[1:]
# (trace, versions, caps, ram): every prefetcher generation and both eviction
# families on a trace with a clock (cloudPhysicsIO) and one without (P3).
RUNS = [
    ("data/traces/cloudPhysicsIO.oracleGeneral.bin.zst", "0.7,2.1,2.2.3,2.2,2.3", "64M,256M", "16G"),
    ("data/traces/P3.lis.zst", "2.2,2.3", "256M", "16G"),
]
runs = []
for trace, versions, caps, ram in RUNS:
    args = ["sim", "--trace", trace, "--policy", "zfs-arc", "--zfs-version", versions,
            "--arc-max", caps, "--ram", ram, "--prefetch", "on,off", "--threads", "1", "--json"]
    d = json.loads(subprocess.run([bin_] + args, cwd=root, check=True, capture_output=True, text=True).stdout)
    rows = [{k: r[k] for k in ("zfs_version", "size", "prefetch", "n_req", "n_miss", "n_req_byte",
                               "n_miss_byte", "arcstats", "zfetchstats") if k in r}
            for r in d["results"]]
    runs.append({"args": args, "results": rows})
version = subprocess.run([bin_, "--version"], check=True, capture_output=True, text=True).stdout.strip()
commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
json.dump({"generated_by": version, "commit": commit, "runs": runs}, open(out, "w"), indent=1, sort_keys=True)
PY
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
