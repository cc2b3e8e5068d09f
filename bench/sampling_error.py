#!/usr/bin/env python3
"""Sampling error of `arclab whatif` (issue 16, item 2).

For each workload, runs `arclab whatif` over eight caps with every request
(`--sample-rate 1`) and at each sampling rate, and prints the mean and the
largest absolute error of the demand hit ratio and the relative error of
misses/s against the full replay, per rate. Whole process, one run each.
`homelab` is the built-in's first 10 minutes (the whole day replayed at eight
caps would take an hour). Every workload with a prefill (a Zipf component's
every block read once, in order, at the start: the homelab's, backup-heavy's)
runs on the homelab scenario with a 60 s warm-up, the others on it without
one: the prefill's sequential reads are prefetched in a whole replay and not
in a sample (its blocks are sampled one by one), so they are left out of the
counts, as the built-in scenarios' warm-ups leave them out (docs/whatif.md,
"Sampling").

    python3 bench/sampling_error.py --arclab target/release/arclab \
        [--workloads homelab,zipf,backup] [--rates 0.01,0.001] [--seeds 1,6] [--per-cap]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CAPS = "1G,2G,3G,4G,6G,8G,12G,16G"


def whatif(arclab, workload, rate, scenario=None, seeds=1):
    cmd = [arclab, "whatif", "--workload", workload, "--caps", CAPS,
           "--sample-rate", str(rate), "--json"] + (["--scenario", scenario] if scenario else [])
    if seeds > 1 and rate < 1:
        cmd += ["--sample-seeds", str(seeds)]
    t = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = {r["cap"]: r for r in json.loads(out)["rows"]}
    return rows, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arclab", required=True)
    ap.add_argument("--workloads", default="homelab,zipf,backup")
    ap.add_argument("--rates", default="0.01,0.001")
    ap.add_argument("--seeds", default="1",
                    help="independent samples averaged per cap (whatif --sample-seeds), comma-separated")
    ap.add_argument("--per-cap", action="store_true",
                    help="also print each cap: the full replay, the sampled mean and, with several "
                         "seeds, the lowest and highest sample, and the rate the cap ran at")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    print("| workload | R | hit-ratio MAE | max abs (cap) | misses/s rel. MAE | wall s (full s) |")
    print("|---|---:|---:|---:|---:|---:|")
    show = lambda *args: subprocess.run([a.arclab, "workloads", "show", *args], check=True,
                                        capture_output=True, text=True).stdout
    warm = os.path.join(tmp.name, "homelab-60s.toml")
    with open(warm, "w") as f:
        f.write(show("--scenario", "homelab").replace("warmup_secs = 3600", "warmup_secs = 60"))
    for w in a.workloads.split(","):
        label = w
        text = open(w).read() if os.path.isfile(w) else show(w)
        if w == "homelab":
            w = os.path.join(tmp.name, "homelab-10min.toml")
            with open(w, "w") as f:
                f.write(text.replace("duration_secs = 86400", "duration_secs = 600"))
            label = "homelab (10 min)"
        sc = warm if "prefill = true" in text else None
        full, tf = whatif(a.arclab, w, 1, sc)
        caps = [c for c in full if c != "default"]
        for r, k in [(r, int(k)) for r in a.rates.split(",") for k in a.seeds.split(",")]:
            mini, tm = whatif(a.arclab, w, float(r), sc, k)
            err = {c: abs(mini[c]["hit_ratio"] - full[c]["hit_ratio"]) for c in caps}
            rel = [abs(mini[c]["misses_per_sec"] / full[c]["misses_per_sec"] - 1)
                   for c in caps if full[c]["misses_per_sec"] > 0]
            worst = max(err, key=err.get)
            if a.per_cap:
                for c in caps:
                    m = mini[c]
                    lo, hi = m.get("hit_ratio_min"), m.get("hit_ratio_max")
                    spread = f" ({lo:.4f}-{hi:.4f})" if lo is not None and hi is not None else ""
                    print(f"|   {c} | R {m.get('sample_rate'):.4g} | full {full[c]['hit_ratio']:.4f} | "
                          f"sampled {m['hit_ratio']:.4f}{spread} | | |")
            print(f"| {label} | {r}{f' × {k} seeds' if k > 1 else ''} | {sum(err.values()) / len(err):.4f} | "
                  f"{err[worst]:.4f} ({worst}) | {sum(rel) / max(len(rel), 1):.3f} | "
                  f"{tm:.1f} ({tf:.1f}) |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
