/*===- errors.c - Configuration errors of the mpiio backend ---------------===*
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Run with IOPOLY_BACKEND=mpiio and a broken setting (a malformed
 * IOPOLY_MPIIO_HINTS, a missing IOPOLY_MPIIO_MODULE, ...). iopoly_open must
 * return NULL, twice in a row (the failure is not half-remembered), and the
 * message must contain every argument given on the command line.
 *===----------------------------------------------------------------------===*/
#include "mpitest.h"

int main(int argc, char **argv) {
  mt_rank = mt_env_rank();
  size_t dims[1] = {4096};
  for (int attempt = 1; attempt <= 2; ++attempt) {
    iopoly_array *a = iopoly_open("errors", 1, 1, dims, IOPOLY_CREATE | IOPOLY_TRUNC);
    MT_CHECKF(a == NULL, "attempt %d: iopoly_open succeeded despite the broken configuration", attempt);
    const char *msg = iopoly_last_error();
    printf("attempt %d: %s\n", attempt, msg);
    MT_CHECKF(strstr(msg, "iopoly_open") != NULL, "the message does not name the function");
    for (int i = 1; i < argc; ++i)
      MT_CHECKF(strstr(msg, argv[i]) != NULL, "the message lacks \"%s\"", argv[i]);
  }
  return 0;
}
