# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The lowering-overhead benchmark of issue 9 (PolyBench/C 4.2.1 with its data in the buffer)."""
