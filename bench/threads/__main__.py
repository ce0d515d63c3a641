# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m bench.threads - locality sets on threads (paper 1, section 5).

Runs setsbench (bench/threads/setsbench.c) for every workload (sweep, halo,
wave), map (disks, units), buffer (1/8, 1/32 of the data), disk model (hdd,
ssd) and thread count (1, 2, 4, 8) under the g and naive policies, then the
Polly-OpenMP baseline on the bench kernels (bench/threads/omp.py), and
writes bench/results/threads.md and bench/results/raw/threads.json. Every
output must equal the single-thread run's; a difference makes the tool exit
with status 1 after writing the report. Progress goes to stderr.

  python3 -m bench.threads [--quick] [--reps N] [--build DIR] [--out DIR] [--workdir DIR]
  python3 -m bench.threads --render-only   # re-render threads.md from raw/threads.json
"""
import argparse
import json
import os
import platform
import sys
import tempfile

from bench import common
from bench.threads import omp, report, run


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m bench.threads", description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(common.ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(common.ROOT, "bench", "results"))
    ap.add_argument("--workdir", default=None, help="where the disk directories go (default: a temporary one)")
    ap.add_argument("--reps", type=int, default=3, help="runs per multi-thread configuration (median kept)")
    ap.add_argument("--quick", action="store_true", help="64 units instead of 256")
    ap.add_argument("--render-only", action="store_true", help="re-render the report from raw/threads.json")
    ap.add_argument("--no-omp", action="store_true", help="skip the bench kernels (threads=on and Polly-OpenMP)")
    ap.add_argument("--kernels-only", action="store_true",
                    help="rerun the bench kernels only, keeping the setsbench runs of raw/threads.json")
    ap.add_argument("--kernel-reps", type=int, default=3,
                    help="runs per multi-thread kernel configuration (median kept)")
    a = ap.parse_args(argv)
    raw = os.path.join(a.out, "raw", "threads.json")
    if a.render_only:
        with open(raw) as f:
            saved = json.load(f)
        text, ok = report.render(saved["runs"], saved["command"], saved.get("machine", "(not recorded)"))
        if saved.get("omp"):
            more, ok2 = omp.render(saved["omp"])
            text, ok = text + more, ok and ok2
        with open(os.path.join(a.out, "threads.md"), "w") as f:
            f.write(text)
        return 0 if ok else 1
    exe = os.path.join(a.build, "bench", "setsbench")
    if not os.path.exists(exe):
        sys.exit(f"bench.threads: {exe} does not exist: build the setsbench target first")
    work = a.workdir or tempfile.mkdtemp(prefix="iopoly-threads-")
    os.makedirs(work, exist_ok=True)
    if a.kernels_only:
        with open(raw) as f:
            runs = json.load(f)["runs"]
    else:
        runs = run.run_all(exe, work, a.reps, a.quick)
    omp_rows = [] if a.no_omp else omp.run_all(a.build, work, a.kernel_reps)
    command = "scripts/bench-threads.sh" + (" --quick" if a.quick else "") + (f" --reps {a.reps}" if a.reps != 3 else "") \
        + (f" --kernel-reps {a.kernel_reps}" if a.kernel_reps != 3 else "")
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the end"
    text, ok = report.render(runs, command, machine)
    if omp_rows:
        more, ok2 = omp.render(omp_rows)
        text, ok = text + more, ok and ok2
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    with open(os.path.join(a.out, "threads.md"), "w") as f:
        f.write(text)
    with open(raw, "w") as f:
        json.dump({"command": command, "machine": machine, "runs": runs, "omp": omp_rows}, f, indent=1)
    common.log(f"wrote {os.path.join(a.out, 'threads.md')}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
