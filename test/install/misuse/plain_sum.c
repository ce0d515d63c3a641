/*===- plain_sum.c - A function compiled without the plugin (test/install) -===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Built with plain clang-19, into an object or a shared library: it reads
 * through an ordinary pointer, which it may be handed disk-resident memory.
 *===----------------------------------------------------------------------===*/
double plain_sum(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  return s;
}
