# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Turns a PolyBench/C 4.2.1 kernel into an iopoly benchmark program.

Nothing of PolyBench is copied into this repository: the sources are read
from the directory the user gives, and the prepared copies go to a scratch
directory.

* Every function with array parameters (init_array, kernel_*, print_array)
  gets `#pragma iopoly disk_resident(<its array parameters>)` as the first
  line of its body, so that every array is disk-resident.
* After `#include <polybench.h>`, polybench_alloc_data is declared
  `__attribute__((malloc, alloc_size(1, 2)))` (what it is) and
  POLYBENCH_FREE_ARRAY releases nothing (the arrays live until exit), so
  that the compiler sees every use of each array and may choose its file
  layout.
* `alloc.c` (written here) replaces polybench.c's allocation:
  polybench_alloc_data calls iopoly_alloc_elems (a fresh array per
  allocation, of PolyBench's elements: in MPI programs a rank's changed
  elements go back as whole runs) and polybench_free_data leaves the arrays to the runtime's
  exit (main's lowered accesses may still hold stripes); the kernels are
  compiled with -DPOLYBENCH_INTER_ARRAY_PADDING_FACTOR=0 (which turns on
  POLYBENCH_ENABLE_INTARRAY_PAD) so that they free through
  polybench_free_data. The reference build (mode=off) uses PolyBench's own
  polybench.c with the same flags, on ordinary memory.
* With apart=True the kernel_* function is compiled as if in a library:
  external and never inlined (`__attribute__((noinline))`, `static`
  dropped), so that its sizes reach it as parameters, not as constants
  the optimizer propagates from main. That is how users' kernels look.
"""
import os
import re
import subprocess
import threading

# Every kernel of PolyBench/C 4.2.1 (utilities/benchmark_list), in its order.
KERNELS = [
    "datamining/correlation", "datamining/covariance",
    "linear-algebra/kernels/2mm", "linear-algebra/kernels/3mm", "linear-algebra/kernels/atax",
    "linear-algebra/kernels/bicg", "linear-algebra/kernels/doitgen", "linear-algebra/kernels/mvt",
    "linear-algebra/blas/gemm", "linear-algebra/blas/gemver", "linear-algebra/blas/gesummv",
    "linear-algebra/blas/symm", "linear-algebra/blas/syr2k", "linear-algebra/blas/syrk",
    "linear-algebra/blas/trmm", "linear-algebra/solvers/cholesky", "linear-algebra/solvers/durbin",
    "linear-algebra/solvers/gramschmidt", "linear-algebra/solvers/lu", "linear-algebra/solvers/ludcmp",
    "linear-algebra/solvers/trisolv", "medley/deriche", "medley/floyd-warshall", "medley/nussinov",
    "stencils/adi", "stencils/fdtd-2d", "stencils/heat-3d", "stencils/jacobi-1d", "stencils/jacobi-2d",
    "stencils/seidel-2d",
]

ALLOC_C = r"""/* Written by bench/polybench/prepare.py: PolyBench's allocation routed to
 * the iopoly runtime, so that every array is disk-resident. */
#include <iopoly.h>
#include <stdio.h>
#include <stdlib.h>

void *polybench_alloc_data(unsigned long long int n, int elt_size) {
  static int count;
  char name[32];
  snprintf(name, sizeof name, "pb%d", count++);
  void *p = iopoly_alloc_elems(name, (size_t)n, (size_t)elt_size, IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!p) {
    fprintf(stderr, "polybench_alloc_data: %s\n", iopoly_last_error());
    exit(1);
  }
  return p;
}

/* Nothing to do: the runtime writes the arrays back and closes them at
 * exit. (iopoly_free here would fail: main's lowered accesses may still
 * hold stripes of the array until main returns.) */
void polybench_free_data(void *ptr) { (void)ptr; }
"""

# Common flags of every build (reference and plugin builds).
DEFINES = ["-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_INTER_ARRAY_PADDING_FACTOR=0"]

_ARRAY_PARAM = re.compile(r"POLYBENCH_[1-5]D\s*\(\s*(\w+)\s*,")
_FUNC_START = re.compile(r"\bvoid\s+(\w+)\s*\(")


def _functions(source):
    """(name, parameter text, offset just after the body's '{') of every
    void function definition."""
    for m in _FUNC_START.finditer(source):
        depth, k = 1, m.end()
        while k < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[k], 0)
            k += 1
        params = source[m.end():k - 1]
        rest = source[k:]
        body = re.match(r"\s*\{", rest)
        if body:
            yield m.group(1), params, k + body.end()


def kernel_name(path):
    return os.path.basename(path)


def annotate(source):
    """The source with the pragma added to every function with array
    parameters; returns (text, {function: [arrays]})."""
    out, pos, found = [], 0, {}
    for name, params, body in _functions(source):
        arrays = _ARRAY_PARAM.findall(params)
        if not arrays:
            continue
        found[name] = arrays
        out.append(source[pos:body])
        out.append("\n#pragma iopoly disk_resident(%s)\n" % ", ".join(arrays))
        pos = body
    out.append(source[pos:])
    return _declare_allocation(_annotate_locals("".join(out))), found


# After polybench.h: what its allocation routine is, said the way any C
# compiler understands (a fresh block of n * elt_size bytes), so that the
# plugin sees every use of each array and may choose its file layout; the
# arrays are released at exit, by the runtime in the iopoly builds (whose
# polybench_free_data is a no-op anyway) and by the system in the
# reference build.
ALLOCATION_DECL = """#include <polybench.h>
/* Added by iopoly's bench/polybench/prepare.py: */
void *polybench_alloc_data(unsigned long long int n, int elt_size) __attribute__((malloc, alloc_size(1, 2)));
#undef POLYBENCH_FREE_ARRAY
#define POLYBENCH_FREE_ARRAY(x)
"""


def _declare_allocation(text):
    out, n = re.subn(r"^#include <polybench.h>[ \t]*\n", lambda m: ALLOCATION_DECL, text, count=1, flags=re.M)
    if n != 1:
        raise ValueError("no `#include <polybench.h>` line to declare the allocation after")
    return out


# A temporary array of a helper (cholesky's, lu's and ludcmp's init_array
# build a positive semi-definite matrix in a local B): declared by
# POLYBENCH_nD_ARRAY_DECL, allocated by polybench_alloc_data, so on disk
# too, and named by a pragma after its declaration. main's arrays reach the
# functions as parameters and need none.
_LOCAL_DECL = re.compile(r"^([ \t]*)POLYBENCH_[1-5]D_ARRAY_DECL\s*\(\s*(\w+)\s*,.*?;[ \t]*\n", re.M)


def _annotate_locals(text):
    main = re.search(r"^int\s+main\s*\(", text, re.M)
    head, tail = (text[:main.start()], text[main.start():]) if main else (text, "")

    def add(m):
        return m.group(0) + "%s#pragma iopoly disk_resident(%s)\n" % (m.group(1), m.group(2))

    return _LOCAL_DECL.sub(add, head) + tail


def compile_apart(text):
    """The source with its kernel_* functions external and not inlined."""
    out, n = re.subn(r"(?:\bstatic\s+)?\bvoid(\s+kernel_\w+\s*\()", r"__attribute__((noinline)) void\1", text, count=1)
    if n != 1:
        raise ValueError("no `void kernel_*(` definition to compile apart")
    return out


def prepare(polybench_dir, kernel, workdir, apart=False):
    """Writes <workdir>/<name>/<name>.c (annotated), alloc.c and returns a
    dict with the paths and the compile flags."""
    name = kernel_name(kernel)
    src_dir = os.path.join(polybench_dir, kernel)
    src = os.path.join(src_dir, name + ".c")
    if not os.path.isfile(src):
        raise FileNotFoundError(f"PolyBench kernel source not found: {src}")
    util = os.path.join(polybench_dir, "utilities")
    if not os.path.isfile(os.path.join(util, "polybench.c")):
        raise FileNotFoundError(f"not a PolyBench/C 4.2.1 directory (no utilities/polybench.c): {polybench_dir}")
    with open(src) as f:
        text, funcs = annotate(f.read())
    if apart:
        text = compile_apart(text)
    if not any(f.startswith("kernel_") for f in funcs):
        raise ValueError(f"{src}: no kernel_* function with array parameters found")
    dest = os.path.join(workdir, name)
    os.makedirs(dest, exist_ok=True)
    out = os.path.join(dest, name + ".c")
    with open(out, "w") as f:
        f.write(text)
    alloc = os.path.join(workdir, "iopoly_alloc.c")
    # Shared by the kernels of a size (measured in parallel with --jobs):
    # replaced atomically, never seen half-written.
    tmp = f"{alloc}.{os.getpid()}.{threading.get_ident()}"
    with open(tmp, "w") as f:
        f.write(ALLOC_C)
    os.replace(tmp, alloc)
    return {
        "name": name, "source": out, "alloc": alloc, "polybench_c": os.path.join(util, "polybench.c"),
        "includes": ["-I" + util, "-I" + src_dir], "functions": funcs,
    }


def build_utilities(src, defs, include, util_dir):
    """polybench.c as is (the reference builds), polybench.c with its
    allocation renamed away and alloc.c (the iopoly builds), compiled into
    \p util_dir unless already there; returns the three objects. \p src is
    what prepare() returned, \p include the iopoly include directory."""
    os.makedirs(util_dir, exist_ok=True)
    plain, renamed, alloc = (os.path.join(util_dir, n) for n in ("polybench.o", "polybench-noalloc.o", "alloc.o"))
    if not os.path.exists(alloc):
        inc = src["includes"]
        subprocess.run(["clang-19", "-O2", "-c", *defs, *inc, src["polybench_c"], "-o", plain], check=True)
        subprocess.run(["clang-19", "-O2", "-c", *defs, *inc, "-Dpolybench_alloc_data=pb_plain_alloc_data",
                        "-Dpolybench_free_data=pb_plain_free_data", src["polybench_c"], "-o", renamed], check=True)
        subprocess.run(["clang-19", "-O2", "-c", "-I" + include, src["alloc"], "-o", alloc], check=True)
    return plain, renamed, alloc
