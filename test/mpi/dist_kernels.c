/*===- dist_kernels.c - Loops distributed over the ranks, serial results --===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Built with iopoly-mpicc -fplugin-arg-iopoly-mpi=on (and a mapping): the
 * parallel loops below run on every rank with each rank's share of the
 * iterations, the disk-resident globals are shared, and each loop ends with
 * a sync point. Every rank then prints a checksum of all arrays, which must
 * be the serial (mode=off, one process) program's. The program is the serial
 * code: it calls MPI_Init and MPI_Finalize only. Loops: an initialization,
 * a row stencil, paper 2's Fig. 6 (iteration chunks of chunk-sized rows),
 * a time loop whose inner loops are distributed, a loop picked by
 * '#pragma iopoly distribute', a recurrence and a reduction that stay
 * serial (every rank runs them whole); arrays of iopoly_alloc (shared once
 * MPI runs; W's elements known to the runtime, iopoly_alloc_elems, so that
 * a rank's changed elements go back joined) whose initialization reads the
 * loop's exit test as a value, and a triangle over them that stays serial.
 *===----------------------------------------------------------------------===*/
#include <iopoly.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define N 192
#define D 512
double A[N][N], B[N][N], F[12 * D], G[8 * D], U[N * N], V[N * N];
#pragma iopoly disk_resident(A, B, F, G, U, V)

static uint64_t h = 1469598103934665603ULL;
static void mix(double x) {
  union { double d; uint64_t u; } c = {x};
  h = (h ^ c.u) * 1099511628211ULL;
}

/* PolyBench mvt's init_array: the optimizer computes (i + 1) % n as
 * i + 1 == n ? 0 : i + 1 with the loop's own exit test, which the
 * distributed loop's pieces end early. */
static void init_rows(int n, double *x, double *y, double (*w)[N]) {
#pragma iopoly disk_resident(x, y, w)
  for (int i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    y[i] = (double)((i + 1) % n) / n;
    for (int j = 0; j < n; j++)
      w[i][j] += (double)(i * j % n) / n;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double(*W)[N] = iopoly_alloc_elems("W", (size_t)N * N, sizeof(double), IOPOLY_CREATE | IOPOLY_TRUNC);
  double *X = iopoly_alloc_flags("X", sizeof(double) * N, IOPOLY_CREATE | IOPOLY_TRUNC);
  double *Y = iopoly_alloc_flags("Y", sizeof(double) * N, IOPOLY_CREATE | IOPOLY_TRUNC);
#pragma iopoly disk_resident(W, X, Y)
  if (!W || !X || !Y) {
    fprintf(stderr, "iopoly_alloc: %s\n", iopoly_last_error());
    return 1;
  }
  init_rows(N, X, Y, W);
  /* Bounds that follow k: not distributed (every rank runs it whole). */
  for (int k = 1; k < N; ++k)
    for (int i = 0; i < k; ++i)
      W[k][i] += W[k - 1][i] * 0.25;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      A[i][j] = i * 0.5 + j * 0.125;
  for (int i = 0; i < 12 * D; ++i)
    F[i] = (i % 97) * 0.25;
  for (int i = 0; i < N * N; ++i)
    V[i] = (i % 31) * 1.5;
  for (int i = 1; i < N - 1; ++i)
    for (int j = 0; j < N; ++j)
      B[i][j] = A[i - 1][j] + A[i + 1][j] + 2.0 * A[i][j];
  for (int c = 0; c < 8; ++c)
    for (int x = 0; x < D; ++x) {
      int i = c * D + x;
      G[i] = F[i] + F[x] + F[i + 4 * D] + F[i + 2 * D];
    }
  for (int t = 0; t < 3; ++t) {
    for (int i = 1; i < N * N - 1; ++i)
      U[i] = 0.5 * (V[i - 1] + V[i + 1]);
    for (int i = 1; i < N * N - 1; ++i)
      V[i] = U[i] + 0.25;
  }
  /* A carried dependence: not distributed, every rank runs it whole over
   * the shared U (larger than the buffer), updating every element in place;
   * each update must land once, not once per rank. The ranks start it out
   * of step, as they would on a loaded machine. */
  usleep(20000 * (unsigned)rank);
  for (int i = 1; i < N * N; ++i)
    U[i] = U[i] * 0.5 + U[i - 1] * 0.25;
  for (int k = 0; k < 3; ++k)
#pragma iopoly distribute
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        A[i][j] = B[i][j] * 0.5 + A[i][j] * k;
  double s = 0;
  for (int i = 1; i < N; ++i)
    s += A[i][i] - A[i - 1][i];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      mix(A[i][j]);
      mix(B[i][j]);
    }
  for (int i = 0; i < 8 * D; ++i)
    mix(G[i]);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      mix(W[i][j]);
  for (int i = 0; i < N; ++i)
    mix(X[i] + Y[i]);
  for (int i = 0; i < N * N; ++i)
    mix(U[i] + V[i]);
  mix(s);
  printf("rank %d: checksum %016llx\n", rank, (unsigned long long)h);
  MPI_Finalize();
  return 0;
}
