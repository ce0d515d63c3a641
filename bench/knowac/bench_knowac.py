#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench_knowac.py - the KNOWAC benchmark (issue 14, paper 5 section VI).

pgea (grid-point averaging over netCDF files, bench/knowac/pgea.c) on
inputs made by knowac-gen, with every read and write of the data directory
costing what the hdd disk model says (libknowac_slowdisk.so; one disk for 1
rank, a parallel file system of 4 servers for 4 ranks, as PVFS2 in the
paper). Experiments:

  1. main (Figs. 9-10): the learning input, 1 and 4 ranks: without KNOWAC,
     the first run with KNOWAC (learns only), and the runs after it
     (prefetch); the compute per element (--work) is calibrated so that
     computing takes about as long as reading (compute/read 1:1);
  2. other inputs (Fig. 10): other data, twice the cells, four files, and
     CDF-5 float files with six variables, with what was learned so far;
  3. other operations and compute intensities (Fig. 11): avg, sqavg, rms,
     max, min, and --work from 0 (pure I/O) up;
  4. overhead (Fig. 13): a first run (learning, nothing to prefetch) and a
     dry run (matching and scheduling without reading ahead) against no
     KNOWAC, five interleaved runs each.

Every output must be byte-identical to the run without KNOWAC on the same
input (SHA-256); a difference stops the benchmark with exit status 1.
Writes bench/results/knowac.md, knowac-*.png and raw/knowac.json.

  bench_knowac.py --build DIR [--out DIR] [--workdir DIR] [--quick]
  bench_knowac.py --render-only [--out DIR]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import driver  # noqa: E402
import report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def check_same(ref, res, what):
    if res["output_sha256"] != ref["output_sha256"]:
        driver.log(f"ERROR: {what}: the output differs from the run without KNOWAC")
        raise SystemExit(1)


def calibrate(b, inputs, ranks, servers, ratio):
    """--work so that computing takes `ratio` times as long as reading (medians of two runs at --work 100)."""
    rs = [b.run(inputs, work=100, ranks=ranks, servers=servers) for _ in range(2)]
    read = statistics.median(r["read_seconds"] for r in rs)
    per = statistics.median(r["compute_seconds"] for r in rs) / 100.0
    work = max(10, int(round(ratio * read / per / 10.0)) * 10)
    driver.log(f"calibration, {ranks} rank(s): read {read:.2f} s, compute {per * 100:.2f} s at --work 100 -> "
               f"--work {work} (compute/read {ratio})")
    return work, rs


def main_experiment(b, inputs, ranks, servers, work, reps, db):
    """Without KNOWAC, the first run with it, and the following ones, interleaved."""
    out = {"ranks": ranks, "servers": servers, "work": work, "off": [], "learn": None, "prefetch": []}
    out["learn"] = b.run(inputs, work=work, ranks=ranks, servers=servers, knowac="prefetch", db=db)
    driver.log("  run 1 " + driver.summary(out["learn"]))
    for i in range(reps):
        off = b.run(inputs, work=work, ranks=ranks, servers=servers)
        driver.log("  " + driver.summary(off))
        pf = b.run(inputs, work=work, ranks=ranks, servers=servers, knowac="prefetch", db=db)
        driver.log(f"  run {i + 2} " + driver.summary(pf))
        check_same(off, pf, f"{ranks} ranks, run {i + 2}")
        check_same(off, out["learn"], f"{ranks} ranks, run 1")
        out["off"].append(off)
        out["prefetch"].append(pf)
    # The floors: the same program with the data in memory (no disk model,
    # compute and the cost of the calls only) and the disk's busy time.
    out["compute_only"] = b.run(inputs, work=work, ranks=ranks, servers=servers, disk=False)
    driver.log("  in memory " + driver.summary(out["compute_only"]))
    return out


def inputs_experiment(b, sets, work, reps, db):
    """Fig. 10: other inputs, with the knowledge accumulated so far."""
    rows = []
    for name, files in sets:
        driver.log(f"input {name}")
        row = {"name": name, "files": [os.path.basename(f) for f in files], "off": [], "prefetch": []}
        for i in range(reps):
            off = b.run(files, work=work)
            pf = b.run(files, work=work, knowac="prefetch", db=db)
            driver.log(f"  {driver.summary(off)}\n  run {i + 1} {driver.summary(pf)}")
            check_same(off, pf, f"input {name}")
            row["off"].append(off)
            row["prefetch"].append(pf)
        rows.append(row)
    return rows


def ops_experiment(b, inputs, ops, works, main_work, db):
    """Fig. 11: other operations (knowledge learned with avg), and compute intensity."""
    rows = []
    for op in ops:
        off = b.run(inputs, op=op, work=main_work)
        pf = b.run(inputs, op=op, work=main_work, knowac="prefetch", db=db)
        driver.log(f"op {op}\n  {driver.summary(off)}\n  {driver.summary(pf)}")
        check_same(off, pf, f"op {op}")
        rows.append({"kind": "op", "op": op, "work": main_work, "off": off, "prefetch": pf})
    for w in works:
        off = b.run(inputs, work=w)
        pf = b.run(inputs, work=w, knowac="prefetch", db=db)
        driver.log(f"work {w}\n  {driver.summary(off)}\n  {driver.summary(pf)}")
        check_same(off, pf, f"work {w}")
        rows.append({"kind": "work", "op": "avg", "work": w, "off": off, "prefetch": pf})
    return rows


def overhead_experiment(b, inputs, work, reps, db_dir, trained_db, tag):
    """Fig. 13: KNOWAC's own cost when nothing is read ahead."""
    rows = {"work": work, "off": [], "learn": [], "dry": []}
    shared = os.path.join(db_dir, "first-runs.db")
    if not os.path.exists(shared):  # created once, outside the measurements
        b.run(inputs, work=0, knowac="learn", db=shared, app="pgea-create")
    for i in range(reps):
        rows["off"].append(b.run(inputs, work=work))
        # A first run: an application the knowledge base has never seen.
        rows["learn"].append(b.run(inputs, work=work, knowac="learn", db=shared, app=f"pgea-first-{tag}-{i}"))
        rows["dry"].append(b.run(inputs, work=work, knowac="dry", db=trained_db))
        for m in ("learn", "dry"):
            check_same(rows["off"][-1], rows[m][-1], f"overhead {m}")
        driver.log(f"overhead, --work {work}, {i + 1}: off {rows['off'][-1]['seconds']:.3f} s, "
                   f"learn {rows['learn'][-1]['seconds']:.3f} s, dry {rows['dry'][-1]['seconds']:.3f} s")
    return rows


def machine():
    info = {"host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    try:
        info["load_before"] = os.getloadavg()
    except OSError:
        pass
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                        text=True).stdout.strip()
    except OSError:
        pass
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--workdir", help="scratch directory (default: a new one under /tmp, removed at the end)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and inputs (about a minute)")
    ap.add_argument("--render-only", action="store_true", help="re-render the report from raw/knowac.json")
    a = ap.parse_args()
    raw_path = os.path.join(a.out, "raw", "knowac.json")
    if a.render_only:
        report.render(json.load(open(raw_path)), a.out)
        return 0
    work_dir = a.workdir or tempfile.mkdtemp(prefix="knowac-bench-")
    b = driver.Bench(a.build, work_dir)
    reps = 1 if a.quick else 3
    t_start = time.monotonic()
    raw = {"machine": machine(), "quick": a.quick, "model": b.model,
           "command": "scripts/bench-knowac.sh" + (" --quick" if a.quick else "")}
    dbs = os.path.join(work_dir, "db")
    shutil.rmtree(dbs, ignore_errors=True)  # every benchmark starts with nothing learned
    os.makedirs(dbs)

    driver.log("generating inputs")
    A = [b.gen(f"A{i}", seed=i) for i in (1, 2, 3)]
    sets = [("B: other data", [b.gen(f"B{i}", seed=10 + i) for i in (1, 2, 3)]),
            ("C: twice the cells", [b.gen(f"C{i}", cells=32768, seed=20 + i) for i in (1, 2, 3)])]
    if not a.quick:
        sets += [("D: four files", [b.gen(f"D{i}", seed=30 + i) for i in (1, 2, 3, 4)]),
                 ("E: CDF-5, float, 6 variables",
                  [b.gen(f"E{i}", nvars=6, vtype="float", fmt="cdf5", seed=40 + i) for i in (1, 2, 3)])]
    raw["inputs"] = {"A": {"files": 3, "cells": 16384, "layers": 16, "steps": 4, "vars": 4, "type": "double",
                           "format": "cdf2", "bytes_per_file": os.path.getsize(A[0])}}
    time.sleep(1.2)  # KNOWAC trusts no file modified within the last second

    # Compute as long as reading, on each rank (4 ranks share the CPUs: their
    # compute wall time, measured with all four computing, is what counts).
    work1, cal1 = calibrate(b, A, 1, 1, 1.0)
    work4, cal4 = calibrate(b, A, 4, 4, 1.0)
    raw["calibration"] = {"1": {"work": work1, "run": cal1}, "4": {"work": work4, "run": cal4}}
    db1 = os.path.join(dbs, "pgea-1.db")
    db4 = os.path.join(dbs, "pgea-4.db")
    driver.log(f"main, 1 rank, --work {work1}")
    raw["main"] = [main_experiment(b, A, 1, 1, work1, reps, db1)]
    driver.log(f"main, 4 ranks on 4 servers, --work {work4}")
    raw["main"].append(main_experiment(b, A, 4, 4, work4, reps, db4))
    raw["other_inputs"] = inputs_experiment(b, sets, work1, 1 if a.quick else 2, db1)
    ops = ["sqavg", "rms"] if a.quick else ["sqavg", "rms", "max", "min"]
    works = [0, work1 // 2] if a.quick else [0, work1 // 4, work1 // 2, 2 * work1]
    raw["operations"] = ops_experiment(b, A, ops, works, work1, db1)
    # Twice: at the main ratio, and as pure I/O (--work 0), where the run
    # time is the disk model's and CPU noise from other users is small.
    raw["overhead"] = [overhead_experiment(b, A, work1, 2 if a.quick else 5, dbs, db1, "main"),
                       overhead_experiment(b, A, 0, 2 if a.quick else 5, dbs, db1, "io")]
    raw["elapsed_seconds"] = time.monotonic() - t_start
    raw["machine"]["load_after"] = os.getloadavg()
    os.makedirs(os.path.dirname(raw_path), exist_ok=True)
    with open(raw_path, "w") as f:
        json.dump(raw, f, indent=1)
    report.render(raw, a.out)
    driver.log(f"done in {raw['elapsed_seconds']:.0f} s: {os.path.join(a.out, 'knowac.md')}")
    if not a.workdir:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
