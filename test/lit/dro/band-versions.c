// A symmetric rank-k update (PolyBench's syrk shape): the original order
// walks a column of A for every (i, k), the data-tiled versions keep that
// loop in its order, and Polly's own schedule interchanges the loops so that
// rows of A are read along k. dro-wp adds that schedule, tiled at a few tile
// sizes, to its versions; the runtime replays each version's footprint
// model at the run's buffer and runs the cheapest. Results are those of the
// original program. The file layouts stay row-major (layout=off): stored
// column-major, A would be read along its columns in the original order.
//
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=off %s -o %t.off
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=off -fplugin-arg-iopoly-versions=all -Rpass=iopoly %s -o %t.wp 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=off -Rpass=iopoly %s -o %t.def 2>&1 | FileCheck %s --check-prefix=PLAUSIBLE
// RUN: %iopoly_run %t.off > %t.off.out
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_VERBOSE=1 IOPOLY_STATS=%t.stats %t.wp > %t.wp.out 2> %t.wp.err
// RUN: cmp %t.off.out %t.wp.out
// RUN: FileCheck %s --check-prefix=CHOSEN < %t.wp.err
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64K IOPOLY_VERBOSE=1 %t.def > %t.def.out 2> %t.def.err
// RUN: cmp %t.off.out %t.def.out
// RUN: FileCheck %s --check-prefix=CHOSEN < %t.def.err
// All the data in the buffer: Polly's schedule as clo compiles it runs.
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_BUFFER=64M IOPOLY_VERBOSE=1 %t.def > %t.fit.out 2> %t.fit.err
// RUN: cmp %t.off.out %t.fit.out
// RUN: FileCheck %s --check-prefix=FIT < %t.fit.err
//
// threads=on keeps these versions too, on the calling thread: Polly's
// parallel code generation is kept off their loops (a mark above them; it
// crashed on PolyBench's deriche and adi, and outlined tiles would have no
// disk map for the task scheduler). Only the data-tiled and original
// versions' parallel loops are tasks: 2 here, 14 if the tiles' loops were
// outlined too. At 2 threads the choice, the fetches and the output are
// the one-thread build's.
// RUN: %iopoly_clang -O2 -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-layout=off -fplugin-arg-iopoly-threads=on \
// RUN:   -Rpass=iopoly %s -o %t.thr 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: rm -rf %t.data && mkdir -p %t.data
// RUN: %iopoly_run IOPOLY_THREADS=2 IOPOLY_BUFFER=64K IOPOLY_VERBOSE=1 IOPOLY_STATS=%t.thr.stats %t.thr > %t.thr.out 2> %t.thr.err
// RUN: cmp %t.off.out %t.thr.out
// RUN: FileCheck %s --check-prefix=CHOSEN < %t.thr.err
// RUN: FileCheck %s --check-prefix=STATS < %t.thr.stats
// THREADS-DAG: remark: threads: 2 loop(s) that Polly's dependences prove parallel run as tasks
// THREADS-DAG: remark: dro-wp: tiled the loops here in Polly's schedule: {{.*}}versions: Polly's schedule in tiles of {{[0-9, ]+}}, Polly's schedule as in mode=clo {{.*}}and the original order
//
// By default (versions=plausible) only the versions the run-time choice
// takes for some plausible run are compiled: here none of the data-tiled
// ones; at this buffer one of Polly's tiled schedules is chosen.
// PLAUSIBLE: remark: dro-wp: tiled the loops here in Polly's schedule: {{.*}}(by their data: no plausible run needs those versions); versions: Polly's schedule in tiles of {{[0-9, ]+}}, Polly's schedule as in mode=clo (for data that fit the buffer{{(, and wherever its model is the cheapest)?}}) and the original order
//
// REMARK: remark: dro-wp: tiled the loops here {{.*}}versions: {{.*}}Polly's schedule in tiles of 4, 8, 16, 32{{.*}} and the original order, one chosen at run time
// CHOSEN: iopoly: loops at {{.*}}band-versions.c:{{[0-9]+}}: version {{[0-9]+}} of {{[0-9]+}} chosen for 4096-byte stripes and a buffer of 16 stripes
// CHOSEN-SAME: (tiles of
// The original order fetches about 350,000 stripes at this buffer, Polly's
// tiling (clo) about 1,200; the chosen version fewer than 1,000.
// STATS: "stripe_fetches":{{[0-9][0-9]?[0-9]?}},
// FIT: iopoly: loops at {{.*}}band-versions.c:{{[0-9]+}}: version [[V:[0-9]+]] of {{[0-9]+}} chosen
// FIT-SAME: {{ }}[[V]]: {{[0-9]+}}/0/0.00 (Polly's schedule as in mode=clo, for data that fit)
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
