# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PolyBench/C 4.2.1 kernels as programs of the mapping benchmark.

Code we did not write: each kernel is prepared as for bench/polybench
(every array disk-resident, polybench_alloc_data routed to iopoly_alloc, see
bench/polybench/prepare.py), its `main` renamed, and linked with a small
MPI main (written here) that calls MPI_Init, the kernel's main and
MPI_Finalize, which is all an SPMD user adds. iopoly-mpicc
-fplugin-arg-iopoly-mpi=on then distributes the loops Polly finds parallel;
the arrays, allocated after MPI_Init, are shared by the ranks.

The kernels are compiled without POLYBENCH_DUMP_ARRAYS. With MAPK_CHECKSUM
unset the MPI main asks PolyBench for its dump (PolyBench prints the arrays
when argc > 42 and argv[0] is ""), whose digest is the program's checksum;
measured runs (MAPK_CHECKSUM=off) skip it, as the bench's own kernels skip
their checksum loops, and are checked by their array files instead.
"""
import hashlib
import os
import subprocess

from ..polybench import prepare as pbprep

# Kernels whose outermost loops carry no dependence (Polly's analysis
# distributes them), at the MEDIUM dataset: 0.5 to 2.5 MiB, about what the
# bench's own kernels use. Not 2mm, 3mm, syrk or syr2k: their innermost
# loops walk a matrix down its columns, a stripe per access, and every miss
# of a rank's small cache is a round trip through two server processes on
# this 2-core machine (2mm: more than 10 minutes a run).
KERNELS = {
    "pb-gemm": "linear-algebra/blas/gemm",
    "pb-mvt": "linear-algebra/kernels/mvt",
    "pb-atax": "linear-algebra/kernels/atax",
    "pb-gesummv": "linear-algebra/blas/gesummv",
    "pb-doitgen": "linear-algebra/kernels/doitgen",
    "pb-jacobi-2d": "stencils/jacobi-2d",
}
DATASET = "MEDIUM"
# MEDIUM's grid with 4 time steps instead of 100: every step ends two
# distributed loops with sync points of 8 (real) or 64 (simulated) ranks on
# 2 cores, and 100 steps take over 15 minutes a run.
SIZES = {"pb-jacobi-2d": ["-DTSTEPS=4", "-DN=250"]}

MPI_MAIN_C = r"""/* Written by bench/mapping/polybench.py: the MPI main of a PolyBench
 * kernel (its own main renamed pb_main). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_main(int argc, char **argv);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *E = getenv("MAPK_CHECKSUM");
  int dump = !E || strcmp(E, "off") != 0;
  /* PolyBench dumps its arrays when argc > 42 and argv[0] is "". */
  static char empty[] = "";
  char *quiet[44];
  for (int k = 0; k < 43; ++k)
    quiet[k] = empty;
  quiet[43] = NULL;
  int r = dump ? pb_main(43, quiet) : pb_main(argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("%s rank %d checksum %s\n", KERNEL, rank, dump ? "dumped" : "skipped");
  fflush(stdout);
  MPI_Finalize();
  return r;
}
"""


def is_polybench(kernel):
    return kernel in KERNELS


def dump_digest(stderr):
    """Digest of PolyBench's array dump in \\p stderr (the runtime's own
    notes and warnings, also on stderr, are not part of it)."""
    start, end = stderr.find("==BEGIN DUMP_ARRAYS=="), stderr.rfind("==END   DUMP_ARRAYS==")
    if start < 0 or end < 0:
        raise RuntimeError("no PolyBench array dump in the program's output:\n" + stderr[-2000:])
    lines = [ln for ln in stderr[start:end].splitlines() if not ln.startswith("iopoly: ")]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


class Builder:
    """Builds the PolyBench programs of one PolyBench directory. Kernels are
    the names of KERNELS or any path of bench/polybench/prepare.KERNELS."""

    def __init__(self, polybench_dir, work, mpicc, include, dataset=DATASET):
        self.dir = os.path.abspath(polybench_dir)
        self.work = os.path.join(work, "polybench-" + dataset)
        self.mpicc = mpicc
        self.include = include
        self.dataset = dataset

    def _flags(self, src, kernel=None):
        return (["-D%s_DATASET" % self.dataset, "-DPOLYBENCH_INTER_ARRAY_PADDING_FACTOR=0"] + SIZES.get(kernel, []) +
                src["includes"])

    @staticmethod
    def _path(kernel):
        return KERNELS.get(kernel, kernel)

    def _objects(self, src):
        """PolyBench's utilities as is, without their allocation, alloc.c."""
        return pbprep.build_utilities(src, self._flags(src), self.include, os.path.join(self.work, "util"))

    def serial(self, kernel):
        """The plain build (ordinary memory, no plugin), which dumps."""
        src = pbprep.prepare(self.dir, self._path(kernel), os.path.join(self.work, "src"))
        out = os.path.join(self.work, "bin", src["name"] + ".plain")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        orig = os.path.join(self.dir, self._path(kernel), src["name"] + ".c")
        plain, _, _ = self._objects(src)
        subprocess.run(["clang-19", "-O2", "-DPOLYBENCH_DUMP_ARRAYS"] + self._flags(src, kernel) +
                       [orig, plain, "-lm", "-o", out], check=True)
        return out

    def mpi(self, kernel, flags, out):
        """The kernel built by iopoly-mpicc with `flags` into `out`; returns
        the compiler's messages (its remarks)."""
        src = pbprep.prepare(self.dir, self._path(kernel), os.path.join(self.work, "src"))
        main_c = os.path.join(self.work, "src", src["name"] + "-mpi-main.c")
        with open(main_c, "w") as f:
            f.write(MPI_MAIN_C)
        obj = out + ".o"
        os.makedirs(os.path.dirname(out), exist_ok=True)
        msgs = _compile([self.mpicc, "-O2"] + self._flags(src, kernel) + flags + ["-Dmain=pb_main", "-c", src["source"],
                                                                          "-o", obj])
        _, renamed, alloc = self._objects(src)
        _compile([self.mpicc, "-O2", '-DKERNEL="%s"' % src["name"], main_c, obj, renamed, alloc] + flags +
                 ["-lm", "-o", out])
        return msgs


def _compile(cmd):
    """Runs a compiler; its messages, or RuntimeError with them."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("compile failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-3000:]))
    return p.stderr
