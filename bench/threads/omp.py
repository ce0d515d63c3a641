# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Polly-OpenMP baseline on the bench kernels: each kernel of
bench/kernels/ built with mode=dro-wp, once as it is (the single-thread
restructured program) and once with Polly's OpenMP code generation
(-mllvm -polly-parallel, linked with libgomp), run at 1/2/4/8 threads
(OMP_NUM_THREADS) with the buffer at 1/8 and 1/32 of the kernel's data,
under the hdd and ssd models. Every output must equal mode=off's. Threads
are not scheduled by the runtime here: whatever iterations libgomp hands
out run at once, and when their pinned stripes fill the buffer the program
stops ("stripe buffer full"), which the report shows as such.
"""
import glob
import os
import statistics
import subprocess

from bench import common

THREADS = [1, 2, 4, 8]
FRACTIONS = [8, 32]
MODELS = ["hdd", "ssd"]
STRIPE, DISKS = 64 << 10, 8


def kernels():
    return sorted(glob.glob(os.path.join(common.ROOT, "bench", "kernels", "*.c")))


def build(build_dir, src, out, extra):
    cmd = [os.path.join(build_dir, "bin", "iopoly-clang"), "-O2", "-I", os.path.dirname(src), src, "-o", out] + extra
    ok, err, _, _ = common.run_compiler(cmd, 900)
    if not ok:
        raise RuntimeError(f"{' '.join(cmd)}: {err[-500:]}")


def run_all(build_dir, workdir, reps, progress=common.log):
    rows = []
    for src in kernels():
        name = os.path.splitext(os.path.basename(src))[0]
        kdir = os.path.join(workdir, "omp-" + name)
        os.makedirs(kdir, exist_ok=True)
        exes = {m: os.path.join(kdir, m) for m in ("off", "dro-wp", "omp")}
        build(build_dir, src, exes["off"], ["-fplugin-arg-iopoly-mode=off", "-DIOPOLY_REFERENCE"])
        build(build_dir, src, exes["dro-wp"], ["-fplugin-arg-iopoly-mode=dro-wp"])
        build(build_dir, src, exes["omp"], ["-fplugin-arg-iopoly-mode=dro-wp", "-mllvm", "-polly-parallel",
                                            "-fopenmp=libgomp"])
        ref = subprocess.run([exes["off"]], capture_output=True, text=True, cwd=kdir).stdout
        data = int(subprocess.run([exes["off"], "size"], capture_output=True, text=True).stdout.strip())
        for frac in FRACTIONS:
            buffer = max(STRIPE, data // frac // STRIPE * STRIPE)
            for model in MODELS:
                for variant, threads in [("dro-wp", 1)] + [("omp", t) for t in THREADS]:
                    res_list = []
                    for _ in range(1 if variant == "dro-wp" else reps):
                        r = common.run_striped(exes[variant], kdir, STRIPE, buffer, DISKS, model=model, timeout=300,
                                               extra_env={"OMP_NUM_THREADS": str(threads), "IOPOLY_PROGRESS": "0",
                                                          "IOPOLY_THRASH": "0"})
                        res_list.append(r)
                        if r["status"] != "ok":
                            break
                    bad = next((r for r in res_list if r["status"] != "ok"), None)
                    row = {"kernel": name, "fraction": frac, "model": model, "variant": variant,
                           "threads": threads, "buffer": buffer, "data": data}
                    if bad:
                        row.update(status=bad["status"], error=bad.get("error", ""))
                    else:
                        st = [r["stats"] for r in res_list]
                        row.update(status="ok",
                                   fetches=statistics.median(s["stripe_fetches"] for s in st),
                                   distinct=statistics.median(s["distinct_stripes"] for s in st),
                                   modeled=statistics.median(s["modeled_io_seconds"] for s in st),
                                   wall=statistics.median(r["wall"] for r in res_list),
                                   identical=all(r["stdout"] == ref for r in res_list))
                    rows.append(row)
                    progress(f"omp {name} 1/{frac} {model} {variant} {threads}t: {row['status']}"
                             + (f", {row['fetches']:.0f} fetches, identical={row['identical']}"
                                if row["status"] == "ok" else f" {row.get('error', '')[:120]}"))
    return rows


def render(rows):
    L = ["\n## Polly-OpenMP baseline on the bench kernels\n",
         "Each kernel of `bench/kernels/` (default sizes) with `mode=dro-wp`: `dro-wp` is the single-thread "
         "restructured program, `omp` the same with Polly's OpenMP code generation (`-mllvm -polly-parallel`, "
         "libgomp) at `OMP_NUM_THREADS` threads. 64 KiB stripes, 8 disks. Threads are not scheduled by the "
         "runtime: `buffer-full` means the threads' pinned stripes filled the buffer and the program stopped. "
         "`same` = output identical to mode=off.\n",
         "| kernel | buffer | model | variant | threads | fetches | distinct | modeled I/O s | wall s | same |",
         "|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["status"] != "ok":
            L.append(f"| {r['kernel']} | 1/{r['fraction']} | {r['model']} | {r['variant']} | {r['threads']} | "
                     f"{r['status']} | | | | |")
        else:
            L.append(f"| {r['kernel']} | 1/{r['fraction']} | {r['model']} | {r['variant']} | {r['threads']} | "
                     f"{r['fetches']:.0f} | {r['distinct']:.0f} | {r['modeled']:.3f} | {r['wall']:.2f} | "
                     f"{'yes' if r['identical'] else 'NO'} |")
    ok = all(r["status"] != "ok" or r["identical"] for r in rows)
    return "\n".join(L) + "\n", ok
