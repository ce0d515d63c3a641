/* reopen_shape.c - another program opens a disk-resident global of
 * cxx_names.cpp by name, with the shape it was declared with (issue 9: the
 * files of globals recorded elem_size 1, dims <bytes>). Built without the
 * plugin; prints the element it reads. */
#include "iopoly.h"
#include <stdio.h>

int main(void) {
  size_t dims[2] = {64, 48};
  iopoly_array *a = iopoly_open("grid.B", sizeof(double), 2, dims, IOPOLY_RDONLY);
  if (!a) {
    fprintf(stderr, "reopen_shape: %s\n", iopoly_last_error());
    return 1;
  }
  size_t off = iopoly_offset(a, (size_t[]){10, 7});
  size_t bs = iopoly_block_size();
  const double *blk = iopoly_attach(a, off / bs, IOPOLY_READ);
  if (!blk) {
    fprintf(stderr, "reopen_shape: %s\n", iopoly_last_error());
    return 1;
  }
  printf("grid.B[10][7] = %g\n", blk[(off % bs) / sizeof(double)]);
  iopoly_release(a, off / bs);
  iopoly_close(a);
  size_t wrong[1] = {64 * 48 * 8};
  if (iopoly_open("grid.B", 1, 1, wrong, IOPOLY_RDONLY) == NULL)
    printf("as bytes: %s\n", iopoly_last_error());
  return 0;
}
