// threads=on keeps Polly's schedule in tiles among the run-time versions
// (PolyBench's syrk shape, as in dro/band-versions.c): where the run-time
// choice takes one, it runs on the calling thread. Polly's parallel code
// generation is kept off those versions' loops (a mark above them): it
// crashed on PolyBench's deriche and adi, and outlined tiles would have no
// disk map for the task scheduler. Here only the data-tiled and original
// versions' parallel loops are tasks: 2 of them, 14 if the tiles' loops
// were outlined too. At 2 threads the chosen version, its fetches and the
// program's output are those of the one-thread build.
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=off -fplugin-arg-iopoly-threads=on \
// RUN:   -Rpass=iopoly %s -o %t.thr 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_THREADS=2 IOPOLY_BUFFER=64K IOPOLY_VERBOSE=1 IOPOLY_STATS=%t.stats %t.thr > %t.thr.out 2> %t.thr.err
// RUN: cmp %t.off.out %t.thr.out
// RUN: FileCheck %s --check-prefix=CHOSEN < %t.thr.err
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
//
// REMARK-DAG: remark: threads: 2 loop(s) that Polly's dependences prove parallel run as tasks
// REMARK-DAG: remark: dro-wp: tiled the loops here in Polly's schedule: {{.*}}versions: Polly's schedule in tiles of {{[0-9, ]+}}, Polly's schedule as in mode=clo {{.*}}and the original order
// CHOSEN: iopoly: loops at {{.*}}band-versions.c:{{[0-9]+}}: version {{[0-9]+}} of {{[0-9]+}} chosen for 4096-byte stripes and a buffer of 16 stripes
// CHOSEN-SAME: (tiles of
// The original order fetches about 350,000 stripes at this buffer, Polly's
// tiles fewer than 1,000.
// STATS: "stripe_fetches":{{[0-9][0-9]?[0-9]?}},
#include <iopoly.h>
#include <stdio.h>

#define N 160
#define M 128

static double C[N][N], A[N][M];
#pragma iopoly disk_resident(C, A)

int main(void) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < M; k++)
      A[i][k] = (double)((i * k + 1) % N) / N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      C[i][j] = (double)((i * j + 2) % M) / M;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= 1.2;
    for (int k = 0; k < M; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += 1.5 * A[i][k] * A[j][k];
  }
  double S = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      S += C[i][j] * (i + 1) + j;
  printf("%.10e\n", S);
  return 0;
}
