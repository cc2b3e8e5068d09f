#!/usr/bin/env python3
"""Replay a matrix of block traces through the real OpenZFS ARC (arcoracle)
and through arclab's ZFS model on the same requests and clock, and print
one Markdown table per release with the per-trace MAE.

This script only RUNS already-built arcoracle binaries; it does not build
OpenZFS (see bench/oracle/README.md and docs/oracle.md for how to build one).

  run.py --oracle 2.3.9=/tmp/oracle-src/arcoracle-nd-2.3.9 \\
         --oracle 2.2.11=/tmp/oracle-src/arcoracle-nd-2.2.11 \\
         --arclab target/release/arclab --work /tmp/oracle-work \\
         [--runs 3] [--requests 50000] [--traces zipf,loop] \\
         [--fixtures data/oracle]

  run.py --from-fixtures data/oracle --arclab target/release/arclab
         (no oracle: re-run the model on the committed fixtures and print the
          same tables against the recorded oracle counters)

For each (release, trace, cap, prefetch) the oracle replays the trace --runs
times (a fresh process each time: its evict and reap threads run on the
wall clock, so runs differ a little). Every run writes the issue time of
each request; arclab replays that run's CSV (and `--fixtures` keeps every
run's: requests.csv.zst for run 1, requests-runK.csv.zst for run K). The table shows the oracle's
mean and min-max over the runs and the model's mean.
"""
import argparse
import bisect
import json
import os
import random
import shutil
import subprocess
import sys
import time

MIB = 1 << 20
BIG_BLOCKS = 8192            # pool "big": one object of 8192 x 128 KiB = 1 GiB
SMALL_FILES = 4096           # pool "small": 4096 objects ...
SMALL_FILE_BLOCKS = 8        # ... of 8 x 16 KiB blocks = 512 MiB
SMALL_BLKSZ = 16384
# The traces use a 256 MiB part of each pool, so that a few 10,000 requests
# (what 2 shared cores replay in the time budget) are several times the
# working set; the caps are 37 %, 50 % and 75 % of it (zfs_arc_max must be
# above 64 MiB).
BIG_WS = 2048                # blocks of 128 KiB read by the big-pool traces
SMALL_WS_FILES = 2048        # files read by the small-files trace
CAPS = [96 * MIB, 128 * MIB, 192 * MIB]

# Counters compared besides the demand-data hit ratio: (label, oracle key,
# model arcstats key). Oracle "delta.*" are counter deltas over the replay,
# "end.*" the state at its end.
COUNTERS = [
    ("size", "end.arcstats.size", "size"),
    ("c", "end.arcstats.c", "c"),
    ("mru_size", "end.arcstats.mru_size", "mru_size"),
    ("mfu_size", "end.arcstats.mfu_size", "mfu_size"),
    ("mru_ghost_hits", "delta.mru_ghost_hits", "mru_ghost_hits"),
    ("mfu_ghost_hits", "delta.mfu_ghost_hits", "mfu_ghost_hits"),
    ("prefetch_data_hits", "delta.prefetch_data_hits", "prefetch_data_hits"),
    ("prefetch_data_misses", "delta.prefetch_data_misses",
     "prefetch_data_misses"),
    ("predictive_prefetch", "delta.predictive_prefetch",
     "predictive_prefetch"),
    ("demand_hit_predictive_prefetch",
     "delta.demand_hit_predictive_prefetch",
     "demand_hit_predictive_prefetch"),
    ("zfetch_hits", "delta.zfetch.hits", None),
    ("zfetch_misses", "delta.zfetch.misses", None),
    ("demand_metadata_hits", "delta.demand_metadata_hits",
     "demand_metadata_hits"),
    ("demand_metadata_misses", "delta.demand_metadata_misses",
     "demand_metadata_misses"),
]


# ---------------------------------------------------------------- traces

class Zipf:
    """Zipf(alpha) ranks over n items, mapped through a seeded permutation
    (so that hot items are not neighbours)."""

    def __init__(self, n, alpha, rng):
        self.perm = list(range(n))
        rng.shuffle(self.perm)
        self.cdf = []
        total = 0.0
        for rank in range(1, n + 1):
            total += rank ** -alpha
            self.cdf.append(total)
        self.total = total
        self.rng = rng

    def draw(self):
        i = bisect.bisect_left(self.cdf, self.rng.random() * self.total)
        return self.perm[min(i, len(self.perm) - 1)]


def trace_zipf(n, _cap, seed):
    rng = random.Random(seed)
    z = Zipf(BIG_WS, 0.9, rng)
    return [z.draw() for _ in range(n)]


def trace_zipf_scan(n, _cap, seed):
    """Zipf 0.9 over the first BIG_WS blocks; before a request, with
    p = 0.001 a 256-block sequential scan from a random start anywhere in
    the object (about 20 % of the requests are scans)."""
    rng = random.Random(seed)
    z = Zipf(BIG_WS, 0.9, rng)
    out = []
    while len(out) < n:
        if rng.random() < 0.001:
            start = rng.randrange(BIG_BLOCKS - 256)
            out.extend(range(start, start + 256))
        else:
            out.append(z.draw())
    return out[:n]


def trace_seq(n, _cap, _seed):
    """Sequential passes over BIG_WS blocks, again and again."""
    return [i % BIG_WS for i in range(n)]


def trace_loop(n, cap, _seed):
    """A loop over 1.1 x cap worth of 128 KiB blocks (cap-dependent)."""
    length = (cap * 11 // 10) // (128 << 10)
    return [i % length for i in range(n)]


def trace_streams(n, _cap, seed):
    """8 sequential readers of the one object at offsets 0, 1024, ..., 7168
    blocks, each looping over its own 256 blocks (2048 distinct blocks =
    256 MiB), interleaved in a seeded random order."""
    rng = random.Random(seed)
    pos = [0] * 8
    out = []
    for _ in range(n):
        s = rng.randrange(8)
        out.append(s * 1024 + pos[s])
        pos[s] = (pos[s] + 1) % (BIG_WS // 8)
    return out


def trace_small(n, _cap, seed):
    """Many small files: a Zipf(0.9)-chosen file among the first
    SMALL_WS_FILES files of the small pool (files of 8 x 16 KiB) read whole,
    block 0 to 7. Ids are global: file * 8 + block."""
    rng = random.Random(seed)
    z = Zipf(SMALL_WS_FILES, 0.9, rng)
    out = []
    while len(out) < n:
        f = z.draw()
        out.extend(f * SMALL_FILE_BLOCKS + b for b in range(SMALL_FILE_BLOCKS))
    return out[:n]


# name -> (generator, pool, fraction of --requests)
TRACES = {
    "zipf": (trace_zipf, "big", 1.0),
    "zipf_scan": (trace_zipf_scan, "big", 1.0),
    "seq": (trace_seq, "big", 0.5),
    "loop": (trace_loop, "big", 0.5),
    "streams": (trace_streams, "big", 1.0),
    "small": (trace_small, "small", 1.0),
}


# ---------------------------------------------------------------- running

def sh(cmd, **kw):
    """Run cmd; on failure print its stderr and exit non-zero."""
    print("+ " + " ".join(cmd), file=sys.stderr)
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        sys.exit(f"failed (exit {r.returncode}): {' '.join(cmd)}\n"
                 f"{r.stderr or ''}")
    return r


def host_ram():
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def cap_label(cap):
    return f"{cap // MIB}M" if cap < 1 << 30 else f"{cap // (1 << 30)}G"


def parse_oracle(text):
    """`key value` lines of arcoracle replay -> {key: number or str}."""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if not v:
            continue
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def keep_oracle(d):
    """The oracle counters worth keeping in a fixture (`begin.arcstats.`:
    what the pool's import left in the ARC before the first request, e.g.
    the metadata the harness holds; kept from 2026-12-05 on)."""
    return {k: v for k, v in d.items()
            if k.startswith(("config.", "result.", "delta.", "begin.arcstats.",
                             "end.arcstats.", "end.zfetchstats."))}


def ensure_pool(oracle, release, pool, work):
    d = os.path.join(work, f"pool-{release}-{pool}")
    if os.path.exists(os.path.join(d, "oracle.meta")):
        return d
    shutil.rmtree(d, ignore_errors=True)
    if pool == "big":
        args = ["-n", str(BIG_BLOCKS)]
    else:
        # needs the -b/-k extension of the harness (see docs/oracle.md)
        args = ["-n", str(SMALL_FILE_BLOCKS), "-b", str(SMALL_BLKSZ),
                "-k", str(SMALL_FILES)]
    sh(["nice", "-n", "10", oracle, "create", "-d", d] + args,
       capture_output=True, text=True)
    return d


def reusable(txt, csv, n, cap, cmin, pf, rate, latency_us):
    """The oracle output of an earlier identical run in --work, if complete
    (the runner resumes where it stopped)."""
    if not (os.path.exists(txt) and os.path.exists(csv)):
        return None
    o = parse_oracle(open(txt).read())
    want = {"config.requests": n, "config.cap": cap, "config.arc_min": cmin,
            "config.prefetch": 1 if pf == "on" else 0,
            "config.rate": rate}
    # A harness without the -L patch prints no floor: it had none.
    if ("result.hit_ratio" not in o
            or any(o.get(k) != v for k, v in want.items())
            or o.get("config.device_latency_us", 0) != latency_us):
        return None
    with open(csv) as f:
        if sum(1 for _ in f) != n + 1:
            return None
    print(f"reusing {txt}", file=sys.stderr)
    return o


def c_min_for(arclab, ram, version, cap):
    out = sh([arclab, "limits", "--ram", str(ram), "--zfs-version", version,
              "--arc-max", str(cap), "--json"], capture_output=True,
             text=True).stdout
    return json.loads(out)["c_min_bytes"]


# Metadata the harness's import holds referenced before the first request
# (`begin.arcstats.mru_metadata` - `mru_evictable_metadata`, the same in
# every run of one pool, 2.3.9 and 2.2.11 alike; docs/oracle.md, "Lockstep
# with arc.c"), for runs that did not keep their `begin.arcstats.*` (sets
# from before 2026-12-04). Not measured on 2.1.16, whose runs get none.
IMPORT_HELD_METADATA = {"big": 860_672, "small": 3_486_208}

# The harness reads arcstats after every this many requests (`replay -S`,
# whose default run.py never changes).
HARNESS_KSTAT_EVERY = 1000


def import_held_metadata(o, release, pool):
    """Metadata buffers held since the pool's import in oracle run `o`."""
    if "begin.arcstats.mru_metadata" in o:
        return sum(int(o.get(f"begin.arcstats.{s}_metadata", 0))
                   - int(o.get(f"begin.arcstats.{s}_evictable_metadata", 0))
                   for s in ("mru", "mfu"))
    parts = tuple(int(x) for x in release.split(".")[:2] if x.isdigit())
    return IMPORT_HELD_METADATA.get(pool, 0) if parts >= (2, 2) else 0


def held(o, release, pool, harness):
    """The harness keeps every object it created open: their dnode_t's and
    bonus buffers are charged to the ARC and cannot be evicted (arcstats
    `dnode_size`, `bonus_size` at the end, the same in every run of one pool:
    3.9 MB for the 4,096 small files, 60 KB for the one big object). The
    model is given them as `--pinned` (its own dbufs stand for `dbuf_size`),
    and with `harness`, the metadata the import holds (`metadata=`) and the
    harness's arcstats reads (`--kstat-every`)."""
    d = o.get("end.arcstats.dnode_size", 0)
    b = o.get("end.arcstats.bonus_size", 0)
    m = import_held_metadata(o, release, pool) if harness else 0
    parts = [f"{k}={v}" for k, v in (("dnode", d), ("bonus", b),
                                      ("metadata", m)) if v]
    out = ("--pinned", ",".join(parts)) if parts else ()
    if harness:
        out += ("--kstat-every", str(HARNESS_KSTAT_EVERY))
    return out


def run_model(arclab, csv, release, ram, cap, pf, nblocks, extra=()):
    # The oracle's objects have `nblocks` blocks each and a trace id g is
    # block g % nblocks of object g / nblocks: the same files for the model.
    cmd = [arclab, "sim", "--trace", csv, "--format", "csv",
           "--blocks-per-file", str(nblocks),
           "--csv-time-col", "1", "--csv-id-col", "2", "--csv-size-col", "3",
           "--csv-header", "--policy", "zfs-arc", "--zfs-version", release,
           "--ram", str(ram), "--arc-max", str(cap), "--prefetch", pf,
           "--threads", "1", "--json", *extra]
    out = sh(cmd, capture_output=True, text=True)
    r = json.loads(out.stdout)["results"][0]
    m = dict(r.get("arcstats") or {})
    m.pop("model", None)
    for k, v in (r.get("zfetchstats") or {}).items():
        m["zfetch." + k] = v
    return m


def latency(us):
    """The model's device latency for an oracle run with a latency floor of
    `us` microseconds (none: the model's default)."""
    return ("--tunable", f"device_latency_ns={us * 1000}") if us else ()


def model_latency_us(how, o, floor_us):
    """The device latency the model is given for an oracle run: the floor
    the harness was given (`floor`), or the read latency the harness measured
    (`p10`, `p50`: quantiles of the wall time of the requests that were one
    demand data read and nothing else)."""
    if how == "floor":
        return floor_us
    return int(o.get(f"result.read_latency_us_{how}", floor_us))


def seed_args(k):
    """The model's arguments for its draw `k` of which sublist each block
    joins and where its eviction bursts start (0: the draw every run made
    before `--model-seeds`)."""
    return ("--tunable", f"sublist_seed={k}") if k else ()


def run_seeds(k, n):
    """The model's `n` draws for oracle run `k` (1-based): seeds of its own,
    (k - 1) * n to k * n - 1, since every arc.c run is its own import and so
    its own draw of the sublists; draws shared by all runs would make the
    model's mean rest on `n` layouts however many runs there are."""
    return range((k - 1) * n, k * n)


def model_args(a, o, floor_us, seed, release, pool):
    """`arclab sim`'s arguments beyond the replay for oracle run `o` (its
    counters) of `release` on `pool` and the model's draw `seed`: the
    harness's held dnodes, bonus buffers and import metadata and its
    arcstats reads, the model's device latency, the draw, `--model-arg`."""
    return [*held(o, release, pool, a.harness_state),
            *latency(model_latency_us(a.model_latency, o, floor_us)),
            *seed_args(seed), *a.model_arg]


def oracle_metrics(o):
    n = o["config.requests"]
    hits, misses = o["delta.hits"], o["delta.misses"]
    v = {"ddhr": o["result.demand_data_hits"] / n,
         "ddmr": o["result.demand_data_misses"] / n,
         "overall": hits / max(1, hits + misses)}
    for label, ok, _ in COUNTERS:
        v[label] = o.get(ok, 0)
    return v


def model_metrics(m, n):
    hits, misses = m.get("hits", 0), m.get("misses", 0)
    v = {"ddhr": m["demand_data_hits"] / n,
         "ddmr": m["demand_data_misses"] / n,
         "overall": hits / max(1, hits + misses)}
    for label, _, mk in COUNTERS:
        key = mk if mk is not None else "zfetch." + label.split("_", 1)[1]
        v[label] = m.get(key, 0)
    return v


def mean(xs):
    return sum(xs) / len(xs)


# ---------------------------------------------------------------- report

def rel_err(model, oracle):
    if oracle == 0:
        return "0" if model == 0 else f"+{model}"
    return f"{(model - oracle) / oracle * 100:+.1f}%"


def print_tables(rows, out=sys.stdout):
    """rows: dicts with release, trace, cap, pf, oracle (list of metric
    dicts, one per run), model (list, same)."""
    for release in sorted({r["release"] for r in rows}, reverse=True):
        rr = [r for r in rows if r["release"] == release]
        p = lambda s="": print(s, file=out)  # noqa: E731
        p(f"### OpenZFS {release}: demand-data hit ratio, oracle vs model")
        p()
        draws = max(len(r["model"]) for r in rr) > 1
        p("| trace | cap | prefetch | oracle mean | oracle min-max | model "
          + ("| model min-max " if draws else "")
          + "| error (pts) | outside spread (pts) |")
        p("|---|---|---|---|---|---|---|---|" + ("---|" if draws else ""))
        for r in rr:
            o = [x["ddhr"] for x in r["oracle"]]
            ms = [x["ddhr"] for x in r["model"]]
            m = mean(ms)
            lo, hi = min(o), max(o)
            outside = max(lo - m, m - hi, 0.0)
            spread = f"{min(ms):.4f}-{max(ms):.4f} | " if draws else ""
            p(f"| {r['trace']} | {cap_label(r['cap'])} | {r['pf']} | "
              f"{mean(o):.4f} | {lo:.4f}-{hi:.4f} | {m:.4f} | {spread}"
              f"{(m - mean(o)) * 100:+.2f} | {outside * 100:.2f} |")
        p()
        p("MAE of the demand-data hit ratio (model vs oracle mean), per trace, "
          "and of the demand-data miss ratio (demand reads that went to the "
          "disk: neither a hit nor an iohit); `paired`: each oracle run "
          "against the model on that run's clock (the runs the model "
          "replayed); `s.e.`: the standard error of the oracle's mean over "
          "its runs, averaged over the rows (below it, an error is within "
          "what the oracle's own runs can tell):")
        p()
        p("| trace | MAE prefetch off | MAE prefetch on | MAE all | max abs "
          "| miss MAE off | miss MAE on | miss MAE all | paired off "
          "| paired on | s.e. off | s.e. on |")
        p("|---|---|---|---|---|---|---|---|---|---|---|---|")
        traces = []
        for r in rr:
            if r["trace"] not in traces:
                traces.append(r["trace"])
        for t in traces + ["all"]:
            sel = [r for r in rr if t in ("all", r["trace"])]

            def err(r, key="ddhr"):
                return abs(mean([x[key] for x in r["model"]]) -
                           mean([x[key] for x in r["oracle"]]))

            def paired(r, key="ddhr"):
                e = [abs(mean([x[key] for x in r["model"]
                               if x.get("run") == o.get("run")]) - o[key])
                     for o in r["oracle"]
                     if any(x.get("run") == o.get("run")
                            for x in r["model"])]
                return mean(e) if e else err(r, key)

            def stderr(r, key="ddhr"):
                o = [x[key] for x in r["oracle"]]
                if len(o) < 2:
                    return 0.0
                m = mean(o)
                var = sum((v - m) ** 2 for v in o) / (len(o) - 1)
                return (var / len(o)) ** 0.5

            def mae(pf, key="ddhr", f=err):
                e = [f(r, key) for r in sel if pf in (None, r["pf"])]
                return f"{mean(e):.4f}" if e else "-"
            p(f"| {t} | {mae('off')} | {mae('on')} | {mae(None)} | "
              f"{max(err(r) for r in sel):.4f} | {mae('off', 'ddmr')} | "
              f"{mae('on', 'ddmr')} | {mae(None, 'ddmr')} | "
              f"{mae('off', f=paired)} | {mae('on', f=paired)} | "
              f"{mae('off', f=stderr)} | {mae('on', f=stderr)} |")
        p()
        p("Other counters: oracle mean -> model mean (relative error). Sizes "
          "in MiB at the end of the replay; hit counts over the replay; "
          "`overall` is arcstats hits/(hits+misses).")
        p()
        labels = ["overall"] + [c[0] for c in COUNTERS]
        p("| trace | cap | pf | " + " | ".join(labels) + " |")
        p("|" + "---|" * (3 + len(labels)))
        for r in rr:
            cells = []
            for lab in labels:
                o = mean([x[lab] for x in r["oracle"]])
                m = mean([x[lab] for x in r["model"]])
                if lab == "overall":
                    cells.append(f"{o:.3f}->{m:.3f}")
                elif lab in ("size", "c", "mru_size", "mfu_size"):
                    cells.append(f"{o / MIB:.0f}->{m / MIB:.0f} "
                                 f"({rel_err(m, o)})")
                else:
                    cells.append(f"{o:.0f}->{m:.0f} ({rel_err(m, o)})")
            p(f"| {r['trace']} | {cap_label(r['cap'])} | {r['pf']} | " +
              " | ".join(cells) + " |")
        p()


# ---------------------------------------------------------------- main

def clock_name(k):
    """The fixture file with oracle run `k`'s requests and issue times (run
    1's is `requests.csv.zst`, the name fixtures had before every run's
    clock was kept)."""
    return "requests.csv.zst" if k == 1 else f"requests-run{k}.csv.zst"


def write_fixture(fixdir, release, trace, cap, pf, runs, csvs, meta):
    """Write one configuration's fixture: each run's counters and clock
    (`csvs[k - 1]`, run k's `-o` CSV), then its config."""
    d = os.path.join(fixdir, release, trace, f"{cap_label(cap)}-pf{pf}")
    os.makedirs(d, exist_ok=True)
    for i, o in enumerate(runs, 1):
        tmp = os.path.join(d, f".oracle-run{i}.json.tmp")
        with open(tmp, "w") as f:
            json.dump(keep_oracle(o), f, indent=0, sort_keys=True)
            f.write("\n")
        os.replace(tmp, os.path.join(d, f"oracle-run{i}.json"))
    for k, csv in enumerate(csvs, 1):
        tmp = os.path.join(d, "." + clock_name(k) + ".tmp")
        subprocess.run(["zstd", "-q", "-f", "-19", csv, "-o", tmp],
                       check=True)
        os.replace(tmp, os.path.join(d, clock_name(k)))
    tmp = os.path.join(d, ".config.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(d, "config.json"))


def from_fixtures(a):
    rows = []
    work = a.work or "/tmp/arcoracle-fixture-replay"
    os.makedirs(work, exist_ok=True)
    for release in sorted(os.listdir(a.from_fixtures)):
        rdir = os.path.join(a.from_fixtures, release)
        if not os.path.isdir(rdir):
            continue
        for trace in TRACES:
            tdir = os.path.join(rdir, trace)
            if not os.path.isdir(tdir):
                continue
            for cfg in sorted(os.listdir(tdir),
                              key=lambda s: (int(s.split("M")[0]), s)):
                d = os.path.join(tdir, cfg)
                meta = json.load(open(os.path.join(d, "config.json")))
                runs = []
                i = 1
                while os.path.exists(os.path.join(d, f"oracle-run{i}.json")):
                    runs.append(json.load(
                        open(os.path.join(d, f"oracle-run{i}.json"))))
                    i += 1
                n = runs[0]["config.requests"]
                # Each run on its own clock (and measured latency) where the
                # fixture kept it, as the live matrix replays them; a set
                # that kept run 1's clock only replays run 1.
                own = [k for k in range(1, len(runs) + 1)
                       if os.path.exists(os.path.join(d, clock_name(k)))]
                models = []
                for k in own:
                    csv = os.path.join(work, "fixture.csv")
                    subprocess.run(["zstd", "-q", "-d", "-f",
                                    os.path.join(d, clock_name(k)),
                                    "-o", csv], check=True)
                    for seed in run_seeds(k, a.model_seeds):
                        m = run_model(a.arclab, csv, release, meta["ram"],
                                      meta["cap"], meta["prefetch"],
                                      runs[k - 1]["config.nblocks"],
                                      model_args(a, runs[k - 1],
                                                 meta.get("device_latency_us",
                                                          0),
                                                 seed, release,
                                                 TRACES[trace][1]))
                        models.append(dict(model_metrics(m, n), run=k))
                rows.append({"release": release, "trace": trace,
                             "cap": meta["cap"], "pf": meta["prefetch"],
                             "oracle": [dict(oracle_metrics(o), run=k)
                                        for k, o in enumerate(runs, 1)],
                             "model": models})
    print_tables(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--oracle", action="append", default=[],
                    help="RELEASE=PATH of an arcoracle binary (repeat)")
    ap.add_argument("--arclab", default="target/release/arclab")
    ap.add_argument("--work", help="scratch dir (pools, traces, runs)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--requests", type=int, default=16000)
    ap.add_argument("--traces", default=",".join(TRACES))
    ap.add_argument("--caps", default=",".join(str(c) for c in CAPS))
    ap.add_argument("--prefetch", default="off,on")
    ap.add_argument("--ram", type=int, default=host_ram(),
                    help="arclab --ram (default: this host's RAM)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=int, default=0,
                    help="pace the oracle at this many requests/s (its -r; "
                         "0 = as fast as it can)")
    ap.add_argument("--device-latency-us", type=int, default=0,
                    help="give the oracle's device a latency of at least "
                         "this many microseconds (its -L; needs "
                         "arcoracle-device-latency.patch; 0 = no floor)")
    ap.add_argument("--model-latency", choices=["floor", "p10", "p50"],
                    default="p50",
                    help="the model's device latency: the median (p50, "
                         "default) or 10th percentile of the read latency "
                         "the harness measured (run 1's with "
                         "--from-fixtures), or the floor it was given; "
                         "runs without a measurement use the floor, and "
                         "no floor the model's default")
    ap.add_argument("--model-seeds", type=int, default=8,
                    help="replay the model this many times per oracle run, "
                         "each with its own draw of which sublist each "
                         "block joins and where its eviction bursts start "
                         "(arclab's sublist_seed 0, 1, ...), as every arc.c "
                         "run, a fresh import with a new random "
                         "spa_load_guid, draws both; the table gives their "
                         "mean and min-max (default 8, as the tests); each "
                         "oracle run K gets seeds of its own, (K-1)*N to "
                         "K*N-1, since each arc.c run is its own import")
    ap.add_argument("--harness-state", action="store_true",
                    help="also give the model the metadata the harness's "
                         "import holds (arclab --pinned metadata=, from the "
                         "run's begin.arcstats) and its arcstats reads every "
                         "1000 requests (--kstat-every 1000); off by default, "
                         "as in the tests (docs/oracle.md, \"Lockstep with "
                         "arc.c\")")
    ap.add_argument("--fixtures", help="write fixtures under this dir")
    ap.add_argument("--from-fixtures",
                    help="no oracle: model vs recorded fixtures")
    ap.add_argument("--model-arg", action="append", default=[],
                    help="extra argument for arclab sim (repeat), e.g. "
                         "--model-arg=--indirect-reads=off")
    a = ap.parse_args()
    if not 1 <= a.model_seeds <= 1000:
        ap.error("--model-seeds must be 1 to 1000")
    if a.from_fixtures:
        return from_fixtures(a)
    if not a.oracle or not a.work:
        ap.error("give --oracle RELEASE=PATH (one or more) and --work DIR")
    if a.runs < 1 or a.requests < 1:
        ap.error("--runs and --requests must be at least 1")
    if not 0 <= a.rate <= 1_000_000:
        ap.error("--rate must be 0 (unpaced) to 1000000 requests/s")
    if not 0 <= a.device_latency_us <= 1_000_000:
        ap.error("--device-latency-us must be 0 to 1000000")
    os.makedirs(a.work, exist_ok=True)
    env = dict(os.environ)
    rows = []
    t_start = time.time()
    for spec in a.oracle:
        release, _, oracle = spec.partition("=")
        if not oracle or not os.access(oracle, os.X_OK):
            sys.exit(f"--oracle {spec}: want RELEASE=PATH of an executable")
        for trace in a.traces.split(","):
            if trace not in TRACES:
                sys.exit(f"unknown trace {trace}: one of {', '.join(TRACES)}")
            gen, pool, frac = TRACES[trace]
            pooldir = ensure_pool(oracle, release, pool, a.work)
            for cap in (int(c) for c in a.caps.split(",")):
                ids = gen(int(a.requests * frac), cap, a.seed)
                tfile = os.path.join(a.work, f"{trace}-{cap_label(cap)}.txt")
                with open(tfile, "w") as f:
                    f.write("".join(f"{i}\n" for i in ids))
                cmin = c_min_for(a.arclab, a.ram, release, cap)
                for pf in a.prefetch.split(","):
                    runs, orc, mod = [], [], []
                    tag = f"{release}-{trace}-{cap_label(cap)}-pf{pf}"
                    for k in range(1, a.runs + 1):
                        csv = os.path.join(a.work, f"{tag}-run{k}.csv")
                        # Paced runs sleep between requests: not niced, so
                        # that they wake on time.
                        nice = "0" if a.rate else "10"
                        cmd = ["nice", "-n", nice, oracle, "replay",
                               "-d", pooldir, "-t", tfile, "-c", str(cap),
                               "-m", str(cmin),
                               "-p", "1" if pf == "on" else "0", "-o", csv]
                        if a.rate:
                            cmd += ["-r", str(a.rate)]
                        if a.device_latency_us:
                            cmd += ["-L", str(a.device_latency_us)]
                        t0 = time.time()
                        txt = os.path.join(a.work, f"{tag}-run{k}.txt")
                        o = reusable(txt, csv, len(ids), cap, cmin, pf,
                                     a.rate, a.device_latency_us)
                        if o is None:
                            out = sh(cmd, capture_output=True, text=True,
                                     env=env).stdout
                            o = parse_oracle(out)
                            with open(txt + ".tmp", "w") as f:
                                f.write(out)
                            os.replace(txt + ".tmp", txt)
                        draws = [run_model(a.arclab, csv, release, a.ram, cap,
                                           pf, o["config.nblocks"],
                                           model_args(a, o,
                                                      a.device_latency_us,
                                                      seed, release, pool))
                                 for seed in run_seeds(k, a.model_seeds)]
                        mod += [dict(model_metrics(m, len(ids)), run=k)
                                for m in draws]
                        print(f"{tag} run {k}: {time.time() - t0:.1f} s, "
                              f"oracle {o['result.hit_ratio']:.4f} model "
                              f"{draws[0]['demand_data_hits'] / len(ids):.4f}",
                              file=sys.stderr)
                        runs.append(o)
                        orc.append(dict(oracle_metrics(o), run=k))
                    rows.append({"release": release, "trace": trace,
                                 "cap": cap, "pf": pf, "oracle": orc,
                                 "model": mod})
                    if a.fixtures:
                        meta = {"release": release, "trace": trace,
                                "cap": cap, "c_min": cmin, "prefetch": pf,
                                "ram": a.ram, "requests": len(ids),
                                "seed": a.seed, "runs": a.runs,
                                "rate": a.rate,
                                "device_latency_us": a.device_latency_us,
                                "oracle_cmd": " ".join(cmd[3:]).replace(
                                    a.work + "/", "").replace(
                                    f"-run{a.runs}.csv", "-runK.csv"),
                                "clock": "requests.csv is run 1's, "
                                         "requests-runK.csv run K's"}
                        write_fixture(a.fixtures, release, trace, cap, pf,
                                      runs, [os.path.join(
                                          a.work, f"{tag}-run{k}.csv")
                                          for k in range(1, a.runs + 1)],
                                      meta)
                    with open(os.path.join(a.work, "rows.json"), "w") as f:
                        json.dump(rows, f)
    print(f"matrix took {time.time() - t_start:.0f} s", file=sys.stderr)
    print_tables(rows)


if __name__ == "__main__":
    main()
