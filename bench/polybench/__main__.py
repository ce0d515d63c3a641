# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m bench.polybench POLYBENCH_DIR [options]: see --help and
bench/README.md. scripts/bench-polybench.sh is the entry point that also
builds the tree."""
import argparse
import json
import os
import sys
import tempfile

from bench import common
from bench.polybench import prepare, report, run


def rerun_options(argv, polybench):
    """The options that say what ran: without the PolyBench directory, the
    build and scratch directories (this machine's) or --resume (how)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--build", "--workdir"):
            skip = True
        elif a == polybench or a == "--resume" or a.startswith(("--build=", "--workdir=")):
            continue
        else:
            out.append(a)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench-polybench", description=__doc__)
    ap.add_argument("polybench", nargs="?", help="PolyBench/C 4.2.1 source directory (not needed with --render-only)")
    ap.add_argument("--build", default=os.path.join(common.ROOT, "build"), help="build tree (default build/)")
    ap.add_argument("--out", default=os.path.join(common.ROOT, "bench", "results"),
                    help="where polybench.md, the plots and raw/polybench.json go (default bench/results)")
    ap.add_argument("--workdir", help="scratch directory (default: a new one under $TMPDIR)")
    ap.add_argument("--quick", action="store_true",
                    help="MEDIUM only, 4K stripes, buffers 1/2, 1/8, 1/32, every mode (all kernels)")
    ap.add_argument("--sizes", default="MEDIUM,LARGE", help="datasets (default MEDIUM,LARGE)")
    ap.add_argument("--stripes", default="4K,64K", help="stripe sizes (default 4K,64K)")
    ap.add_argument("--buffers", default="1/2,1/8,1/32", help="buffer as fractions of each kernel's data")
    ap.add_argument("--modes", default=",".join(run.MODES),
                    help="modes besides the plain reference; MODE+OPTION=VALUE adds -fplugin-arg-iopoly-OPTION=VALUE "
                         "(e.g. dro-wp+layout=off)")
    ap.add_argument("--kernels", help="comma-separated kernel names (default: all 30)")
    ap.add_argument("--disks", type=int, default=8)
    ap.add_argument("--model", default="hdd", help="IOPOLY_DISK_MODEL (default hdd)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run (default 300)")
    ap.add_argument("--compile-timeout", type=int, default=600, help="seconds per compile (default 600)")
    ap.add_argument("--min-frames", type=int, default=16,
                    help="smallest buffer in stripes (the lowered code keeps a few attached; default 16)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="kernels measured in parallel (default 1; more makes wall times noisier, not the counters)")
    ap.add_argument("--apart", action="store_true",
                    help="compile each kernel_* function as if in a library (external, never inlined): its sizes "
                         "reach it as parameters, as in users' code")
    ap.add_argument("--no-floor", action="store_true", help="skip the traces and Belady's MIN")
    ap.add_argument("--resume", action="store_true", help="keep the kernels already in raw/polybench.json")
    ap.add_argument("--render-only", action="store_true", help="re-render the report from raw/polybench.json")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.stripes, args.buffers = "MEDIUM", "4K", "1/2,1/8,1/32"
    args.sizes = args.sizes.split(",")
    args.stripes = args.stripes.split(",")
    args.buffers = args.buffers.split(",")
    args.modes = args.modes.split(",")
    names = {prepare.kernel_name(k): k for k in prepare.KERNELS}
    if args.kernels:
        bad = [k for k in args.kernels.split(",") if k not in names]
        if bad:
            ap.error(f"unknown kernel(s) {', '.join(bad)}; known: {', '.join(names)}")
        args.kernels = [names[k] for k in args.kernels.split(",")]
    else:
        args.kernels = list(prepare.KERNELS)
    if args.render_only:
        report.render_from(args.out)
        return 0
    if not args.polybench:
        ap.error("the PolyBench/C directory is required")
    if not os.path.isfile(os.path.join(args.polybench, "utilities", "polybench.c")):
        ap.error(f"{args.polybench}: not a PolyBench/C 4.2.1 directory (no utilities/polybench.c)")
    own_work = args.workdir is None
    args.workdir = args.workdir or tempfile.mkdtemp(prefix="iopoly-polybench.")
    cfg = run.Config(args)
    common.log(f"PolyBench: {len(args.kernels)} kernels x {', '.join(args.sizes)} x stripes {', '.join(args.stripes)} x "
               f"buffers {', '.join(args.buffers)} x modes {', '.join(args.modes)}; work in {args.workdir}")
    raw = run.run_all(cfg, args.resume)
    options = rerun_options(argv if argv is not None else sys.argv[1:], args.polybench)
    if args.resume and raw.get("argv"):
        # The page's command stays the whole run's; kernels measured again
        # are listed with theirs.
        if options != raw["argv"]:
            raw.setdefault("resumed_argv", []).append(options)
    else:
        raw["argv"] = options
    with open(os.path.join(args.out, "raw", "polybench.json"), "w") as f:
        json.dump(raw, f, separators=(",", ":"))  # compact: the raw data of a quick run is over 1 MiB indented
    report.render(raw, args.out)
    if own_work:
        import shutil
        shutil.rmtree(args.workdir, ignore_errors=True)
    bad = report.mismatches(raw)
    for b in bad:
        common.log("OUTPUT DIFFERS: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
