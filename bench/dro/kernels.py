# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The kernels of bench/kernels/ in the disk-reuse benchmark, their sizes
and the targets of issue 4."""
import os

from bench.common import ROOT

KERNEL_DIR = os.path.join(ROOT, "bench", "kernels")

MODES = ["lower", "clo", "dro-l", "dro-wp"]

# name, what it models, -D of the runs, -D of the compile-time check at 10x
# per dimension (100x the data of a 2-D array).
KERNELS = [
    ("sweeps", "paper 1, Fig. 3: a row fill, column sums, a half-array row update and a column sweep of one array",
     ["-DN=768"], ["-DN=7680"]),
    ("transpose", "paper 1, section 4: U[i][j] = f(V[j][i]), one array walked by rows, the other by columns",
     ["-DN=768"], ["-DN=7680"]),
    ("reductions", "statistics passes (astro/hf class): four reductions over two arrays, by rows and by columns",
     ["-DN=768"], ["-DN=7680"]),
    ("multisweep", "image passes (sar/contour class): four nests over three arrays, rows and column halves",
     ["-DN=768"], ["-DN=7680"]),
    ("stencil", "time-stepped 5-point Jacobi (apsi/wupwise class): T steps, two half-steps each",
     ["-DN=1024", "-DT=4"], ["-DN=10240", "-DT=4"]),
    ("matmul", "paper 1, Fig. 4: blocked matrix product W += U * V",
     ["-DN=256", "-DB=32"], ["-DN=2560", "-DB=32"]),
]
QUICK_DEFS = {
    "sweeps": (["-DN=384"], ["-DN=3840"]),
    "transpose": (["-DN=384"], ["-DN=3840"]),
    "reductions": (["-DN=384"], ["-DN=3840"]),
    "multisweep": (["-DN=384"], ["-DN=3840"]),
    "stencil": (["-DN=512", "-DT=2"], ["-DN=5120", "-DT=2"]),
    "matmul": (["-DN=256", "-DB=32"], ["-DN=2560", "-DB=32"]),
}

# Targets of issue 4.
T_VS_LOWER = 0.30     # dro-wp cuts modeled I/O by >= 30% vs lower (suite average)
T_VS_CLO = 0.20       # ... and by >= 20% vs clo
T_FPB_LOWER = 3.0     # where lower fetches every block >= 3 times ...
T_FPB_DRO = 1.5       # ... dro-wp fetches it <= 1.5 times
T_COMPILE = 2.0       # compile time <= 2x plain clang-19 -O2
T_FLAT = 1.25         # "flat": compile time with 100x the data <= 1.25x
