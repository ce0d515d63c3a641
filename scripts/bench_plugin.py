#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench_plugin.py - the plugin's two benchmarks of issue 3, section 7.

1. Overhead of lowering when the data fit the buffer: each kernel of
   bench/kernels/ built with -fplugin-arg-iopoly-mode=lower (buffer twice the
   data, disk model none) against the same kernel on plain in-memory arrays
   (mode=off). Median wall and CPU time over --runs alternating runs.
2. Compile time: iopoly-clang -O2 -c (mode=lower) against plain clang-19
   -O2 -c, median over --runs compiles.

Writes bench/results/plugin.md (and raw/plugin.json) and prints the tables.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Sizes where the plain kernel runs for a measurable time.
KERNELS = [("sweeps", ["-DN=2048"]), ("transpose", ["-DN=2048"]), ("stencil", ["-DN=1536", "-DT=48"]),
           ("matmul", ["-DN=1024"])]


def timed(cmd, env=None, cwd=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    res = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    wrapper = os.path.join(args.build, "bin", "iopoly-clang")
    work = tempfile.mkdtemp(prefix="iopoly-bench-plugin-")
    results = {"overhead": [], "compile": []}
    try:
        for name, defs in KERNELS:
            src = os.path.join(ROOT, "bench", "kernels", name + ".c")
            exes = {}
            for mode in ("off", "lower"):
                exes[mode] = os.path.join(work, f"{name}.{mode}")
                subprocess.run([wrapper, "-O2", f"-fplugin-arg-iopoly-mode={mode}", *defs, src, "-o", exes[mode]],
                               check=True)
            data = int(subprocess.run([exes["off"], "size"], capture_output=True, text=True).stdout)
            samples = {"off": [], "lower": []}
            sums = set()
            for r in range(args.runs):
                print(f"[overhead] {name} run {r + 1}/{args.runs}", file=sys.stderr, flush=True)
                for mode in ("off", "lower"):
                    datadir = os.path.join(work, "data")
                    shutil.rmtree(datadir, ignore_errors=True)
                    env = dict(os.environ, IOPOLY_DIR=datadir, IOPOLY_BUFFER=str(2 * data), IOPOLY_STRIPE="64K",
                               IOPOLY_DISKS="8", IOPOLY_DISK_MODEL="none")
                    wall, cpu, out = timed([exes[mode]], env=env, cwd=work)
                    samples[mode].append((wall, cpu))
                    sums.add(out.strip())
            row = {"kernel": name, "data_bytes": data, "identical": len(sums) == 1}
            for mode in ("off", "lower"):
                row[f"{mode}_wall"] = statistics.median(w for w, _ in samples[mode])
                row[f"{mode}_cpu"] = statistics.median(c for _, c in samples[mode])
            row["wall_ratio"] = row["lower_wall"] / row["off_wall"]
            row["cpu_ratio"] = row["lower_cpu"] / row["off_cpu"]
            results["overhead"].append(row)

            plain, plugin = [], []
            for r in range(args.runs):
                print(f"[compile] {name} run {r + 1}/{args.runs}", file=sys.stderr, flush=True)
                plain.append(timed(["clang-19", "-O2", "-c", *defs, src, "-o", os.path.join(work, "p.o")])[0])
                plugin.append(timed([wrapper, "-O2", "-c", *defs, src, "-o", os.path.join(work, "l.o")])[0])
            results["compile"].append({"kernel": name, "clang_s": statistics.median(plain),
                                       "iopoly_s": statistics.median(plugin),
                                       "ratio": statistics.median(plugin) / statistics.median(plain)})
    finally:
        shutil.rmtree(work, ignore_errors=True)

    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = ["# Plugin benchmarks (issue 3, section 7)", "",
             f"Machine: {cpu}, {os.cpu_count()} cores, Linux {platform.release()}. "
             f"Medians of {args.runs} runs. Regenerate with `scripts/bench-plugin.sh`.", "",
             "## Overhead of lowering when the data fit the buffer (target: at most 1.25x)", "",
             "Buffer twice the data, 64 KiB stripes on 8 disk directories of one ext4 disk, disk model none. "
             "Wall time includes the runtime's start, the zero-filled first touch and the write-back of every "
             "dirty stripe at exit; CPU time is user + system of the process.", "",
             "| kernel | data | plain wall s | lowered wall s | wall ratio | plain CPU s | lowered CPU s | CPU ratio | "
             "same output |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results["overhead"]:
        lines.append(f"| {r['kernel']} | {r['data_bytes'] >> 20} MiB | {r['off_wall']:.3f} | {r['lower_wall']:.3f} | "
                     f"{r['wall_ratio']:.2f}x | {r['off_cpu']:.3f} | {r['lower_cpu']:.3f} | {r['cpu_ratio']:.2f}x | "
                     f"{'yes' if r['identical'] else 'NO'} |")
    lines += ["", "## Compile time (target: at most 1.5x plain clang-19 -O2)", "",
              "| kernel | clang-19 -O2 s | iopoly-clang -O2 s | ratio |", "|---|---|---|---|"]
    for r in results["compile"]:
        lines.append(f"| {r['kernel']} | {r['clang_s']:.3f} | {r['iopoly_s']:.3f} | {r['ratio']:.2f}x |")
    lines += ["", "Raw data: [`raw/plugin.json`](raw/plugin.json) (every kernel's times and outputs)."]
    text = "\n".join(lines) + "\n"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "plugin.md"), "w") as f:
        f.write(text)
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    with open(os.path.join(args.out, "raw", "plugin.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(text)
    return 0 if all(r["identical"] for r in results["overhead"]) else 1


if __name__ == "__main__":
    sys.exit(main())
