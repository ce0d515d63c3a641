# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Lowering overhead on PolyBench/C 4.2.1 with the data in the buffer (issue 9, section 2).

Every kernel of PolyBench's benchmark_list is built, unmodified, in these
variants, all at -O3:

  off     iopoly-clang -fplugin-arg-iopoly-mode=off: ordinary malloc'd arrays
  lower   mode=lower: the arrays come from iopoly_alloc (polybench_iopoly.c
          replaces polybench_alloc_data) and every access goes through the
          runtime; the kernel file has no pragma
  polly   clang-19 -O3 -mllvm -polly: Polly's own build, ordinary arrays
  polly-same  the same with the Polly settings the plugin uses (no
          reassociation of reductions, which keeps results bit-identical;
          no matrix-product packing; unprofitable SCoPs too): what the
          Polly modes would cost without the lowering
  clo, dro-l, dro-wp   the plugin's Polly modes on iopoly_alloc arrays
  clo-declared, dro-l-declared, dro-wp-declared   the same, the kernel file
          with `#pragma iopoly disk_resident` on every array parameter (as
          bench/polybench prepares it): the compiler knows the arrays are
          disk-resident, so the dro modes restructure them

and timed by PolyBench's own kernel timer (-DPOLYBENCH_TIME), the minimum
over --reps runs taken in turn, with a buffer larger than the data (no
stripe is ever read from disk: the overhead is the lowering's alone). The
targets: lower / off at most 1.25 (geometric mean) and 1.6 (every kernel);
clo and dro-* / polly at most 1.25 (/ polly-same is reported beside it:
the lowering's share of the gap). Every iopoly build's output is checked
against mode=off first (-DPOLYBENCH_DUMP_ARRAYS at a small size, byte for
byte). Results go to a Markdown report, a plot and the raw JSON.
"""
import argparse
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from bench.polybench.prepare import annotate

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POLLY_MODES = ["clo", "dro-l", "dro-wp"]
DECLARED = "-declared"  # the kernel file with the pragma on its array parameters
POLLY_MODES += [m + DECLARED for m in POLLY_MODES]
IOPOLY_MODES = ["lower"] + POLLY_MODES
ALL_MODES = ["off", "lower", "polly", "polly-same"] + POLLY_MODES
PLAIN_MODES = ("off", "polly", "polly-same")  # ordinary malloc'd arrays
# The Polly settings of plugin/Polly/PollyPipeline.cpp (configurePolly).
POLLY_SAME_FLAGS = ["-mllvm", "-polly-pattern-matching-based-opts=false", "-mllvm",
                    "-polly-detect-reductions=false", "-mllvm", "-polly-process-unprofitable"]
POLLY_REFS = ("polly", "polly-same")
TARGET_GEOMEAN = 1.25
TARGET_WORST = 1.6


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, env=None, timeout=None, cwd=None):
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return res


def kernels(polybench):
    with open(os.path.join(polybench, "utilities", "benchmark_list")) as f:
        paths = [line.strip() for line in f if line.strip()]
    return {os.path.splitext(os.path.basename(p))[0]: os.path.normpath(os.path.join(polybench, p)) for p in paths}


class Builder:
    """Compiles the variants of one kernel into a work directory."""

    def __init__(self, args, work):
        self.args, self.work = args, work
        self.clang = args.clang
        self.iopoly_clang = os.path.join(args.bin, "iopoly-clang")
        util = os.path.join(args.polybench, "utilities")
        self.util = util
        common = ["-O3", "-I" + util]
        # PolyBench's support file twice: as is (its timer and allocator) and
        # without its allocator, which polybench_iopoly.c provides.
        for name, extra in (("pb", []), ("pbnoalloc", ["-Dpolybench_alloc_data=polybench_alloc_data_unused",
                                                        "-Dpolybench_free_data=polybench_free_data_unused"])):
            for flavour, flags in (("time", ["-DPOLYBENCH_TIME"]), ("dump", [])):
                run([self.clang, *common, *flags, *extra, "-c", os.path.join(util, "polybench.c"),
                     "-o", os.path.join(work, f"{name}.{flavour}.o")])
        run([self.clang, "-O2", "-I" + os.path.join(ROOT, "include"), "-c",
             os.path.join(HERE, "polybench_iopoly.c"), "-o", os.path.join(work, "shim.o")])

    def build(self, kernel, src, mode, size, flavour):
        exe = os.path.join(self.work, f"{kernel}.{mode}.{size}.{flavour}")
        flags = ["-O3", "-I" + self.util, "-I" + os.path.dirname(src), f"-D{size}_DATASET"]
        flags += ["-DPOLYBENCH_TIME"] if flavour == "time" else ["-DPOLYBENCH_DUMP_ARRAYS"]
        if mode in ("polly", "polly-same"):
            extra = POLLY_SAME_FLAGS if mode == "polly-same" else []
            cmd = [self.clang, *flags, "-mllvm", "-polly", *extra, src, os.path.join(self.work, f"pb.{flavour}.o")]
        elif mode == "off":
            cmd = [self.iopoly_clang, *flags, "-fplugin-arg-iopoly-mode=off", src,
                   os.path.join(self.work, f"pb.{flavour}.o")]
        else:
            if mode.endswith(DECLARED):
                mode = mode[:-len(DECLARED)]
                with open(src) as f:
                    text, _ = annotate(f.read())
                src = os.path.join(self.work, os.path.basename(exe) + ".c")
                with open(src, "w") as f:
                    f.write(text)
            cmd = [self.iopoly_clang, *flags, f"-fplugin-arg-iopoly-mode={mode}", src,
                   os.path.join(self.work, f"pbnoalloc.{flavour}.o"), os.path.join(self.work, "shim.o")]
        t0 = time.monotonic()
        run(cmd + ["-lm", "-o", exe])
        return exe, time.monotonic() - t0


def runtime_env(work, tag, buffer):
    env = dict(os.environ)
    data = os.path.join(work, "data." + tag)
    shutil.rmtree(data, ignore_errors=True)
    env.update({"IOPOLY_DIR": data, "IOPOLY_BUFFER": buffer, "IOPOLY_DISK_MODEL": "none",
                "IOPOLY_DIRECT": "off", "IOPOLY_PROGRESS": "0", "IOPOLY_STATS": os.path.join(work, tag + ".stats.json")})
    return env


def timed_run(exe, env, timeout):
    t0 = time.monotonic()
    res = run([exe], env=env, timeout=timeout)
    wall = time.monotonic() - t0
    m = re.search(r"([0-9]+\.[0-9]+)", res.stdout)
    if not m:
        raise RuntimeError(f"{exe}: no PolyBench time in its output: {res.stdout!r}")
    return float(m.group(1)), wall


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def measure(args):
    ks = kernels(args.polybench)
    names = args.kernels.split(",") if args.kernels else list(ks)
    for n in names:
        if n not in ks:
            raise SystemExit(f"unknown kernel '{n}' (PolyBench's benchmark_list has {', '.join(ks)})")
    modes = args.modes.split(",")
    for m in modes:
        if m not in ALL_MODES:
            raise SystemExit(f"unknown mode '{m}' (known: {', '.join(ALL_MODES)})")
    if "off" not in modes:
        modes.insert(0, "off")
    work = args.work or tempfile.mkdtemp(prefix="iopoly-overhead-")
    os.makedirs(work, exist_ok=True)
    log(f"work directory {work}")
    b = Builder(args, work)
    results = {"kernels": {}, "modes": modes, "size": args.size, "reps": args.reps}
    # Build everything first (two compiles at a time), then time alone.
    jobs = [(k, m, f) for k in names for m in modes for f in ("time", "dump")]
    built, compile_s = {}, {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = {(k, m, f): pool.submit(b.build, k, ks[k], m, args.size if f == "time" else args.check_size, f)
                for (k, m, f) in jobs}
        for key, fut in futs.items():
            try:
                built[key], secs = fut.result()
                if key[2] == "time":
                    compile_s[key[:2]] = secs
            except Exception as e:  # a failed build is a result, not a crash
                built[key] = None
                results["kernels"].setdefault(key[0], {}).setdefault("errors", {})[key[1]] = str(e)[-600:]
                log(f"[{key[0]}] {key[1]} ({key[2]}): build failed")
    for k in names:
        r = results["kernels"].setdefault(k, {})
        r.setdefault("errors", {})
        r["compile_seconds"] = {m: compile_s.get((k, m)) for m in modes}
        # Correctness first: every iopoly mode prints what mode=off prints.
        ref = None
        if built.get((k, "off", "dump")):
            ref = run([built[(k, "off", "dump")]], env=runtime_env(work, "check", args.buffer)).stderr
        r["identical"] = {}
        for m in modes:
            if m in PLAIN_MODES or not built.get((k, m, "dump")) or ref is None:
                continue
            try:
                out = run([built[(k, m, "dump")]], env=runtime_env(work, "check", args.buffer), timeout=600).stderr
                r["identical"][m] = out == ref
            except Exception as e:
                r["identical"][m] = False
                r["errors"][m] = str(e)[-600:]
            if not r["identical"][m]:
                log(f"[{k}] mode={m}: output DIFFERS from mode=off")
        r["times"] = {m: [] for m in modes}
        r["wall"] = {m: [] for m in modes}
        r["stats"] = {}
    for rep in range(args.reps):
        for k in names:
            r = results["kernels"][k]
            for m in modes:
                exe = built.get((k, m, "time"))
                if not exe or m in r["errors"]:
                    continue
                env = runtime_env(work, f"{k}.{m}", args.buffer)
                try:
                    t, wall = timed_run(exe, env, args.timeout)
                except Exception as e:
                    r["errors"][m] = str(e)[-600:]
                    log(f"[{k}] mode={m}: run failed")
                    continue
                r["times"][m].append(t)
                r["wall"][m].append(wall)
                if m not in PLAIN_MODES and os.path.exists(env["IOPOLY_STATS"]):
                    st = json.load(open(env["IOPOLY_STATS"]))
                    r["stats"][m] = {key: st.get(key) for key in ("stripe_fetches", "buffer_hits", "attaches",
                                                                  "faulted_accesses", "zero_fills")}
                log(f"[{k}] rep {rep + 1}/{args.reps} {m}: {t:.4f} s")
    return results


def summarize(results):
    rows, lower_ratios = [], []
    polly_ratios = {(m, ref): [] for m in POLLY_MODES for ref in POLLY_REFS}
    for k, r in results["kernels"].items():
        best = {m: min(v) for m, v in r.get("times", {}).items() if v}
        row = {"kernel": k, "best": best}
        if "off" in best and "lower" in best:
            row["lower/off"] = best["lower"] / best["off"]
            lower_ratios.append(row["lower/off"])
        for m, ref in polly_ratios:
            if ref in best and m in best:
                row[f"{m}/{ref}"] = best[m] / best[ref]
                polly_ratios[(m, ref)].append(row[f"{m}/{ref}"])
        rows.append(row)
    s = {"rows": rows, "lower_geomean": geomean(lower_ratios),
         "lower_worst": max(lower_ratios) if lower_ratios else None}
    for (m, ref), v in polly_ratios.items():
        s[f"{m}/{ref}_geomean"] = geomean(v)
        s[f"{m}/{ref}_worst"] = max(v) if v else None
    return s


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def verdict(value, target):
    if value is None:
        return "not measured"
    return f"{value:.2f}x: {'met' if value <= target else 'NOT MET'} (target {target}x)"


def write_report(args, results, s, path, plot):
    modes = results["modes"]
    lines = []
    w = lines.append
    w("# Lowering overhead on PolyBench/C 4.2.1 with the data in the buffer (issue 9, section 2)")
    w("")
    w("Regenerate: `scripts/bench-overhead.sh --polybench DIR " + " ".join(args.passthrough) + "`")
    w("")
    w(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; "
      f"shared with other jobs while measuring. Size {results['size']}, -O3, PolyBench's kernel timer "
      f"(-DPOLYBENCH_TIME), minimum of {results['reps']} runs taken in turn. Buffer {args.buffer} (more than the "
      "data: no stripe is read from disk), 64 KiB stripes on 8 disk directories, disk model none. `off` is the "
      "kernel on malloc'd arrays (the plugin in mode=off); the iopoly modes get their arrays from iopoly_alloc "
      "through `bench/overhead/polybench_iopoly.c` and the kernel files are not changed (no pragma: the pointers "
      "come from another file and are checked at run time); `polly` is `clang-19 -O3 -mllvm -polly` on malloc'd "
      "arrays; `polly-same` is the same with the Polly settings the plugin uses (" + " ".join(POLLY_SAME_FLAGS[1::2])
      + "): no reassociation of reductions, so results stay bit-identical to the original order, and no "
      "matrix-product packing, whose in-memory copies the stripe buffer would not account for. clo adds to "
      "Polly's schedule what polly-same does not have: Polly's register tiling on point bands of three or more "
      "loops (not in SCoPs with a stencil) and LLVM's function simplification again after Polly, as in Polly's "
      "own pipeline; clo / polly-same is what the lowering costs net of those. The `-declared` modes compile the "
      "kernel file with `#pragma iopoly disk_resident` on every array parameter (bench/polybench's preparation): "
      "there the dro modes know the arrays are disk-resident and restructure them (without the pragma they "
      "do what clo does), and their run-time choice, seeing all the data fit, takes Polly's schedule as clo "
      "compiles it, or the original order where it compiled none.")
    w("")
    w("## Targets")
    w("")
    w(f"* lower / off, geometric mean over the kernels: {verdict(s['lower_geomean'], TARGET_GEOMEAN)}")
    w(f"* lower / off, worst kernel: {verdict(s['lower_worst'], TARGET_WORST)}")
    for m in POLLY_MODES:
        for ref in POLLY_REFS:
            key = f"{m}/{ref}"
            if s.get(f"{key}_geomean") is not None:
                w(f"* {key}, geometric mean: {verdict(s[f'{key}_geomean'], TARGET_GEOMEAN)}; worst "
                  f"{fmt(s[f'{key}_worst'], 2)}x")
    bad = [(k, m) for k, r in results["kernels"].items() for m, ok in r.get("identical", {}).items() if not ok]
    w(f"* outputs identical to mode=off (every iopoly mode, {args.check_size} size, every array dumped): "
      + ("yes, every kernel and mode" if not bad else "NO: " + ", ".join(f"{k} {m}" for k, m in bad)))
    w("")
    w("## Kernel times (seconds) and ratios")
    w("")
    pairs = [f"{m}/{ref}" for m in POLLY_MODES if m in modes for ref in POLLY_REFS if ref in modes]
    head = "| kernel | " + " | ".join(modes) + " | lower/off | " + " | ".join(pairs) + " |"
    w(head)
    w("|" + "---|" * (head.count("|") - 1))
    for row in s["rows"]:
        r = results["kernels"][row["kernel"]]
        cells = [fmt(row["best"].get(m), 4) if m in row["best"] else ("error" if m in r.get("errors", {}) else "-")
                 for m in modes]
        ratios = [fmt(row.get("lower/off"), 2)] + [fmt(row.get(p), 2) for p in pairs]
        w(f"| {row['kernel']} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    errs = [(k, m, e) for k, r in results["kernels"].items() for m, e in r.get("errors", {}).items()]
    if errs:
        w("")
        w("Failures:")
        w("")
        for k, m, e in errs:
            w(f"* {k} {m}: `{e.strip().splitlines()[-1] if e.strip() else e}`")
    w("")
    # The reading of this run, written by whoever ran it, kept beside the
    # report (overhead-analysis.md next to overhead.md).
    notes = os.path.join(os.path.dirname(path), os.path.splitext(os.path.basename(path))[0] + "-analysis.md")
    if os.path.exists(notes):
        with open(notes) as f:
            w(f.read().rstrip("\n"))
        w("")
    if plot:
        w(f"![lower/off and the Polly modes against Polly's own build, per kernel]({os.path.basename(plot)})")
        w("")
    w("Raw data: `bench/results/raw/overhead.json` (every run, compile times, runtime counters).")
    w("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def write_plot(s, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no plot")
        return None
    rows = [r for r in s["rows"] if "lower/off" in r]
    series = [("lower/off", "lower / off")] + [
        (f"{m}/polly", f"{m} / polly") for m in ("clo", "dro-wp", "dro-wp" + DECLARED) if any(f"{m}/polly" in r for r in rows)]
    fig, ax = plt.subplots(figsize=(13, 4.8))
    xs = range(len(rows))
    width = 0.8 / len(series)
    for n, (key, label) in enumerate(series):
        ax.bar([x + (n - (len(series) - 1) / 2) * width for x in xs], [r.get(key, float("nan")) for r in rows], width=width,
               label=label)
    ax.set_yscale("log")
    ax.axhline(TARGET_GEOMEAN, color="green", linestyle="--", linewidth=1, label="1.25x")
    ax.axhline(TARGET_WORST, color="red", linestyle=":", linewidth=1, label="1.6x")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["kernel"] for r in rows], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("kernel time ratio")
    ax.set_title("PolyBench LARGE, data in the buffer: lowering overhead")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--polybench", help="PolyBench/C 4.2.1 source directory (required unless --render-only)")
    p.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"), help="iopoly build's bin directory")
    p.add_argument("--clang", default="clang-19")
    p.add_argument("--size", default="LARGE", help="PolyBench dataset for timing (default LARGE)")
    p.add_argument("--check-size", default="SMALL", help="dataset of the output comparison (default SMALL)")
    p.add_argument("--kernels", default="", help="comma list (default: all 30)")
    p.add_argument("--modes", default=",".join(ALL_MODES))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2, help="parallel compiles (runs are always one at a time)")
    p.add_argument("--buffer", default="1G")
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--work", default="", help="keep binaries and data here")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "overhead.md"))
    p.add_argument("--raw", default=os.path.join(ROOT, "bench", "results", "raw", "overhead.json"))
    p.add_argument("--render-only", action="store_true",
                   help="write the report (and the plot, with matplotlib) again from --raw, e.g. after editing "
                        "overhead-analysis.md; --polybench is then not needed")
    if argv is None:
        argv = sys.argv[1:]
    args = p.parse_args(argv)
    if not args.render_only and not args.polybench:
        p.error("--polybench DIR is required (the PolyBench/C 4.2.1 sources), unless --render-only")
    if args.render_only and not os.path.exists(args.raw):
        p.error(f"--render-only: no raw data at {args.raw} (give --raw FILE)")
    skip = False
    args.passthrough = []
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--polybench", "--bin", "--work", "--out", "--raw"):
            skip = True
            continue
        if a.startswith(("--polybench=", "--bin=", "--work=", "--out=", "--raw=")):
            continue
        args.passthrough.append(a)
    if args.render_only:
        with open(args.raw) as f:
            results = json.load(f)
        # The command that measured it, not this one.
        args.passthrough = results.get("argv", args.passthrough)
        args.buffer = results.get("buffer", args.buffer)
        args.check_size = results.get("check_size", args.check_size)
        s = summarize(results)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        png = os.path.splitext(args.out)[0] + ".png"
        plot = write_plot(s, png) or (png if os.path.exists(png) else None)
        write_report(args, results, s, args.out, plot)
        log(f"wrote {args.out}")
        return 0
    results = measure(args)
    results["argv"] = args.passthrough
    results["buffer"] = args.buffer
    results["check_size"] = args.check_size
    s = summarize(results)
    results["summary"] = {k: v for k, v in s.items() if k != "rows"}
    os.makedirs(os.path.dirname(args.raw), exist_ok=True)
    with open(args.raw, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    plot = write_plot(s, os.path.splitext(args.out)[0] + ".png")
    write_report(args, results, s, args.out, plot)
    log(f"wrote {args.out}")
    print(open(args.out).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
