#!/usr/bin/env python3
"""The ZFS model's speed on the realistic byte-mode trace of issue 16, against
libCacheSim's canonical ARC on the same file, in one run.

The trace (bench/gen_zfs_trace.py): 5 M requests, Zipf(0.9) over 2 M objects
of 4-128 KiB, 15 % sequential scans. arclab is timed as a whole process
(`arclab sim --policy zfs-arc --zfs-version 2.2 --ram 32GiB --arc-max CAP
--threads 1`: start-up, reading and decoding the file included), by its
user + system CPU time (the machine is shared; wall time follows the other
tenants). libCacheSim's ARC (byte mode, the same cache size) is timed around
`process_trace` only (in-process, one thread). The two sides run interleaved,
`--repeat` rounds, best of each; the ratio is arclab's requests/s over
libCacheSim's. The paired ratio is the same ratio within each round (one
libCacheSim run and the arclab run right after it, which met the same
neighbours on a shared host): its median and range over the rounds. libCacheSim's ARC has no prefetcher and no ZFS mechanics, so it
is a yardstick for speed, not a check of results. Each cap runs three ways:
prefetch on and off with the trace's ids as blocks of one file, and prefetch
on with files of 2,048 blocks (`on/files`, see MODES); `pf reads` is the
prefetcher's reads issued (zfetchstats `io_issued`).

    python3 bench/zfs_speed.py --arclab target/release/arclab --oracle ../shared/tools/libcachesim-oracle.py
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys

CAPS = ["1GiB", "4GiB"]
# (prefetch, blocks per file). The trace's ids are blocks of one file by
# default: there the file's eight streams stay held by the random reads that
# land within their reorder window, and the scans never get one (the
# prefetcher issues ~20 reads in 5 M requests; `pf reads`). `on/files` cuts
# the ids into files of 2,048 blocks (`--blocks-per-file`), as a capture
# replays per file: the scans run through files of their own, each file has
# its streams and its indirect blocks read through the dbuf cache, so the
# prefetcher and the DMU really work.
MODES = [("on", None), ("off", None), ("on", 2048)]


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_arclab(binary: str, trace: str, cap: str, prefetch: str, files: int | None) -> tuple[float, dict]:
    cmd = [binary, "sim", "--trace", trace, "--format", "oracleGeneral", "--policy", "zfs-arc",
           "--zfs-version", "2.2", "--ram", "32GiB", "--arc-max", cap, "--prefetch", prefetch,
           "--threads", "1", "--json"]
    if files:
        cmd += ["--blocks-per-file", str(files)]
    before = child_cpu()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return child_cpu() - before, json.loads(out)["results"][0]


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arclab", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--trace", default="/tmp/lcs-traces/zfs-real-5M.oracleGeneral.bin")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the results here too")
    a = ap.parse_args()
    if not os.path.exists(a.trace):
        os.makedirs(os.path.dirname(a.trace), exist_ok=True)
        subprocess.run([sys.executable, os.path.join(here, "gen_zfs_trace.py"), a.trace, "--oracle", a.oracle],
                       check=True)
    o = load(a.oracle, "lcs_oracle")
    reader = o.open_reader(a.trace, "oracleGeneral", ignore_obj_size=False)
    n = reader.get_num_of_req()
    print(f"trace {a.trace}: {n} requests; best of {a.repeat} interleaved rounds; arclab = whole process CPU")
    print(f"{'cap':<6} {'prefetch':<8} {'arclab M req/s':>14} {'lcs ARC M req/s':>15} {'ratio':>6}  "
          f"{'paired ratio (min-max)':<22}  {'arclab B/obj':>12}  {'pf reads':>8}  miss ratio (zfs-arc / lcs ARC)")
    results = []
    for cap in CAPS:
        size = int(cap[:-3]) << 30
        lcs_best = float("inf")
        lcs_mr = None
        rows = {}
        for pf, files in MODES:
            best, row = float("inf"), None
            # Each round's ratio, from one libCacheSim run and the arclab run
            # right after it: the two met the same neighbours on the host.
            paired = []
            for _ in range(a.repeat):
                r = o.run_one(reader, "ARC", size)
                lcs_best, lcs_mr = min(lcs_best, r["seconds"]), r["obj_miss_ratio"]
                dt, row = run_arclab(a.arclab, a.trace, cap, pf, files)
                best = min(best, dt)
                paired.append(r["seconds"] / dt)
            rows[pf + ("/files" if files else "")] = (best, row, sorted(paired))
        lcs_rps = n / lcs_best
        for pf, (best, row, paired) in rows.items():
            rps = n / best
            pf_reads = (row.get("zfetchstats") or {}).get("io_issued", 0)
            med = statistics.median(paired)
            print(f"{cap:<6} {pf:<8} {rps / 1e6:>14.2f} {lcs_rps / 1e6:>15.2f} {rps / lcs_rps:>5.2f}x  "
                  f"{med:>5.2f}x ({paired[0]:.2f}-{paired[-1]:.2f})  "
                  f"{row['bytes_per_object']:>12.1f}  {pf_reads:>8}  {row['miss_ratio']:.4f} / {lcs_mr:.4f}")
            results.append({"cap": cap, "prefetch": pf, "n_req": n, "arclab_req_per_s": rps,
                            "prefetch_reads_issued": pf_reads,
                            "libcachesim_arc_req_per_s": lcs_rps, "ratio": rps / lcs_rps,
                            "paired_ratio_median": med, "paired_ratio_min": paired[0],
                            "paired_ratio_max": paired[-1],
                            "arclab_bytes_per_object": row["bytes_per_object"],
                            "arclab_miss_ratio": row["miss_ratio"], "libcachesim_arc_miss_ratio": lcs_mr})
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(a.json + ".tmp", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
