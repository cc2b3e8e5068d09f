#!/usr/bin/env bash
# A day of a busy host read from disk (issue 16, item 3, second half): the
# built-in `homelab` day (22,000 reads/s, ~1.9 G requests) written once as a
# zstd oracleGeneral trace (~8.5 GB; --write-trace spills 24 bytes a request,
# ~46 GB, in DIR while it writes), then replayed
# with `whatif --trace` at R = 0.01 over the default caps. Prints the wall
# time, CPU time and peak memory of the replay, the decode rate (MB/s of
# records and of zstd input), and `zstd -dc` alone on the same file as the
# yardstick of one core's decoding.
#
#   bash bench/day_trace.sh DIR [hours]     # DIR keeps the trace between runs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${1:?usage: bench/day_trace.sh DIR [hours]}
hours=${2:-24}
mkdir -p "$dir"
(cd "$root" && cargo build --release -q -p arclab)
bin="$root/target/release/arclab"
trace="$dir/homelab-${hours}h.oracleGeneral.bin.zst"
if [ ! -s "$trace" ]; then
  "$bin" workloads show homelab |
    sed "s/^duration_secs = .*/duration_secs = $((hours * 3600))/" > "$dir/homelab-${hours}h.toml"
  echo "writing $trace (once)"
  "$bin" whatif --workload "$dir/homelab-${hours}h.toml" --write-trace "$trace"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "replay: whatif --trace, R = 0.01, default caps"
/usr/bin/time -f "%e %U %S %M" -o "$out.time" \
  "$bin" whatif --trace "$trace" --scenario homelab --sample-rate 0.01 --json > "$out"
read -r wall user sys rss < "$out.time"
rm -f "$out.time"
comp=$(stat -L -c %s "$trace")
echo "yardstick: zstd -dc alone (one core)"
start=$(date +%s.%N)
raw=$(zstd -dc < "$trace" | wc -c)
end=$(date +%s.%N)
python3 - "$out" "$wall" "$user" "$sys" "$rss" "$comp" "$raw" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall, user, sys_, rss, comp, raw, t0, t1 = map(float, sys.argv[2:])
print(f"zstd -dc: {t1 - t0:.1f} s, {raw / (t1 - t0) / 1e6:.0f} MB/s of records")
print(f"replay: wall {wall:.1f} s, CPU {user:.1f} s user + {sys_:.1f} s sys, "
      f"peak RSS {rss / 1024:.0f} MiB")
print(f"  decode {raw / wall / 1e6:.0f} MB/s of records ({comp / wall / 1e6:.0f} MB/s of zstd "
      f"input), {raw / 24 / wall / 1e6:.1f} M req/s ({raw / 24:,.0f} requests)")
for r in d["rows"]:
    print(f"{r['cap']:>8}  hit ratio {r['hit_ratio']:.5f}  {r['misses_per_sec']:8.1f} misses/s"
          f"  (R = {r['sample_rate']})")
PY
