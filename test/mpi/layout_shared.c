/*===- layout_shared.c - A file layout on an array the ranks share ----------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Built by iopoly-mpicc with an explicit layout (V column-major) and no
 * loop distribution: V and U are allocated after MPI_Init, so the ranks
 * share them, and every rank's compiled code records V's layout in the
 * shared files' headers (__iopoly_alloc_layout, collective). Every rank
 * runs the loops whole and prints the checksum of the serial program.
 *===----------------------------------------------------------------------===*/
#include <iopoly.h>
#include <mpi.h>
#include <stdio.h>
#define N 192
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double(*V)[N] = iopoly_alloc_flags("V", sizeof(double) * N * N, IOPOLY_CREATE | IOPOLY_TRUNC);
  double(*U)[N] = iopoly_alloc_elems("U", (size_t)N * N, sizeof(double), IOPOLY_CREATE | IOPOLY_TRUNC);
#pragma iopoly disk_resident(U, V)
  if (!V || !U) {
    fprintf(stderr, "iopoly_alloc: %s\n", iopoly_last_error());
    return 1;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      V[i][j] = i + j * 0.5;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      U[i][j] = 2 * V[j][i] + V[j][i] * V[j][i];
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += U[i][j] * (i + 1);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %.6f\n", rank, s);
  MPI_Finalize();
  return 0;
}
