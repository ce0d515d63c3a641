# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PolyBench/C 4.2.1 with every array disk-resident (scripts/bench-polybench.sh)."""
