# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The iteration-to-rank mapping benchmark (paper 2): scripts/bench-mapping.sh."""
