/* Regression (test/random): last-bit differences from llvm.fmuladd.
 *
 * Found by run_random.py (seed 31 at -O2: mode=clo, dro-l and dro-wp of the
 * working tree of 2026-11-23 printed the last element of B 1 ulp away from
 * mode=off). Not a miscompile: with clang's default -ffp-contract=on,
 * "k * 0.7 - 10.25" becomes llvm.fmuladd, which may or may not be fused.
 * clang-19 -O2 (mode=off, mode=lower) folds the loop's last iteration to a
 * constant, fused (0x1.c7fffffffffffp+3, stored by "movq %rax,
 * B+318736(%rip)"); the Polly modes compute it at run time on x86-64
 * without FMA, unfused (0x1.c8p+3). With -ffp-contract=off every build
 * prints 0x1.c8p+3, so run_random.py compiles everything with it
 * (BASE_CFLAGS). Bit-identical comparisons elsewhere (test/e2e, the demo's
 * checksums) can hit the same thing.
 *
 *   for m in off clo; do build/bin/iopoly-clang -O2 \
 *     -fplugin-arg-iopoly-mode=$m -fplugin-arg-iopoly-stripe=4K \
 *     -fplugin-arg-iopoly-disks=4 test/random/regressions/fp_contract_fold.c \
 *     -o fp.$m; rm -rf d; mkdir d; env IOPOLY_DIR=$PWD/d IOPOLY_DISKS=4 \
 *     IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none \
 *     IOPOLY_DIRECT=off ./fp.$m | tail -1; done
 *   => 39842 0x1.c7fffffffffffp+3 (off), 39842 0x1.c8p+3 (clo)
 */
#include <stdio.h>
double B[39843];
#pragma iopoly disk_resident(B)
int main(void) {
  for (int p = 0; p < 39843; ++p)
    B[p] = (double)((unsigned)(46 * p + 958) % 101u) * 0.7 - 10.25;
  for (int p = 39838; p < 39843; ++p)
    printf("%d %a\n", p, B[p]);
  return 0;
}
