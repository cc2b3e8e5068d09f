#!/usr/bin/env python3
"""The blog post's method in plain Python, for `bench/compare_vs_python.sh`.

  compare_vs_python.py gen FILE.json.gz          write a 30-day, 5-minute, 60-series export
  compare_vs_python.py compare FILE.json.gz B0 B1 A0 A1   compare two windows (unix seconds)

`compare` reads an arclab export file (gzipped JSON, docs/measure.md) and, per
series, gives gauges an average and percentiles and counters an average rate
with resets skipped (the post's method, written afresh), plus each
instance's hit ratio. Standard library only.
"""
import gzip
import json
import math
import random
import sys

DAY = 86400
STEP = 300
T0 = 1757548800  # 2025-09-11T00:00:00Z
COUNTERS = ["hits", "misses"] + [f"{a}_{b}_{c}" for a in ("demand", "prefetch") for b in ("data", "metadata") for c in ("hits", "misses")]
GAUGES = ["size", "c", "c_max", "mru_size", "mfu_size"]
INSTANCES = ["nas1:9100", "nas2:9100", "nas3:9100", "nas4:9100"]


def gen(path):
    rnd = random.Random(42)
    n = 30 * DAY // STEP + 1
    result = []
    for inst in INSTANCES:
        for name in COUNTERS + GAUGES:
            values, v = [], 1e6
            for i in range(n):
                t = T0 + i * STEP
                if name in COUNTERS:
                    base = 22000.0 if "hits" in name else (20.0 if t < T0 + 15 * DAY else 297.0)
                    v += base * STEP * (1 + 0.3 * math.sin(2 * math.pi * (t % DAY) / DAY) + 0.2 * (rnd.random() - 0.5))
                    val = round(v)
                else:
                    val = round(8.4 * 2**30 * (1 + 0.1 * math.sin(2 * math.pi * (t % DAY) / DAY) + 0.05 * rnd.random()))
                values.append([t, str(val)])
            metric = {"__name__": f"node_zfs_arc_{name}", "instance": inst, "job": "node"}
            result.append({"metric": metric, "values": values})
    doc = {
        "format": "arclab-export", "version": 1, "created": "", "tool": "compare_vs_python.py",
        "request": {"url": "generated", "from": T0, "to": T0 + 30 * DAY, "step": STEP, "metrics": "arc", "match": "", "queries": ["generated"]},
        "results": [{"query": "generated", "chunks": 1, "warnings": [], "data": {"resultType": "matrix", "result": result}}],
    }
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)


def window(points, period):
    a, b = period
    return [(t, v) for (t, v) in points if a <= t < b]


def counter_rate(points, period):
    """Per-second rate in the window: the rises between samples (a drop is a
    counter reset and adds nothing) over the time the samples cover."""
    pts = window(points, period)
    if len(pts) < 2:
        return float("nan")
    rise = 0.0
    for i in range(1, len(pts)):
        step = pts[i][1] - pts[i - 1][1]
        if step > 0:
            rise += step
    return rise / (pts[-1][0] - pts[0][0])


def percentile(sorted_vals, q):
    h = (len(sorted_vals) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (h - lo) * (sorted_vals[hi] - sorted_vals[lo])


def gauge_stats(points, period):
    vals = sorted(v for _, v in window(points, period) if math.isfinite(v))
    if not vals:
        return None
    return {"mean": sum(vals) / len(vals), "p50": percentile(vals, 0.5), "p95": percentile(vals, 0.95),
            "p99": percentile(vals, 0.99), "max": vals[-1]}


def compare(path, before, after):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    out, rates = [], {}
    for r in doc["results"]:
        for s in r["data"]["result"]:
            name, inst = s["metric"]["__name__"], s["metric"].get("instance", "-")
            pts = [(float(t), float(v)) for t, v in s["values"]]
            field = name[len("node_zfs_arc_"):]
            if field.endswith("hits") or field.endswith("misses"):
                row = {"before": counter_rate(pts, before), "after": counter_rate(pts, after)}
                rates[(inst, field)] = row
            else:
                row = {"before": gauge_stats(pts, before), "after": gauge_stats(pts, after)}
            out.append({"name": name, "instance": inst, **row})
    derived = {}
    for inst in sorted({i for i, _ in rates}):
        h, m = rates.get((inst, "hits")), rates.get((inst, "misses"))
        if h and m:
            derived[inst] = {w: h[w] / (h[w] + m[w]) for w in ("before", "after")}
            derived[inst]["miss_multiplier"] = m["after"] / m["before"]
    return {"derived": derived, "series": out}


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        b0, b1, a0, a1 = map(float, sys.argv[3:7])
        res = compare(sys.argv[2], (b0, b1), (a0, a1))
        json.dump(res["derived"], sys.stdout, indent=1)
        print()
