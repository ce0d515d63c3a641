# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Locality sets run as tasks on threads (paper 1, section 5): the G and
naive policies against the single-thread order (scripts/bench-threads.sh)."""
