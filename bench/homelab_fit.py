#!/usr/bin/env python3
"""The homelab fitted on the blog's "before", and what it says of the "after"
(issue 11, item 4; docs/whatif.md, "The homelab, fitted on the blog's before").

1. The built-in homelab (a day, sampled as `arclab whatif` samples it),
   uncapped and at zfs_arc_max = 8 GiB, beside the blog's figures.
2. What the after would need: the same 8 GiB run with more files' inodes
   kept cached by the kernel once the cap has freed memory (`[[held]]`, each
   file 4,559 B of dnode, dbuf, bonus buffer and dnode block). These are not fits: they
   show how much held memory the blog's after figures correspond to.

    python3 bench/homelab_fit.py [--sample-rate R]     # R = 0.01 by default
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(ROOT, "target", "release", "arclab")
GIB = 1 << 30

# The blog post (docs/whatif.md): ten days before and ten days after the cap.
BLOG_BEFORE = dict(reads=22000, misses=20, hit=99.91, median=8.4, peak=15.0)
BLOG_AFTER = dict(misses=300, hit=98.67, peak=11.0, over=0.37, c_low=6.3)


def run(scenario_toml, caps, rate):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "s.toml")
        with open(p, "w") as f:
            f.write(scenario_toml)
        out = subprocess.run(
            [BIN, "whatif", "--scenario", p, "--caps", caps, "--sample-rate", str(rate), "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
    return json.loads(out)["rows"]


def held_points(points):
    return "".join(f"\n[[held]]\nat_secs = {t}\nfiles = {n}\n" for t, n in points)


def show(label, r, base=None):
    x = r["disk_reads_per_sec"]
    mult = f"×{x / base:5.1f}" if base else "      "
    print(f"{label:<34} {r['hit_ratio'] * 100:7.3f} % {x:8.1f}/s {mult} "
          f"median {r['median_size_bytes'] / GIB:5.2f}  peak {r['peak_size_bytes'] / GIB:5.2f} GiB "
          f"({r['peak_size_bytes'] / r['c_max_bytes'] - 1:+6.1%} of c_max)  "
          f"c ≥ {r['min_c_bytes'] / GIB:4.2f}  >cap {r['above_cap_fraction']:5.1%}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample-rate", type=float, default=0.01)
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "arclab"], cwd=ROOT, check=True)
    base = subprocess.run([BIN, "workloads", "show", "--scenario", "homelab"],
                          check=True, capture_output=True, text=True).stdout
    print("misses: every read sent to the pool (arcstats' misses: demand + prefetch)")
    rows = run(base, "default,8G", a.sample_rate)
    u, c = rows
    b = BLOG_BEFORE
    print(f"{'blog before (fitted on)':<34} {b['hit']:7.3f} % {b['misses']:8.1f}/s        "
          f"median {b['median']:5.2f}  peak {b['peak']:5.2f} GiB")
    show("model uncapped", u)
    b = BLOG_AFTER
    print(f"{'blog after, 8 GiB':<34} {b['hit']:7.3f} % {b['misses']:8.1f}/s ×{b['misses'] / 20:5.1f} "
          f"median ~8+   peak {b['peak']:5.2f} GiB ({b['over']:+6.1%} of c_max)  c ≥ {b['c_low']:4.2f}")
    show("model 8 GiB (the prediction)", c, u["disk_reads_per_sec"])
    print()
    print("what the after would need: files the kernel keeps cached after the cap (not fits)")
    for n in [250_000, 500_000, 750_000, 1_000_000, 1_800_000]:
        r = run(base + held_points([(0, n)]), "8G", a.sample_rate)[0]
        show(f"8 GiB, +{n / 1e6:.2f} M files held", r, u["disk_reads_per_sec"])
    # +0.5 M files by day, rising to +1.8 M while the nightly backup walks
    # every file (02:00-03:00), back by 06:00.
    walk = [(0, 500_000), (7200, 500_000), (10800, 1_800_000), (14400, 1_800_000),
            (21600, 500_000)]
    r = run(base + held_points(walk), "8G", a.sample_rate)[0]
    show("8 GiB, +0.5 M, +1.8 M in the walk", r, u["disk_reads_per_sec"])


if __name__ == "__main__":
    sys.exit(main())
