#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""run-kernels.py - compile the benchmark kernels in each iopoly mode, run
them on striped disk directories, and report I/O counters and times.

Used by scripts/demo.sh (the README's first command) and by the benchmark
scripts. For each kernel: mode=off is the reference (ordinary memory, its
checksum must equal every other mode's); every other mode runs with the
buffer at a fraction of the kernel's disk-resident data, on a fresh data
directory, with IOPOLY_STATS collected.

  run-kernels.py --build build [--kernels a,b] [--modes off,lower]
                 [--buffer-fraction 0.125] [--stripe 64K] [--disks 8]
                 [--model hdd] [--json out.json] [-D N=512 ...]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def compile_kernel(args, kernel, mode, out, extra=()):
    cmd = [os.path.join(args.build, "bin", "iopoly-clang"), "-O2", f"-fplugin-arg-iopoly-mode={mode}",
           f"-fplugin-arg-iopoly-stripe={args.stripe}", f"-fplugin-arg-iopoly-disks={args.disks}",
           *[f"-D{d}" for d in args.define], *extra, os.path.join(ROOT, "bench", "kernels", kernel + ".c"), "-o", out]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if res.returncode != 0:
        raise RuntimeError(f"compiling {kernel} in mode {mode} failed:\n{' '.join(cmd)}\n{res.stderr}")
    return secs


def run_kernel(args, exe, env_extra, workdir, timeout=None):
    """(wall seconds, checksum, stderr); (None, None, stderr) after `timeout` seconds."""
    env = dict(os.environ)
    env.update(env_extra)
    t0 = time.monotonic()
    try:
        res = subprocess.run([exe], capture_output=True, text=True, env=env, cwd=workdir, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return None, None, e.stderr or ""
    wall = time.monotonic() - t0
    if res.returncode != 0:
        raise RuntimeError(f"{exe} failed ({res.returncode}):\n{res.stderr}")
    checksum = next((l.split()[1] for l in res.stdout.splitlines() if l.startswith("checksum ")), "?")
    return wall, checksum, res.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--kernels", default="sweeps,transpose,stencil,matmul,reductions,multisweep")
    ap.add_argument("--run-timeout", type=float, help="stop a run after this many seconds and report it as "
                    "such (a mode that thrashes the buffer can take very long with real I/O)")
    ap.add_argument("--modes", default="off,lower")
    ap.add_argument("--buffer-fraction", type=float, default=0.125)
    ap.add_argument("--stripe", default="64K")
    ap.add_argument("--disks", type=int, default=8)
    ap.add_argument("--model", default="hdd")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--workdir", help="scratch directory (default: a temporary one, removed at the end)")
    ap.add_argument("-D", dest="define", action="append", default=[], help="a -D for every kernel")
    args = ap.parse_args()

    modes = args.modes.split(",")
    if "off" not in modes:
        modes.insert(0, "off")
    work = args.workdir or tempfile.mkdtemp(prefix="iopoly-kernels-")
    os.makedirs(work, exist_ok=True)
    stripe = parse_size(args.stripe)
    rows = []
    failed = False
    try:
        for kernel in args.kernels.split(","):
            exes = {}
            for mode in modes:
                exe = os.path.join(work, f"{kernel}.{mode}")
                log(f"[{kernel}] compiling mode={mode}")
                exes[mode] = (exe, compile_kernel(args, kernel, mode, exe))
            data = int(subprocess.run([exes["off"][0], "size"], capture_output=True, text=True,
                                      check=True).stdout.split()[0])
            buffer = max(stripe, int(data * args.buffer_fraction) // stripe * stripe)
            ref = None
            for mode in modes:
                exe, compile_s = exes[mode]
                datadir = os.path.join(work, "data")
                shutil.rmtree(datadir, ignore_errors=True)
                stats_file = os.path.join(work, f"{kernel}.{mode}.stats.json")
                env = {"IOPOLY_DIR": datadir, "IOPOLY_DISKS": str(args.disks), "IOPOLY_STRIPE": str(stripe),
                       "IOPOLY_BUFFER": str(buffer), "IOPOLY_DISK_MODEL": args.model, "IOPOLY_STATS": stats_file}
                log(f"[{kernel}] running mode={mode} (data {data >> 10} KiB, buffer {buffer >> 10} KiB)")
                wall, checksum, err = run_kernel(args, exe, env, work, args.run_timeout)
                row = {"kernel": kernel, "mode": mode, "data_bytes": data, "buffer_bytes": buffer,
                       "stripe_bytes": stripe, "disks": args.disks, "compile_seconds": compile_s,
                       "wall_seconds": wall, "checksum": checksum}
                if wall is None:
                    log(f"[{kernel}] mode={mode} stopped after {args.run_timeout:g} s")
                    row["timeout"] = True
                    rows.append(row)
                    continue
                if mode != "off":
                    st = json.load(open(stats_file))
                    for key in ("stripe_fetches", "distinct_stripes", "fetches_per_block", "modeled_io_seconds",
                                "io_seconds", "bytes_read", "bytes_written", "writebacks", "zero_fills"):
                        row[key] = st[key]
                if ref is None:
                    ref = checksum
                row["identical"] = checksum == ref
                failed |= not row["identical"]
                rows.append(row)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    hdr = f"{'kernel':<10} {'mode':<7} {'fetches':>9} {'fetch/blk':>9} {'modeled_io_s':>12} {'wall_s':>8}  checksum"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if r.get("timeout"):
            print(f"{r['kernel']:<10} {r['mode']:<7} {'-':>9} {'-':>9} {'-':>12} {'>' + format(args.run_timeout, 'g'):>8}"
                  "  (stopped: --run-timeout)")
        elif r["mode"] == "off":
            print(f"{r['kernel']:<10} {r['mode']:<7} {'-':>9} {'-':>9} {'-':>12} {r['wall_seconds']:>8.2f}  "
                  f"{r['checksum']}")
        else:
            print(f"{r['kernel']:<10} {r['mode']:<7} {r['stripe_fetches']:>9} {r['fetches_per_block']:>9.2f} "
                  f"{r['modeled_io_seconds']:>12.2f} {r['wall_seconds']:>8.2f}  {r['checksum']}"
                  + ("" if r["identical"] else "  <-- DIFFERS from mode=off"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if failed:
        log("run-kernels: some mode produced a different checksum than mode=off")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
