#!/usr/bin/env bash
# Speed of `arclab compare` against a plain Python implementation of the blog
# post's method, on a 30-day, 5-minute, 60-series export (4 hosts x 15 ARC
# metrics, 8,641 samples each). Prints both times (best of N) and the ratio.
# Usage: bash bench/compare_vs_python.sh [runs]   (goal: ratio >= 10)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p arclab
BIN=$CARGO_TARGET_DIR/release/arclab
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FILE=$WORK/bench.json.gz
python3 bench/compare_vs_python.py gen "$FILE"
T0=1757548800; DAY=86400
B0=$T0; B1=$((T0 + 14 * DAY)); A0=$((T0 + 16 * DAY)); A1=$((T0 + 30 * DAY))

best() {  # best wall time in seconds of RUNS runs of "$@"
  local best=999999 s e
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $e - $s))")
  done
  echo "$best"
}
RUST=$(best "$BIN" compare "$FILE" --before "$B0..$B1" --after "$A0..$A1" --json)
PY=$(best python3 bench/compare_vs_python.py compare "$FILE" "$B0" "$B1" "$A0" "$A1")
# Both must agree on the hit ratios.
"$BIN" compare "$FILE" --before "$B0..$B1" --after "$A0..$A1" --json > "$WORK/rust.json"
python3 bench/compare_vs_python.py compare "$FILE" "$B0" "$B1" "$A0" "$A1" > "$WORK/py.json"
python3 - "$WORK/rust.json" "$WORK/py.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
for d in r["instances"]:
    q = p[d["instance"]]
    for w in ("before", "after"):
        assert abs(d["hit_ratio"][w] - q[w]) < 1e-12, (d["instance"], w, d["hit_ratio"][w], q[w])
print(f"hit ratios agree on {len(r['instances'])} instances")
PY
python3 -c "
rust, py = $RUST, $PY
print(f'arclab compare: {rust*1000:8.1f} ms (best of $RUNS)')
print(f'python (post) : {py*1000:8.1f} ms (best of $RUNS)')
print(f'ratio         : {py/rust:8.1f}x faster (goal >= 10x)')
"
