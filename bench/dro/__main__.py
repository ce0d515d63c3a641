# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m bench.dro - the disk-reuse restructuring benchmark (issue 4).
python3 -m bench.dro - the disk-reuse restructuring benchmark (issue 4).

Compiles the kernels of bench/kernels/ in each mode of the plugin (lower =
the original loop order lowered onto the runtime, clo = Polly's isl
scheduler with tiling, dro-l = disk-reuse reordering of each loop nest,
dro-wp = disk-reuse reordering across the nests of a SCoP), runs them on
striped disk directories with the stripe buffer at a fraction of each
kernel's data, and writes bench/results/dro.md, PNG plots and the raw data
(bench/results/raw/dro.json):

  1. the main table: every kernel x mode, stripe fetches, distinct stripes,
     fetches per block (paper 1, Fig. 17), modeled I/O seconds (hdd model),
     wall seconds, whether the schedule was applied (from the -Rpass
     remarks), checksum equality with mode=off; suite averages; the issue's
     targets, each PASS or NOT MET;
  2. sensitivity to the buffer size (paper 1, Fig. 18) and to the stripe
     size (Fig. 20; the compiler and the runtime get the same stripe);
  3. dro-wp with granularity=disk against granularity=stripe;
  4. compile time against plain clang-19 -O2 and mode=off, at the kernels'
     sizes and with every dimension x10 (100x the data of 2-D arrays);
  5. lower, clo and dro-wp run again with IOPOLY_WRITE_BEHIND=0 against
     the main table's runs (write-behind on, the default).

Every mode's checksum must equal mode=off's; a difference is printed at once
and makes the tool exit with status 1 (after writing the report, which shows
it). Progress goes to stderr.

  python3 -m bench.dro [--quick] [--build DIR] [--out DIR] [--workdir DIR]
  python3 -m bench.dro --render-only        # re-render dro.md and plots from raw/dro.json
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from bench.common import ROOT, frac_value, log, parse_size
from bench.dro.report import plots, render
from bench.dro.run import run_all


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--workdir", help="scratch directory (default: a new one under /tmp, removed at the end)")
    ap.add_argument("--quick", action="store_true", help="small sizes and few points (a few minutes)")
    ap.add_argument("--stripe", default="32K", help="stripe of the main table (compiler and runtime)")
    ap.add_argument("--disks", type=int, default=8)
    ap.add_argument("--fraction", default="1/4", help="buffer / data of the main table")
    ap.add_argument("--fractions", help="buffer sensitivity (default 1/64,1/32,1/16,1/8,1/4,1/2)")
    ap.add_argument("--stripes", help="stripe sensitivity (default 16K,32K,64K,128K,256K)")
    ap.add_argument("--sens-kernels", help="kernels of the sensitivity runs "
                                           "(default sweeps,transpose,reductions,multisweep,stencil)")
    ap.add_argument("--model", default="hdd")
    ap.add_argument("--direct", default="off", help="IOPOLY_DIRECT of the runs (default off: page cache)")
    ap.add_argument("--compile-reps", type=int)
    ap.add_argument("--run-timeout", type=float, default=600)
    ap.add_argument("--compile-timeout", type=float, default=900)
    ap.add_argument("--render-only", action="store_true", help="re-render the report from raw/dro.json")
    cfg = ap.parse_args()
    raw_path = os.path.join(cfg.out, "raw", "dro.json")
    if cfg.render_only:
        with open(raw_path) as f:
            raw = json.load(f)
    else:
        cfg.build = os.path.abspath(cfg.build)
        cfg.iopoly_clang = os.path.join(cfg.build, "bin", "iopoly-clang")
        if not os.access(cfg.iopoly_clang, os.X_OK):
            sys.exit(f"bench-dro: {cfg.iopoly_clang} not found; build first (scripts/bench-dro.sh does)")
        if shutil.which("clang-19") is None:
            sys.exit("bench_dro: clang-19 not found")
        cfg.stripe = parse_size(cfg.stripe)
        cfg.fraction_text = cfg.fraction
        cfg.fraction = frac_value(cfg.fraction)
        cfg.fractions = (cfg.fractions or ("1/16,1/4" if cfg.quick else "1/64,1/32,1/16,1/8,1/4,1/2")).split(",")
        cfg.stripes = (cfg.stripes or ("16K,64K" if cfg.quick else "16K,32K,64K,128K,256K")).split(",")
        cfg.sens_kernels = (cfg.sens_kernels or ("sweeps,transpose" if cfg.quick else
                                                 "sweeps,transpose,reductions,multisweep,stencil")).split(",")
        cfg.compile_reps = cfg.compile_reps or (1 if cfg.quick else 5)
        own = not cfg.workdir
        cfg.work = os.path.abspath(cfg.workdir or tempfile.mkdtemp(prefix="iopoly-bench-dro-", dir="/tmp"))
        os.makedirs(cfg.work, exist_ok=True)
        log(f"bench_dro: scratch directory {cfg.work}")
        try:
            raw = run_all(cfg)
        finally:
            if own:
                shutil.rmtree(cfg.work, ignore_errors=True)
        os.makedirs(os.path.dirname(raw_path), exist_ok=True)
        with open(raw_path, "w") as f:
            json.dump(raw, f, indent=1)
    have_plots = plots(raw, cfg.out)
    if not have_plots:
        log("bench_dro: matplotlib is not available (apt-get install python3-matplotlib): no plots")
    text = render(raw, cfg.out, have_plots)
    print(text)
    log(f"bench_dro: wrote {os.path.join(cfg.out, 'dro.md')}, {raw_path}" +
        (", dro-main.png, dro-buffer.png, dro-stripe.png" if have_plots else ""))
    if raw["mismatches"]:
        log("bench_dro: FAILED: some mode computed a different checksum than mode=off:\n  " +
            "\n  ".join(raw["mismatches"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

