#!/usr/bin/env bash
# Side-by-side speed and agreement check: arclab against libCacheSim (PyPI
# `libcachesim`, through ../shared/tools/libcachesim-oracle.py) on the same
# generated traces, in one run. Prints throughput ratios, not absolute times.
#
#   bash bench/run.sh            # zipf and zipf+scan, 5 M requests each
#   bash bench/run.sh --quick    # 1 M requests, for a smoke test
#
# Then bench/zfs_speed.py: the ZFS model on the realistic trace of issue 16,
# bench/sampling_error.py: whatif sampled against whole replays, and
# bench/day.sh: a generated day of the homelab in whatif.
#
# Needs: python3 (a venv with libcachesim 0.3.5 is created in /tmp/lcs-venv),
# and ../shared beside the repository (or ARCLAB_SHARED).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shared=${ARCLAB_SHARED:-$root/../shared}
[ -f "$shared/tools/libcachesim-oracle.py" ] || { echo "bench: $shared/tools/libcachesim-oracle.py not found (set ARCLAB_SHARED)" >&2; exit 1; }
venv=${LCS_VENV:-/tmp/lcs-venv}
if ! "$venv/bin/python" -c 'import libcachesim, numpy' 2>/dev/null; then
  echo "bench: creating $venv with libcachesim 0.3.5" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q libcachesim==0.3.5 numpy
fi
(cd "$root" && cargo build --release -q -p arclab)
"$venv/bin/python" "$here/vs_libcachesim.py" --arclab "$root/target/release/arclab" --oracle "$shared/tools/libcachesim-oracle.py" "$@"
# The ZFS model on the realistic byte-mode trace of issue 16 (generated once).
echo
"$venv/bin/python" "$here/zfs_speed.py" --arclab "$root/target/release/arclab" --oracle "$shared/tools/libcachesim-oracle.py"
# The ZFS model's sampling error in whatif (issue 16, item 2).
echo
(cd "$root" && exec python3 "$here/sampling_error.py" --arclab "$root/target/release/arclab" \
  --workloads homelab,zipf,bench/workloads/backup-heavy.toml)
# A day of the homelab in whatif, generated (issue 16, item 3). The same day
# read from a trace on disk is bench/day_trace.sh DIR: not run here, it
# writes an 8.5 GB trace once, with ~46 GB of spill beside it while it does.
echo
bash "$here/day.sh"
