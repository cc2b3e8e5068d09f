#!/usr/bin/env bash
# A day of a busy host in whatif (issue 16, item 3): the built-in `homelab`
# workload (22,000 reads/s, a day since 2026-12-02; other lengths with the
# argument; ~1.9 G requests, generated streaming, never materialised), the
# default caps, automatic sampling. Prints the wall time, CPU time and peak memory of the whole
# process and the sampled results.
#
#   bash bench/day.sh [hours]      # 24 by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
hours=${1:-24}
(cd "$root" && cargo build --release -q -p arclab)
bin="$root/target/release/arclab"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" workloads show homelab |
  sed "s/^duration_secs = .*/duration_secs = $((hours * 3600))/" > "$dir/day.toml"
/usr/bin/time -f "wall %e s, CPU %U s user + %S s sys, peak RSS %M KiB" \
  "$bin" whatif --workload "$dir/day.toml" --json > "$dir/out.json"
python3 - "$dir/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get("sampling", "not sampled"))
for r in d["rows"]:
    print(f"{r['cap']:>8}  {r['n_req']:>14,} requests  hit ratio {r['hit_ratio']:.4f}  "
          f"{r['misses_per_sec']:8.1f} misses/s  (R = {r['sample_rate']})")
PY
