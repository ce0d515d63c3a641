/* emit.h - writes arrays to stdout byte for byte, for the bit-identical
 * comparison of a lowered build with the mode=off build. The loop reads
 * element by element, so the reads are lowered like the kernel's own. */
#include <stdio.h>
#include <stddef.h>

static void emit_bytes(const char *name, const unsigned char *p, size_t n) {
  unsigned char buf[4096];
  size_t k = 0;
  printf("%s %zu\n", name, n);
  fflush(stdout);
  for (size_t i = 0; i < n; ++i) {
    buf[k++] = p[i];
    if (k == sizeof buf || i + 1 == n) {
      fwrite(buf, 1, k, stdout);
      k = 0;
    }
  }
  printf("\n");
}
#define EMIT(a) emit_bytes(#a, (const unsigned char *)(a), sizeof(a))
