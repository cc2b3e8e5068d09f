#!/usr/bin/env python3
"""Generate the ZFS model's realistic byte-mode bench trace (issue 16).

Zipf(0.9) over 2 M objects whose sizes are ZFS block sizes 4-128 KiB (a power of two, fixed per
object, uniform over the six sizes), with 15 % of the requests replaced by sequential one-pass
scans of fresh, consecutive ids (128 KiB blocks, 2,048 blocks = 256 MiB per scan). Replayed as
it is, the ids are blocks of one file, whose eight prefetch streams the random reads keep busy, so
the scans get none (~20 prefetch reads in 5 M requests); `--blocks-per-file 2048` cuts the ids
into files of 2,048 blocks, the scans run through files of their own and the prefetcher works
(bench/zfs_speed.py runs both). The clock runs at 22,000 requests/s (the blog's busy host),
written as oracleGeneral (the format libCacheSim reads too).

    python3 bench/gen_zfs_trace.py OUT.oracleGeneral.bin [--requests 5000000] [--seed 7]

Needs numpy and ../shared/tools/libcachesim-oracle.py (its Zipf sampler and writer).
"""
import argparse
import importlib.util
import os
import sys

import numpy as np


def load_oracle(path: str):
    spec = importlib.util.spec_from_file_location("lcs_oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    shared = os.environ.get("ARCLAB_SHARED", os.path.join(here, "..", "..", "shared"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--requests", type=int, default=5_000_000)
    ap.add_argument("--objects", type=int, default=2_000_000)
    ap.add_argument("--alpha", type=float, default=0.9)
    ap.add_argument("--scan-share", type=float, default=0.15)
    ap.add_argument("--scan-blocks", type=int, default=2048)
    ap.add_argument("--rate", type=float, default=22_000.0, help="requests per second of trace time")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--oracle", default=os.path.join(shared, "tools", "libcachesim-oracle.py"))
    a = ap.parse_args()
    o = load_oracle(a.oracle)
    rng = np.random.default_rng(a.seed)

    n_scan = int(a.requests * a.scan_share) // a.scan_blocks * a.scan_blocks
    n_zipf = a.requests - n_scan
    perm = rng.permutation(a.objects).astype(np.uint64) + 1
    sizes_of = (4096 << rng.integers(0, 6, a.objects)).astype(np.uint32)
    ranks = o.bounded_zipf(n_zipf, a.objects, a.alpha, rng)
    ids = perm[ranks]
    sizes = sizes_of[ranks]

    # Scans go in at random points of the Zipf stream; their ids start far
    # above the Zipf ids and are never reused.
    n_scans = n_scan // a.scan_blocks
    cuts = np.sort(rng.choice(np.arange(1, n_zipf), n_scans, replace=False))
    id_parts, sz_parts, prev, next_id = [], [], 0, 1_000_000_000
    for c in cuts:
        id_parts.append(ids[prev:c])
        sz_parts.append(sizes[prev:c])
        id_parts.append(np.arange(next_id, next_id + a.scan_blocks, dtype=np.uint64))
        sz_parts.append(np.full(a.scan_blocks, 131072, dtype=np.uint32))
        next_id += a.scan_blocks
        prev = c
    id_parts.append(ids[prev:])
    sz_parts.append(sizes[prev:])
    all_ids = np.concatenate(id_parts)
    all_sizes = np.concatenate(sz_parts)
    span = max(1, int(round(all_ids.shape[0] / a.rate)))
    tmp = a.out + ".tmp"
    o.write_oracle(tmp, all_ids, all_sizes, time_span=span)
    os.replace(tmp, a.out)
    print(f"wrote {all_ids.shape[0]} requests ({n_scans} scans of {a.scan_blocks} blocks) over {span} s to {a.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
