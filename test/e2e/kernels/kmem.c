/* memset/memcpy/memmove on disk-resident memory (written by hand and
 * produced by loop idiom recognition), an initialized disk-resident global,
 * and copies between disk-resident and ordinary memory. */
#include "emit.h"
#include <string.h>
#define N 50000
double A[N], B[N];
int Table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
char Bytes[30011];
#pragma iopoly disk_resident(A, B, Table, Bytes)
static double Plain[N];

int main(void) {
  memset(A, 0, sizeof A);
  for (int i = 0; i < N; ++i)
    B[i] = 0.0; /* becomes a memset at -O2 */
  for (int i = 0; i < N; ++i)
    A[i] = i * 0.5 + Table[i % 8];
  memcpy(B, A, sizeof(double) * (N / 2));
  memmove(A + 3, A, sizeof(double) * 1000); /* overlapping, forward */
  memmove(A + 5000, A + 5003, sizeof(double) * 2000); /* overlapping, backward */
  for (int i = 0; i < N; ++i)
    Plain[i] = B[i];                        /* disk -> ordinary: a memcpy at -O2 */
  memcpy(B + N / 2, Plain, sizeof(double) * (N / 2));
  memset(Bytes, 'x', sizeof Bytes);
  memset(Bytes + 100, 'y', 9000);
  for (int i = 0; i < 8; ++i)
    Table[i] *= 10;
  EMIT(A);
  EMIT(B);
  EMIT(Table);
  EMIT(Bytes);
  return 0;
}
