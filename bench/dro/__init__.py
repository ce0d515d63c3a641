# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The disk-reuse restructuring benchmark on bench/kernels (scripts/bench-dro.sh)."""
