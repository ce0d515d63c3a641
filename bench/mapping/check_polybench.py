# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks distributed loops on code we did not write: every PolyBench/C
4.2.1 kernel, built by iopoly-mpicc -fplugin-arg-iopoly-mpi=on with an MPI
main around its own (bench/mapping/polybench.py), must dump exactly what
PolyBench's plain build dumps, on every rank, at every rank count.

    python3 -m bench.mapping.check_polybench <polybench-dir> [--dataset MINI]
        [--ranks 1,2,3,4] [--mapping cache] [--kernels gemm,mvt]

Prints one line per kernel (loops distributed, loops left whole, the result
at each rank count) and exits 1 if any rank of any run differs or fails.
"""
import argparse
import os
import re
import subprocess
import sys

from . import common
from . import polybench
from ..polybench import prepare as pbprep

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_ranks(exe, np, data, timeout):
    """Each rank's stderr (PolyBench dumps there), or raises."""
    out_dir = data + ".out"
    common.fresh_dir(data)
    common.fresh_dir(out_dir)
    env = {"IOPOLY_DIR": data, "IOPOLY_THRASH": "0", "OMPI_MCA_btl": "self,vader"}
    common.run(common.launcher(np) + ["--output-filename", out_dir, exe], env=env, timeout=timeout)
    errs = []
    for r in range(np):
        path = os.path.join(out_dir, "1", "rank.%d" % r, "stderr")
        with open(path) as f:
            errs.append(f.read())
    return errs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("polybench", help="a PolyBench/C 4.2.1 directory")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build tree (bin/iopoly-mpicc)")
    p.add_argument("--work", default=os.path.join(ROOT, "build", "check-polybench-mpi"), help="scratch directory")
    p.add_argument("--dataset", default="MINI", help="PolyBench dataset (MINI, SMALL, MEDIUM, ...)")
    p.add_argument("--ranks", default="1,2,3,4", help="rank counts")
    p.add_argument("--mapping", default="cache", help="-fplugin-arg-iopoly-mapping")
    p.add_argument("--kernels", default="", help="comma list of kernel names (default: all 30)")
    p.add_argument("--timeout", type=int, default=300, help="seconds per run")
    a = p.parse_args(argv)
    paths = pbprep.KERNELS
    if a.kernels:
        want = a.kernels.split(",")
        paths = [k for k in pbprep.KERNELS if pbprep.kernel_name(k) in want]
        missing = set(want) - {pbprep.kernel_name(k) for k in paths}
        if missing:
            sys.exit("unknown PolyBench kernels: %s" % ", ".join(sorted(missing)))
    mpicc = os.path.join(os.path.abspath(a.build), "bin", "iopoly-mpicc")
    b = polybench.Builder(a.polybench, os.path.abspath(a.work), mpicc, os.path.join(ROOT, "include"), a.dataset)
    ranks = [int(x) for x in a.ranks.split(",")]
    flags = ["-fplugin-arg-iopoly-mpi=on", "-fplugin-arg-iopoly-mapping=" + a.mapping, "-Rpass=iopoly",
             "-Rpass-missed=iopoly"]
    bad = 0
    for path in paths:
        name = pbprep.kernel_name(path)
        try:
            plain = subprocess.run([b.serial(path)], capture_output=True, text=True, check=True)
            want = polybench.dump_digest(plain.stderr)
            exe = os.path.join(b.work, "bin", name + ".mpi")
            remarks = b.mpi(path, flags, exe)
        except (subprocess.CalledProcessError, RuntimeError) as e:
            print("%-16s BUILD FAILED: %s" % (name, str(e).splitlines()[0]))
            bad += 1
            continue
        dist = len(re.findall(r"remark: distributed this loop", remarks))
        whole = len(re.findall(r"remark: loop not distributed", remarks))
        cells = []
        for np in ranks:
            try:
                errs = run_ranks(exe, np, os.path.join(b.work, "data", name), a.timeout)
                wrong = [r for r, e in enumerate(errs) if polybench.dump_digest(e) != want]
                cells.append("np %d %s" % (np, "ok" if not wrong else "WRONG on ranks %s" % wrong))
                bad += bool(wrong)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                cells.append("np %d FAILED" % np)
                print(str(e)[-1500:], file=sys.stderr)
                bad += 1
        print("%-16s %d loop%s distributed, %d left whole: %s" % (name, dist, "" if dist == 1 else "s", whole,
                                                                  ", ".join(cells)), flush=True)
    print("%s: %d kernels, %s ranks, dataset %s, mapping %s" % (
        "all identical to the plain build" if not bad else "%d FAILURES" % bad, len(paths), a.ranks, a.dataset,
        a.mapping))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
