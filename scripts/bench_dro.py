#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench_dro.py - the disk-reuse restructuring benchmark (issue 4).

Compiles the kernels of bench/kernels/ in each mode of the plugin (lower =
the original loop order lowered onto the runtime, clo = Polly's isl
scheduler with tiling, dro-l = disk-reuse reordering of each loop nest,
dro-wp = disk-reuse reordering across the nests of a SCoP), runs them on
striped disk directories with the stripe buffer at a fraction of each
kernel's data, and writes bench/results/dro.md, PNG plots and the raw data
(bench/results/raw/dro.json):

  1. the main table: every kernel x mode, stripe fetches, distinct stripes,
     fetches per block (paper 1, Fig. 17), modeled I/O seconds (hdd model),
     wall seconds, whether the schedule was applied (from the -Rpass
     remarks), checksum equality with mode=off; suite averages; the issue's
     targets, each PASS or NOT MET;
  2. sensitivity to the buffer size (paper 1, Fig. 18) and to the stripe
     size (Fig. 20; the compiler and the runtime get the same stripe);
  3. dro-wp with granularity=disk against granularity=stripe;
  4. compile time against plain clang-19 -O2 and mode=off, at the kernels'
     sizes and with every dimension x10 (100x the data of 2-D arrays).

Every mode's checksum must equal mode=off's; a difference is printed at once
and makes the tool exit with status 1 (after writing the report, which shows
it). Progress goes to stderr.

  bench_dro.py [--quick] [--build DIR] [--out DIR] [--workdir DIR]
  bench_dro.py --render-only        # re-render dro.md and plots from raw/dro.json
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL_DIR = os.path.join(ROOT, "bench", "kernels")

# parse_size and log are shared with the demo's kernel runner.
_spec = importlib.util.spec_from_file_location("run_kernels", os.path.join(ROOT, "scripts", "run-kernels.py"))
_rk = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rk)
parse_size = _rk.parse_size
# The ELF reader of the random differential test (test/random/run_random.py).
_rr_spec = importlib.util.spec_from_file_location("run_random", os.path.join(ROOT, "test", "random", "run_random.py"))
_rr = importlib.util.module_from_spec(_rr_spec)
_rr_spec.loader.exec_module(_rr)

MODES = ["lower", "clo", "dro-l", "dro-wp"]

# name, what it models, -D of the runs, -D of the compile-time check at 10x
# per dimension (100x the data of a 2-D array).
KERNELS = [
    ("sweeps", "paper 1, Fig. 3: a row fill, column sums, a half-array row update and a column sweep of one array",
     ["-DN=768"], ["-DN=7680"]),
    ("transpose", "paper 1, section 4: U[i][j] = f(V[j][i]), one array walked by rows, the other by columns",
     ["-DN=768"], ["-DN=7680"]),
    ("reductions", "statistics passes (astro/hf class): four reductions over two arrays, by rows and by columns",
     ["-DN=768"], ["-DN=7680"]),
    ("multisweep", "image passes (sar/contour class): four nests over three arrays, rows and column halves",
     ["-DN=768"], ["-DN=7680"]),
    ("stencil", "time-stepped 5-point Jacobi (apsi/wupwise class): T steps, two half-steps each",
     ["-DN=1024", "-DT=4"], ["-DN=10240", "-DT=4"]),
    ("matmul", "paper 1, Fig. 4: blocked matrix product W += U * V",
     ["-DN=256", "-DB=32"], ["-DN=2560", "-DB=32"]),
]
QUICK_DEFS = {
    "sweeps": (["-DN=384"], ["-DN=3840"]),
    "transpose": (["-DN=384"], ["-DN=3840"]),
    "reductions": (["-DN=384"], ["-DN=3840"]),
    "multisweep": (["-DN=384"], ["-DN=3840"]),
    "stencil": (["-DN=512", "-DT=2"], ["-DN=5120", "-DT=2"]),
    "matmul": (["-DN=256", "-DB=32"], ["-DN=2560", "-DB=32"]),
}
STAT_KEYS = ["stripe_fetches", "distinct_stripes", "fetches_per_block", "modeled_io_seconds",
             "modeled_disk_busy_seconds", "io_seconds", "wall_seconds", "buffer_hits", "evictions", "writebacks",
             "bytes_read", "bytes_written", "attaches", "releases", "hit_ratio", "zero_fills", "overwrites"]

# Targets of issue 4.
T_VS_LOWER = 0.30     # dro-wp cuts modeled I/O by >= 30% vs lower (suite average)
T_VS_CLO = 0.20       # ... and by >= 20% vs clo
T_FPB_LOWER = 3.0     # where lower fetches every block >= 3 times ...
T_FPB_DRO = 1.5       # ... dro-wp fetches it <= 1.5 times
T_COMPILE = 2.0       # compile time <= 2x plain clang-19 -O2
T_FLAT = 1.25         # "flat": compile time with 100x the data <= 1.25x


def log(msg):
    _rk.log(f"[{time.strftime('%H:%M:%S')}] {msg}")


def frac_value(text):
    if "/" in text:
        a, b = text.split("/", 1)
        return float(a) / float(b)
    return float(text)


def human_bytes(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


def stripe_name(n):
    return f"{n >> 10}K" if n % 1024 == 0 else str(n)


# ---------------------------------------------------------------------------
# Compiling and running


REMARK = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): remark: (?P<msg>.*?) \[(?P<flag>-R[\w-]+=[\w.-]+)\]$")


def kernel_remarks(stderr, kernel):
    """The remarks about the kernel's own file (not kernel.h), each once."""
    out, seen = [], set()
    for line in stderr.splitlines():
        m = REMARK.match(line.strip())
        if not m or os.path.basename(m.group("file")) != kernel + ".c":
            continue
        if m.group("msg").startswith("Possibly aliasing pointer"):  # Polly's advice on every access
            continue
        key = (m.group("line"), m.group("col"), m.group("msg"), m.group("flag"))
        if key not in seen:
            seen.add(key)
            out.append({"line": int(m.group("line")), "col": int(m.group("col")), "msg": m.group("msg"),
                        "flag": m.group("flag")})
    return out


def schedule_summary(mode, remarks):
    """What the remarks say about the schedule of the mode."""
    scops = sum(1 for r in remarks if r["msg"] == "SCoP ends here.")
    dismissed = sum(1 for r in remarks if r["msg"].startswith("SCoP ends here but was dismissed"))
    applied = [r for r in remarks if r["flag"] == "-Rpass=iopoly" and "reordered the loops" in r["msg"]]
    missed = [r for r in remarks if r["flag"] == "-Rpass-missed=iopoly" and "not applied" in r["msg"]]
    return {"scops": scops, "dismissed": dismissed, "applied": [r["msg"] for r in applied],
            "missed": [r["msg"] for r in missed]}


def elf_code(path):
    """A hash of the machine code of an ELF64 file (the random test's reader),
    what tells whether two builds differ in their code."""
    code = _rr.machine_code(path)
    return None if code is None else hashlib.sha256(code).hexdigest()


def compile_kernel(cfg, kernel, mode, defs, stripe, out, extra=(), remarks=True, only_compile=False):
    cmd = [cfg.iopoly_clang, "-O2", f"-fplugin-arg-iopoly-mode={mode}", f"-fplugin-arg-iopoly-stripe={stripe}",
           f"-fplugin-arg-iopoly-disks={cfg.disks}", *extra]
    if remarks:
        cmd += ["-Rpass=iopoly", "-Rpass-missed=iopoly", "-Rpass-analysis=polly-scops"]
    cmd += [*defs, os.path.join(KERNEL_DIR, kernel + ".c")]
    if only_compile:
        cmd.append("-c")
    cmd += ["-o", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=cfg.compile_timeout)
        rc, err = res.returncode, res.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    secs = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    shown = [c if c != out else os.path.basename(out) for c in cmd]
    shown[0] = "build/bin/iopoly-clang"
    shown = [c.replace(ROOT + "/", "") for c in shown]
    info = {"command": " ".join(shown), "seconds": secs, "cpu_seconds": cpu, "ok": rc == 0}
    if rc != 0:
        info["error"] = f"exit status {rc}: " + "\n".join(err.splitlines()[-30:])
        log(f"  COMPILE FAILED: {kernel} mode={mode} stripe={stripe} {' '.join(extra)}\n{info['error']}")
        return info
    if remarks:
        rem = kernel_remarks(err, kernel)
        info["remarks"] = rem
        info["schedule"] = schedule_summary(mode, rem)
        info["code"] = elf_code(out)
    return info


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("IOPOLY_")}


def run_kernel(cfg, exe, stripe, buffer, stats_file, timeout):
    datadir = os.path.join(cfg.work, "data")
    shutil.rmtree(datadir, ignore_errors=True)
    if os.path.exists(stats_file):
        os.unlink(stats_file)
    env = clean_env()
    env.update({"IOPOLY_DIR": datadir, "IOPOLY_DISKS": str(cfg.disks), "IOPOLY_STRIPE": str(stripe),
                "IOPOLY_BUFFER": str(buffer), "IOPOLY_DISK_MODEL": cfg.model, "IOPOLY_DIRECT": cfg.direct,
                "IOPOLY_STATS": stats_file})
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        res = subprocess.run([exe], capture_output=True, text=True, env=env, cwd=cfg.work, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall": time.monotonic() - t0, "load": load}
    wall = time.monotonic() - t0
    out = {"status": "ok", "wall": wall, "load": load}
    if res.returncode != 0:
        err = res.stderr.strip().splitlines()
        out["status"] = "buffer-full" if "stripe buffer full" in res.stderr else "failed"
        out["error"] = f"exit status {res.returncode}: " + " | ".join(err[-3:])
        return out
    out["checksum"] = next((l.split()[1] for l in res.stdout.splitlines() if l.startswith("checksum ")), "?")
    if os.path.exists(stats_file):
        with open(stats_file) as f:
            st = json.load(f)
        out["stats"] = {k: st.get(k) for k in STAT_KEYS}
        out["direct_io"] = st.get("direct_io")
    return out


class Bench:
    def __init__(self, cfg):
        self.cfg = cfg
        self.mismatches = []
        self.exes = {}   # (kernel, mode, stripe, extra) -> (exe, compile info)
        self.refs = {}   # kernel -> (checksum of mode=off, data bytes)

    def defs(self, kernel, big=False):
        for name, _, d, d10 in KERNELS:
            if name == kernel:
                if self.cfg.quick:
                    return QUICK_DEFS[name][1 if big else 0]
                return d10 if big else d
        raise KeyError(kernel)

    def build(self, kernel, mode, stripe, extra=()):
        key = (kernel, mode, stripe, tuple(extra))
        if key not in self.exes:
            tag = "".join(e.split("=")[-1] + "." for e in extra)
            exe = os.path.join(self.cfg.work, f"{kernel}.{mode}.{stripe_name(stripe)}.{tag}exe")
            self.exes[key] = (exe, compile_kernel(self.cfg, kernel, mode, self.defs(kernel), stripe_name(stripe), exe,
                                                  extra=extra, remarks=mode != "off"))
        return self.exes[key]

    def reference(self, kernel):
        if kernel not in self.refs:
            exe, info = self.build(kernel, "off", self.cfg.stripe)
            if not info["ok"]:
                raise RuntimeError(f"mode=off of {kernel} does not compile:\n{info.get('error')}")
            data = int(subprocess.run([exe, "size"], capture_output=True, text=True, check=True).stdout.split()[0])
            r = run_kernel(self.cfg, exe, self.cfg.stripe, data, os.path.join(self.cfg.work, "off.stats.json"),
                           self.cfg.run_timeout)
            if r["status"] != "ok":
                raise RuntimeError(f"mode=off of {kernel} failed: {r}")
            self.refs[kernel] = (r["checksum"], data, r["wall"])
        return self.refs[kernel]

    def measure(self, section, kernel, mode, stripe, fraction, extra=()):
        """Compiles (once) and runs one kernel in one mode; the row of raw data."""
        ref, data, _ = self.reference(kernel)
        exe, info = self.build(kernel, mode, stripe, extra)
        buffer = max(stripe, int(data * fraction) // stripe * stripe)
        row = {"section": section, "kernel": kernel, "mode": mode, "defs": self.defs(kernel), "extra": list(extra),
               "stripe_bytes": stripe, "disks": self.cfg.disks, "fraction": fraction, "data_bytes": data,
               "buffer_bytes": buffer, "compile": info, "reference_checksum": ref}
        if not info["ok"]:
            row["run"] = {"status": "compile-failed"}
            return row
        log(f"  {section}: {kernel} {mode}{' ' + ' '.join(extra) if extra else ''} stripe {stripe_name(stripe)}, "
            f"buffer {human_bytes(buffer)} of {human_bytes(data)}")
        r = run_kernel(self.cfg, exe, stripe, buffer, os.path.join(self.cfg.work, "stats.json"), self.cfg.run_timeout)
        if r["status"] == "ok":
            r["identical"] = r["checksum"] == ref
            if not r["identical"]:
                msg = (f"CHECKSUM MISMATCH: {kernel} mode={mode} {' '.join(extra)} stripe={stripe_name(stripe)} "
                       f"buffer={buffer}: {r['checksum']} != {ref} (mode=off)")
                self.mismatches.append(msg)
                log("!" * 78 + "\n" + msg + "\n" + "!" * 78)
            st = r.get("stats") or {}
            log(f"    fetches {st.get('stripe_fetches')}, fetch/blk {st.get('fetches_per_block', 0):.2f}, "
                f"modeled I/O {st.get('modeled_io_seconds', 0):.2f} s, wall {r['wall']:.2f} s")
        else:
            log(f"    {r['status']}: {r.get('error', '')}")
        row["run"] = r
        return row


def machine_info(cfg):
    cpu = platform.processor() or platform.machine()
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        kb = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
        mem = human_bytes(kb << 10)
    except (OSError, StopIteration):
        pass

    def out(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.rstrip("\n")
        except OSError:
            return ""

    fs = out(["df", "-T", cfg.work]).splitlines()
    return {"nproc": os.cpu_count(), "uname": out(["uname", "-a"]).strip(), "cpu": cpu, "memory": mem,
            "clang": out(["clang-19", "--version"]).splitlines()[0] if out(["clang-19", "--version"]) else "",
            "workdir_fs": fs[-1].split()[1] if len(fs) > 1 else "", "python": platform.python_version(),
            "git_commit": out(["git", "rev-parse", "--short", "HEAD"]),
            "git_dirty": [l[3:] for l in out(["git", "status", "--porcelain", "--", "plugin", "runtime", "include",
                                               "bench/kernels"]).splitlines()],
            "plugin_sha256": file_hash(os.path.join(cfg.build, "lib", "IOPoly.so")),
            "runtime_sha256": file_hash(os.path.join(cfg.build, "lib", "libiopoly.so"))}


def file_hash(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return ""


def compile_times(bench, kernels):
    """Compile (-c) CPU seconds (user + system of the compiler and its
    children) of plain clang-19 and of iopoly-clang in every mode, at the
    kernels' sizes and at 10x per dimension. Within each repetition every
    variant is compiled at both sizes back to back, so that the growth ratio
    of each repetition compares two compiles under the same load; a row's
    value is the median over the repetitions and its growth the median of
    the per-repetition ratios. Every sample (CPU and wall) stays in the row."""
    cfg = bench.cfg
    rows = []
    variants = ["plain", "off"] + MODES
    for kernel in kernels:
        sizes = [bench.defs(kernel, big) for big in (False, True)]
        samples = [{v: [] for v in variants} for _ in sizes]
        walls = [{v: [] for v in variants} for _ in sizes]
        for rep in range(cfg.compile_reps):
            log(f"  compile time: {kernel} {' '.join(sizes[0])} and {' '.join(sizes[1])}, "
                f"repetition {rep + 1}/{cfg.compile_reps}")
            for v in variants:
                for i, defs in enumerate(sizes):
                    obj = os.path.join(cfg.work, "ct.o")
                    if v == "plain":
                        cmd = ["clang-19", "-O2", "-c", *defs, os.path.join(KERNEL_DIR, kernel + ".c"), "-o", obj]
                        before = resource.getrusage(resource.RUSAGE_CHILDREN)
                        t0 = time.monotonic()
                        res = subprocess.run(cmd, capture_output=True, text=True)
                        wall, ok = time.monotonic() - t0, res.returncode == 0
                        after = resource.getrusage(resource.RUSAGE_CHILDREN)
                        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                    else:
                        info = compile_kernel(cfg, kernel, v, defs, stripe_name(cfg.stripe), obj, remarks=False,
                                              only_compile=True)
                        wall, cpu, ok = info["seconds"], info["cpu_seconds"], info["ok"]
                    samples[i][v].append(cpu if ok else None)
                    walls[i][v].append(wall if ok else None)
        for i, defs in enumerate(sizes):
            row = {"kernel": kernel, "defs": defs, "big": i == 1, "reps": cfg.compile_reps, "statistic": "median"}
            for v in variants:
                ok = [x for x in samples[i][v] if x is not None]
                row[v] = statistics.median(ok) if ok and len(ok) == len(samples[i][v]) else None
                row[v + "_samples"] = samples[i][v]
                row[v + "_wall_samples"] = walls[i][v]
                if i == 1:
                    pairs = [b / a for a, b in zip(samples[0][v], samples[1][v]) if a and b]
                    row[v + "_growth"] = statistics.median(pairs) if len(pairs) == cfg.compile_reps else None
            rows.append(row)
    return rows


def slim(row):
    """The row without its compile remarks (the schedule summary stays): the
    sensitivity sections repeat the main table's builds many times."""
    comp = {k: v for k, v in row.get("compile", {}).items() if k != "remarks"}
    return dict(row, compile=comp) if "compile" in row else row


def run_all(cfg):
    bench = Bench(cfg)
    keys = ("quick", "stripe", "disks", "fraction", "fraction_text", "model", "direct", "fractions", "stripes",
            "sens_kernels", "compile_reps", "run_timeout")
    raw = {"config": {k: getattr(cfg, k) for k in keys},
           "argv": sys.argv[1:], "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": machine_info(cfg)}
    raw["load_start"] = os.getloadavg()
    t_start = time.monotonic()
    kernels = [k for k, *_ in KERNELS]

    log(f"1/5 main table: {len(kernels)} kernels x {', '.join(MODES)}; stripe {stripe_name(cfg.stripe)}, "
        f"{cfg.disks} disks, buffer {cfg.fraction_text} of the data")
    main = []
    for kernel in kernels:
        ref, data, wall = bench.reference(kernel)
        main.append({"section": "main", "kernel": kernel, "mode": "off", "defs": bench.defs(kernel), "data_bytes": data,
                     "run": {"status": "ok", "wall": wall, "checksum": ref, "identical": True}})
        for mode in MODES:
            main.append(bench.measure("main", kernel, mode, cfg.stripe, cfg.fraction))
    raw["main"] = main

    log(f"2/5 buffer sensitivity: {', '.join(cfg.sens_kernels)} at {', '.join(cfg.fractions)} of the data")
    buf = []
    for kernel in cfg.sens_kernels:
        for ftext in cfg.fractions:
            f = frac_value(ftext)
            for mode in MODES:
                if abs(f - cfg.fraction) < 1e-12:
                    row = dict(next(r for r in main if r["kernel"] == kernel and r["mode"] == mode))
                else:
                    row = bench.measure("buffer", kernel, mode, cfg.stripe, f)
                row = dict(row, section="buffer", fraction_text=ftext)
                buf.append(row)
    raw["buffer"] = [slim(r) for r in buf]

    log(f"3/5 stripe sensitivity: {', '.join(cfg.sens_kernels)} at stripes {', '.join(cfg.stripes)}")
    strp = []
    for kernel in cfg.sens_kernels:
        for stext in cfg.stripes:
            s = parse_size(stext)
            for mode in MODES:
                if s == cfg.stripe:
                    row = dict(next(r for r in main if r["kernel"] == kernel and r["mode"] == mode))
                else:
                    row = bench.measure("stripe", kernel, mode, s, cfg.fraction)
                strp.append(dict(row, section="stripe"))
    raw["stripe"] = [slim(r) for r in strp]

    log("4/5 granularity: dro-wp with granularity=disk against the default (stripe)")
    gran = []
    for kernel in kernels:
        stripe_row = next(r for r in main if r["kernel"] == kernel and r["mode"] == "dro-wp")
        gran.append(dict(stripe_row, section="granularity", granularity="stripe"))
        row = bench.measure("granularity", kernel, "dro-wp", cfg.stripe, cfg.fraction,
                            extra=["-fplugin-arg-iopoly-granularity=disk"])
        gran.append(dict(row, granularity="disk"))
    raw["granularity"] = gran

    log(f"5/5 compile time: median of {cfg.compile_reps}, plain clang-19 -O2 -c and iopoly-clang -O2 -c per mode")
    raw["compile"] = compile_times(bench, kernels)

    raw["load_end"] = os.getloadavg()
    raw["seconds"] = time.monotonic() - t_start
    raw["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    end_hash = file_hash(os.path.join(cfg.build, "lib", "IOPoly.so"))
    raw["plugin_changed_during_run"] = end_hash != raw["machine"]["plugin_sha256"]
    raw["mismatches"] = bench.mismatches
    return raw


# ---------------------------------------------------------------------------
# The report


def stats_of(row):
    r = row.get("run", {})
    return r.get("stats") if r.get("status") == "ok" else None


def mio(row):
    st = stats_of(row)
    return st["modeled_io_seconds"] if st else None


def fpb(row):
    st = stats_of(row)
    return st["fetches_per_block"] if st else None


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}f}"


def status_text(row):
    r = row.get("run", {})
    s = r.get("status")
    if s == "ok":
        return None
    if s == "timeout":
        return f"timeout (> {r['wall']:.0f} s)"
    if s == "buffer-full":
        return "buffer too small"
    if s == "compile-failed":
        return "**compile failed**"
    return f"**{s}**"


def applied_text(row):
    mode = row["mode"]
    if mode in ("off", "lower"):
        return "-"
    comp = row.get("compile", {})
    sch = comp.get("schedule")
    if not sch:
        return "-"
    if mode == "clo":
        if not sch["scops"]:
            return "no (no SCoP kept)" if sch["dismissed"] else "no (no SCoP)"
        return f"isl schedule on {sch['scops']} SCoP{'s' if sch['scops'] > 1 else ''}" + (
            ", code differs from lower" if row.get("code_differs") else ", **same code as lower**")
    n_app, n_miss = len(sch["applied"]), len(sch["missed"])
    if n_app and not n_miss:
        m = re.search(r"(\d+) sets .*disk state changes (\d+) -> (\d+)", sch["applied"][0])
        return "yes" + (f" ({m.group(1)} sets, changes {m.group(2)}->{m.group(3)})" if m and n_app == 1 else
                        f" ({n_app} SCoPs)")
    if n_app:
        return f"yes in {n_app} of {n_app + n_miss} SCoPs"
    if n_miss:
        return "no (cost model)" if "cost model" in sch["missed"][0] else "no"
    return "no (no SCoP kept)" if sch["dismissed"] else "no (no SCoP)"


def annotate_code(raw):
    """Marks clo rows whose machine code differs from lower's."""
    for sec in ("main", "buffer", "stripe"):
        rows = raw.get(sec, [])
        for r in rows:
            if r["mode"] != "clo":
                continue
            low = next((x for x in rows if x["kernel"] == r["kernel"] and x["mode"] == "lower"
                        and x.get("stripe_bytes") == r.get("stripe_bytes")), None)
            if low:
                r["code_differs"] = r["compile"].get("code") != low["compile"].get("code")


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def gmean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def reductions(main, kernels, mode, base):
    """Per kernel 1 - modeled I/O(mode) / modeled I/O(base), where both ran."""
    out = {}
    for k in kernels:
        a = mio(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
        b = mio(next(r for r in main if r["kernel"] == k and r["mode"] == base))
        out[k] = (1 - a / b) if a is not None and b else None
    return out


def aggregates(rows, kernels, mode, base, match=lambda r: True):
    """Suite averages of the reduction of modeled I/O of mode against base,
    over the kernels where both ran: the mean of the per-kernel reductions,
    1 - the geometric mean of the ratios, 1 - the ratio of the suite-average
    modeled I/O. None where no kernel has both."""
    pairs = []
    for k in kernels:
        a = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and match(r)), None)
        b = next((r for r in rows if r["kernel"] == k and r["mode"] == base and match(r)), None)
        if a and b and mio(a) is not None and mio(b):
            pairs.append((mio(a), mio(b)))
    if not pairs:
        return None, None, None, 0
    g = gmean([max(a, 1e-9) / b for a, b in pairs])
    return (mean(1 - a / b for a, b in pairs), 1 - g, 1 - sum(a for a, _ in pairs) / sum(b for _, b in pairs),
            len(pairs))


def growth(a, b, v):
    """Compile time at 10x per dimension over the base size: the median of
    the paired per-repetition ratios (older raw data: ratio of the values)."""
    if b.get(v + "_growth") is not None:
        return b[v + "_growth"]
    return b[v] / a[v] if a.get(v) and b.get(v) else None


def pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def verdict(ok):
    return "**PASS**" if ok else "**NOT MET**"


def plots(raw, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    colors = {"lower": "#7f7f7f", "clo": "#1f77b4", "dro-l": "#ff7f0e", "dro-wp": "#2ca02c"}
    kernels = [k for k, *_ in KERNELS]
    main = raw["main"]

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    width = 0.2
    for ax, getter, title in ((axes[0], mio, "modeled I/O seconds (hdd model)"),
                              (axes[1], fpb, "stripe fetches per block (paper 1, Fig. 17)")):
        for i, mode in enumerate(MODES):
            xs, ys = [], []
            for j, k in enumerate(kernels):
                v = getter(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
                if v is not None:
                    xs.append(j + (i - 1.5) * width)
                    ys.append(max(v, 1e-3))
            ax.bar(xs, ys, width, label=mode, color=colors[mode])
        ax.set_yscale("log")
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels, rotation=20)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Main table: stripe {stripe_name(raw['config']['stripe'])}, {raw['config']['disks']} disks, "
                 f"buffer {raw['config']['fraction_text']} of each kernel's data", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "dro-main.png"), dpi=110)
    plt.close(fig)

    for sec, xkey, xlabel, fname, title in (
            ("buffer", "fraction", "buffer / data", "dro-buffer.png",
             f"Sensitivity to the buffer size (paper 1, Fig. 18); stripe {stripe_name(raw['config']['stripe'])}"),
            ("stripe", "stripe_bytes", "stripe size (compiler and runtime)", "dro-stripe.png",
             f"Sensitivity to the stripe size (paper 1, Fig. 20); buffer {raw['config']['fraction_text']} "
             "of the data")):
        rows = raw[sec]
        ks = list(dict.fromkeys(r["kernel"] for r in rows))
        n = len(ks) + 1
        cols = 3
        fig, axes = plt.subplots((n + cols - 1) // cols, cols, figsize=(13, 3.6 * ((n + cols - 1) // cols)),
                                 squeeze=False)
        for idx, k in enumerate(ks):
            ax = axes[idx // cols][idx % cols]
            for mode in MODES:
                pts = sorted((r[xkey], mio(r)) for r in rows if r["kernel"] == k and r["mode"] == mode
                             and mio(r) is not None)
                if pts:
                    xs = [p[0] / 1024 if sec == "stripe" else p[0] for p in pts]
                    ax.plot(xs, [max(p[1], 1e-3) for p in pts], "o-", label=mode, color=colors[mode])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(k, fontsize=10)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.set_ylabel("modeled I/O s", fontsize=8)
            ax.grid(alpha=0.3)
            xs = sorted({r[xkey] for r in rows})
            if sec == "buffer":
                ax.set_xticks(xs)
                ax.set_xticklabels([next(r["fraction_text"] for r in rows if r[xkey] == x) for x in xs], fontsize=7)
            else:
                ax.set_xticks([x / 1024 for x in xs])
                ax.set_xticklabels([stripe_name(x) for x in xs], fontsize=7)
        # Last panel: the suite average of each mode's improvement over lower.
        ax = axes[(n - 1) // cols][(n - 1) % cols]
        xs = sorted({r[xkey] for r in rows})
        for mode in MODES[1:]:
            ys = []
            for x in xs:
                red = []
                for k in ks:
                    a = mio(next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[xkey] == x), {}))
                    b = mio(next((r for r in rows if r["kernel"] == k and r["mode"] == "lower" and r[xkey] == x), {}))
                    if a is not None and b:
                        red.append(100 * (1 - a / b))
                ys.append(sum(red) / len(red) if red else float("nan"))
            ax.plot([x / 1024 if sec == "stripe" else x for x in xs], ys, "o-", label=mode, color=colors[mode])
        ax.set_xscale("log", base=2)
        ax.set_title("mean improvement over lower (kernels where both ran)", fontsize=9)
        ax.set_ylabel("% less modeled I/O", fontsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        if sec == "buffer":
            ax.set_xticks(xs)
            ax.set_xticklabels([next(r["fraction_text"] for r in rows if r[xkey] == x) for x in xs], fontsize=7)
        else:
            ax.set_xticks([x / 1024 for x in xs])
            ax.set_xticklabels([stripe_name(x) for x in xs], fontsize=7)
        axes[0][0].legend(fontsize=8)
        for j in range(n, axes.shape[0] * cols):
            axes[j // cols][j % cols].axis("off")
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=110)
        plt.close(fig)
    return True


def render(raw, out, have_plots):
    annotate_code(raw)
    cfg = raw["config"]
    m = raw["machine"]
    main = raw["main"]
    kernels = [k for k, *_ in KERNELS]
    L = []
    add = L.append
    quick = " --quick" if cfg["quick"] else ""
    add("# Disk-reuse restructuring benchmark (issue 4)")
    add("")
    add("Regenerate with `scripts/bench-dro.sh" + quick + "` (this run: `" +
        " ".join(["scripts/bench_dro.py"] + raw["argv"]) + f"`, started {raw['started']}, "
        f"{raw['seconds'] / 60:.1f} minutes). Every number below comes from the runs recorded in "
        "[`raw/dro.json`](raw/dro.json); `python3 scripts/bench_dro.py --render-only` re-renders this page and "
        "the plots from it.")
    if cfg["quick"]:
        add("")
        add("**This is a `--quick` run: small sizes, few points; not the benchmark's numbers.**")
    add("")
    add("Modes: `lower` = the original loop order lowered onto the runtime (the base); `clo` = Polly's isl "
        "scheduler with tiling, then lowering (conventional locality optimization); `dro-l` = disk-reuse "
        "reordering of each loop nest (paper 1, section 3); `dro-wp` = disk-reuse reordering across all nests "
        "of a SCoP. Plugin options are the defaults except stripe and disks.")
    add("")
    add("## Setup")
    add("")
    add(f"* Machine: {m['cpu']}, {m['nproc']} cores (`nproc`), {m['memory']} memory; `uname -a`: `{m['uname']}`; "
        f"{m['clang']}; Python {m['python']}.")
    add(f"* Source: commit `{m['git_commit']}`" + (
        f", with uncommitted changes in {', '.join('`' + f + '`' for f in m['git_dirty'])}" if m["git_dirty"] else
        ", no uncommitted changes in plugin/, runtime/, include/, bench/kernels/") +
        f"; plugin `IOPoly.so` sha256 {m['plugin_sha256']}, runtime sha256 {m['runtime_sha256']}.")
    if raw.get("plugin_changed_during_run"):
        add("* **The plugin (IOPoly.so) was rebuilt while the benchmark ran: results may mix two versions.**")
    add(f"* Runs: {cfg['disks']} disk directories on one {m['workdir_fs'] or 'local'} file system under /tmp, "
        f"stripe {stripe_name(cfg['stripe'])} (the same stripe and disk count given to the compiler), buffer "
        f"{cfg['fraction_text']} of each kernel's disk-resident data (rounded down to whole stripes), "
        f"`IOPOLY_DISK_MODEL={cfg['model']}` (7.5 ms per random and 0.2 ms per sequential request, 120 MiB/s, one "
        f"queue per disk), `IOPOLY_DIRECT={cfg['direct']}` (reads from the page cache, so that the orders that "
        "thrash finish in seconds). Fetches and modeled I/O seconds are counted in program order and are the same "
        "on every run; wall seconds are measured around the process (start, the run, the write-back at exit) and "
        f"include the page-cache copies, not disk time. Other work ran on the machine at the same time (load "
        f"average {raw['load_start'][0]:.2f} at the start, {raw['load_end'][0]:.2f} at the end; each run's load "
        "is in the raw data): wall times are indicative only.")
    add(f"* Per-run time limit {cfg['run_timeout']} s; a run that hits it is shown as a timeout and left out of "
        "the averages.")
    add("")
    add("| kernel | models | sizes | disk-resident data | buffer (main table) |")
    add("|---|---|---|---|---|")
    for k, what, _, _ in KERNELS:
        r = next(r for r in main if r["kernel"] == k and r["mode"] == "lower")
        add(f"| `{k}` | {what} | `{' '.join(r['defs'])}` | {human_bytes(r['data_bytes'])} | "
            f"{human_bytes(r['buffer_bytes'])} ({r['buffer_bytes'] // r['stripe_bytes']} stripes) |")
    add("")

    # Targets first: the numbers are computed here and shown again below.
    red_lower = reductions(main, kernels, "dro-wp", "lower")
    red_clo = reductions(main, kernels, "dro-wp", "clo")
    avg_lower, geo_lower, tot_lower, _ = aggregates(main, kernels, "dro-wp", "lower")
    avg_clo, geo_clo, tot_clo, _ = aggregates(main, kernels, "dro-wp", "clo")
    fpb_rows = []
    for k in kernels:
        lo = fpb(next(r for r in main if r["kernel"] == k and r["mode"] == "lower"))
        wp = fpb(next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp"))
        if lo is not None and lo >= T_FPB_LOWER:
            fpb_rows.append((k, lo, wp, wp is not None and wp <= T_FPB_DRO))
    ct = {(r["kernel"], r["big"]): r for r in raw["compile"]}
    ct_ratios = []
    for k in kernels:
        r = ct.get((k, False))
        if r and r.get("dro-wp") and r.get("plain") and r.get("off"):
            ct_ratios.append((k, r["dro-wp"] / r["plain"], r["dro-wp"] / r["off"]))
    flat = []
    for k in kernels:
        a, b = ct.get((k, False)), ct.get((k, True))
        if a and b and growth(a, b, "dro-wp") is not None:
            flat.append((k, growth(a, b, "dro-wp"), growth(a, b, "plain")))
    t1 = avg_lower is not None and avg_lower >= T_VS_LOWER
    t2 = avg_clo is not None and avg_clo >= T_VS_CLO
    t3 = bool(fpb_rows) and all(ok for *_, ok in fpb_rows)
    t4 = bool(ct_ratios) and all(p <= T_COMPILE and o <= T_COMPILE for _, p, o in ct_ratios)
    t5 = bool(flat) and all(f <= T_FLAT for _, f, _ in flat)
    n_ok_lower = sum(v is not None for v in red_lower.values())
    n_ok_clo = sum(v is not None for v in red_clo.values())

    add("## Summary: the issue's targets")
    add("")
    add("| target | measured | status |")
    add("|---|---|---|")
    add(f"| dro-wp cuts modeled I/O by >= {T_VS_LOWER:.0%} vs lower (suite average) | mean of the per-kernel "
        f"reductions {pct(avg_lower)} over {n_ok_lower} kernels (per kernel: "
        + ", ".join(f"{k} {pct(v)}" for k, v in red_lower.items()) + f"); geometric mean {pct(geo_lower)}, "
        f"suite-average modeled I/O {pct(tot_lower)} | {verdict(t1)} |")
    add(f"| dro-wp cuts modeled I/O by >= {T_VS_CLO:.0%} vs clo (suite average) | mean {pct(avg_clo)} over "
        f"{n_ok_clo} kernels (per kernel: " + ", ".join(f"{k} {pct(v)}" for k, v in red_clo.items()) +
        f"); geometric mean {pct(geo_clo)}, suite-average modeled I/O {pct(tot_clo)} "
        f"| {verdict(t2)} |")
    add(f"| fetches per block <= {T_FPB_DRO} with dro-wp where lower's is >= {T_FPB_LOWER:g} | " +
        (", ".join(f"{k}: {lo:.2f} -> {fmt(wp)}{'' if ok else ' (no)'}" for k, lo, wp, ok in fpb_rows) or
         "no kernel has lower >= 3") + f"; {sum(ok for *_, ok in fpb_rows)} of {len(fpb_rows)} kernels | "
        f"{verdict(t3)} |")
    if ct_ratios:
        worst = max(ct_ratios, key=lambda x: max(x[1], x[2]))
        add(f"| compile time (dro-wp, CPU seconds, section 5) <= {T_COMPILE:g}x plain clang-19 -O2 and "
            f"<= {T_COMPILE:g}x mode=off | "
            f"vs plain clang-19: mean {mean(p for _, p, _ in ct_ratios):.1f}x, worst {worst[0]} "
            f"{worst[1]:.1f}x; vs mode=off: mean {mean(o for *_, o in ct_ratios):.1f}x | {verdict(t4)} |")
    if flat:
        add(f"| compile time flat when the arrays grow 100x (dro-wp CPU seconds at 10x per dimension / at the "
            f"base size <= {T_FLAT}) | " + ", ".join(f"{k} {f:.2f}x" for k, f, _ in flat) + f" | {verdict(t5)} |")
    add("")
    met = [n for n, ok in (("modeled I/O vs lower", t1), ("modeled I/O vs clo", t2), ("fetches per block", t3),
                           ("compile time vs clang", t4), ("compile time flat", t5)) if ok]
    notmet = [n for n, ok in (("modeled I/O vs lower", t1), ("modeled I/O vs clo", t2), ("fetches per block", t3),
                              ("compile time vs clang", t4), ("compile time flat", t5)) if not ok]
    # The first two targets at the other buffer sizes (section 2's kernels).
    brow = raw.get("buffer", [])
    bks = list(dict.fromkeys(r["kernel"] for r in brow))
    parts = []
    for ftext in dict.fromkeys(r["fraction_text"] for r in brow):
        cell = []
        for base, thr in (("lower", T_VS_LOWER), ("clo", T_VS_CLO)):
            v, g, _, n = aggregates(brow, bks, "dro-wp", base, lambda r: r["fraction_text"] == ftext)
            cell.append(f"vs {base} {pct(v)}" + ("" if v is None else (" (met)" if v >= thr else " (not met)")) +
                        f" (geo. {pct(g)})")
        parts.append(f"{ftext}: " + ", ".join(cell))
    if parts:
        add(f"The targets are judged at the main table's buffer ({cfg['fraction_text']} of the data). The first two "
            f"depend on it: at the buffer sizes of section 2 ({', '.join(bks)}; no matmul), dro-wp's mean reduction "
            "of modeled I/O (and the geometric-mean one) is " + "; ".join(parts) + ".")
        add("")
    add(f"Met: {', '.join(met) if met else 'none'}. Not met: {', '.join(notmet) if notmet else 'none'}. "
        "The verdicts on modeled I/O use the arithmetic mean of the per-kernel reductions (as paper 1's Fig. 15 "
        "averages its benchmarks); the reduction by the geometric mean of the per-kernel ratios and the reduction "
        "of the suite-average modeled I/O are shown next to it.")
    if raw["mismatches"]:
        add("")
        add("**CHECKSUM MISMATCHES (a mode computed a different result than mode=off):**")
        for msg in raw["mismatches"]:
            add(f"* **{msg}**")
    add("")

    add("## 1. Main table")
    add("")
    if have_plots:
        add("![modeled I/O and fetches per block per kernel and mode](dro-main.png)")
        add("")
    add("`fetch/blk` = stripe fetches / distinct stripes fetched (paper 1, Fig. 17). `schedule` is what the "
        "`-Rpass=iopoly`/`-Rpass-missed=iopoly` remarks say (for clo, Polly's `-Rpass-analysis=polly-scops` "
        "remarks and whether the machine code differs from lower's). `same` = checksum equal to mode=off's.")
    add("")
    add("| kernel | mode | fetches | distinct | fetch/blk | modeled I/O s | wall s | schedule | same |")
    add("|---|---|---|---|---|---|---|---|---|")
    for k in kernels:
        for r in (x for x in main if x["kernel"] == k):
            st = stats_of(r)
            run = r["run"]
            same = "yes" if run.get("identical") else ("**NO**" if run.get("status") == "ok" else "-")
            if r["mode"] == "off":
                add(f"| {k} | off (reference) | - | - | - | - | {run['wall']:.2f} | - | {run['checksum']} |")
                continue
            if st:
                add(f"| {k} | {r['mode']} | {st['stripe_fetches']} | {st['distinct_stripes']} | "
                    f"{st['fetches_per_block']:.2f} | {st['modeled_io_seconds']:.2f} | {run['wall']:.2f} | "
                    f"{applied_text(r)} | {same} |")
            else:
                add(f"| {k} | {r['mode']} | {status_text(r)} | | | | | {applied_text(r)} | - |")
    add("")
    add("Suite averages (over the kernels where the mode ran to the end):")
    add("")
    add("| mode | kernels | fetches | distinct | fetch/blk | modeled I/O s | wall s | modeled I/O vs lower: mean "
        "reduction / geo. mean ratio / reduction of the total |")
    add("|---|---|---|---|---|---|---|---|")
    for mode in MODES:
        rows = [r for r in main if r["mode"] == mode and stats_of(r)]
        red = reductions(main, kernels, mode, "lower")
        ratios = []
        tot_a = tot_b = 0.0
        for k in kernels:
            a = mio(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
            b = mio(next(r for r in main if r["kernel"] == k and r["mode"] == "lower"))
            if a is not None and b:
                ratios.append(a / b)
                tot_a += a
                tot_b += b
        add(f"| {mode} | {len(rows)} | {fmt(mean(stats_of(r)['stripe_fetches'] for r in rows), 0)} | "
            f"{fmt(mean(stats_of(r)['distinct_stripes'] for r in rows), 0)} | "
            f"{fmt(mean(stats_of(r)['fetches_per_block'] for r in rows))} | "
            f"{fmt(mean(stats_of(r)['modeled_io_seconds'] for r in rows))} | "
            f"{fmt(mean(r['run']['wall'] for r in rows))} | "
            + (f"{pct(mean(red.values()))} / {fmt(gmean(ratios), 3)} / {pct(1 - tot_a / tot_b) if tot_b else '-'}"
               if mode != "lower" else "-") + " |")
    add("")
    add("Schedules, from the remarks on each kernel's own file (the checksum loop in kernel.h left out):")
    add("")
    for k in kernels:
        for mode in ("dro-l", "dro-wp"):
            r = next(x for x in main if x["kernel"] == k and x["mode"] == mode)
            sch = r.get("compile", {}).get("schedule")
            if not sch:
                continue
            for msg in sch["applied"]:
                add(f"* `{k}`: {msg if msg.startswith(mode + ':') else mode + ': ' + msg}")
            for msg in sch["missed"]:
                add(f"* `{k}` {mode}: *{msg}*")
            if not sch["applied"] and not sch["missed"]:
                add(f"* `{k}` {mode}: no remark (Polly kept {sch['scops']} SCoPs, dismissed {sch['dismissed']})")
    add("")

    # Where dro-wp does not win.
    add("### Where dro-wp is not better than lower or clo")
    add("")
    lines = []
    for k in kernels:
        wp = next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp")
        for base in ("lower", "clo"):
            b = next(r for r in main if r["kernel"] == k and r["mode"] == base)
            a_m, b_m = mio(wp), mio(b)
            if a_m is None or b_m is None or a_m < b_m:
                continue
            sch = wp.get("compile", {}).get("schedule") or {}
            why = ("schedule not applied: " + "; ".join(sch["missed"])) if sch.get("missed") and not sch.get(
                "applied") else ("schedule applied (" + "; ".join(sch.get("applied", [])) + ")")
            lines.append(f"* `{k}`: dro-wp {a_m:.2f} s modeled I/O, {fmt(fpb(wp))} fetches per block against "
                         f"{base} {b_m:.2f} s, {fmt(fpb(b))}; {why}.")
    L.extend(lines or ["dro-wp has less modeled I/O than both lower and clo on every kernel."])
    for k in kernels:
        wp = next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp")
        sch = wp.get("compile", {}).get("schedule") or {}
        if sch and not sch.get("applied"):
            low = next(r for r in main if r["kernel"] == k and r["mode"] == "lower")
            same = stats_of(wp) and stats_of(low) and \
                stats_of(wp)["stripe_fetches"] == stats_of(low)["stripe_fetches"]
            L.append(f"* `{k}`: dro-wp did not reorder anything (" + ("; ".join(sch.get("missed", [])) or
                                                                    "no remark") + "); " +
                     ("its counters equal lower's." if same else
                      "its counters differ from lower's only through the other effects of the Polly pipeline on "
                      "the code (for one, the Polly modes turn off full unrolling)."))
    add("")

    for sec, label, key in (("buffer", "buffer size (paper 1, Fig. 18)", "fraction_text"),
                            ("stripe", "stripe size (paper 1, Fig. 20)", "stripe_bytes")):
        rows = raw[sec]
        n = "2" if sec == "buffer" else "3"
        add(f"## {n}. Sensitivity to the {label}")
        add("")
        if sec == "buffer":
            add(f"Stripe {stripe_name(cfg['stripe'])}, buffer from {cfg['fractions'][0]} to {cfg['fractions'][-1]} "
                f"of each kernel's data. Each cell: modeled I/O seconds / fetches per block.")
        else:
            add(f"Buffer {cfg['fraction_text']} of the data; the compiler (`-fplugin-arg-iopoly-stripe`) and the "
                "runtime (`IOPOLY_STRIPE`) get the same stripe. Each cell: modeled I/O seconds / fetches per block.")
        add("")
        if have_plots:
            add(f"![sensitivity to the {sec} size](dro-{sec}.png)")
            add("")
        xs = list(dict.fromkeys(r[key] for r in rows))
        add("| kernel | mode | " + " | ".join(str(x) if sec == "buffer" else stripe_name(x) for x in xs) + " |")
        add("|---|---|" + "---|" * len(xs))
        for k in dict.fromkeys(r["kernel"] for r in rows):
            for mode in MODES:
                cells = []
                for x in xs:
                    r = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[key] == x), None)
                    if r is None:
                        cells.append("")
                    elif stats_of(r):
                        cells.append(f"{mio(r):.2f} / {fpb(r):.2f}" + ("" if r["run"].get("identical") else
                                                                      " **checksum differs**"))
                    else:
                        cells.append(status_text(r))
                add(f"| {k} | {mode} | " + " | ".join(cells) + " |")
        add("")
        add("Mean reduction of modeled I/O against lower (kernels where both ran):")
        add("")
        add("| mode | " + " | ".join(str(x) if sec == "buffer" else stripe_name(x) for x in xs) + " |")
        add("|---|" + "---|" * len(xs))
        for mode in MODES[1:]:
            cells = []
            for x in xs:
                red = []
                for k in dict.fromkeys(r["kernel"] for r in rows):
                    a = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[key] == x), None)
                    b = next((r for r in rows if r["kernel"] == k and r["mode"] == "lower" and r[key] == x), None)
                    if a and b and mio(a) is not None and mio(b):
                        red.append(1 - mio(a) / mio(b))
                cells.append(f"{pct(mean(red))} ({len(red)})" if red else "-")
            add(f"| {mode} | " + " | ".join(cells) + " |")
        add("")

    add("## 4. Granularity of the locality sets: dro-wp with `granularity=disk` and `granularity=stripe`")
    add("")
    add("`stripe` (the default) makes one locality unit per chunk of consecutive stripes of each array; `disk` "
        "uses the disk of each stripe, as in the paper. Same stripe, disks and buffer as the main table.")
    add("")
    add("| kernel | granularity | fetches | fetch/blk | modeled I/O s | wall s | schedule | same |")
    add("|---|---|---|---|---|---|---|---|")
    for k in kernels:
        for g in ("stripe", "disk"):
            r = next((x for x in raw["granularity"] if x["kernel"] == k and x["granularity"] == g), None)
            if r is None:
                continue
            st = stats_of(r)
            sch = (r.get("compile") or {}).get("schedule") or {}
            detail = applied_text(r)
            if sch.get("missed") and not sch.get("applied"):
                detail += ": " + sch["missed"][0]
            if st:
                add(f"| {k} | {g} | {st['stripe_fetches']} | {st['fetches_per_block']:.2f} | "
                    f"{st['modeled_io_seconds']:.2f} | {r['run']['wall']:.2f} | {detail} | "
                    f"{'yes' if r['run'].get('identical') else '**NO**'} |")
            else:
                add(f"| {k} | {g} | {status_text(r)} | | | | {detail} | - |")
    add("")

    add(f"## 5. Compile time")
    add("")
    add(f"CPU seconds (user + system of the compiler processes; other work shares the machine, so CPU time rather "
        f"than wall time), median of {cfg['compile_reps']} compiles (`-O2 -c`, no link) of each kernel: plain "
        "`clang-19` without the plugin, `iopoly-clang` with mode=off (plugin loaded, nothing done) and in each "
        "mode; at the sizes of the runs and with every array dimension x10 (100x the data of the 2-D arrays). "
        "The ratio to plain clang-19 in parentheses; every sample (CPU and wall) is in the raw data. Single "
        "compiles vary by up to about a third on this shared machine.")
    add("")
    add("| kernel | sizes | clang-19 | off | lower | clo | dro-l | dro-wp | dro-wp / off |")
    add("|---|---|---|---|---|---|---|---|---|")
    for r in raw["compile"]:
        def c(v):
            if r.get(v) is None:
                return "failed"
            return f"{r[v]:.2f}" + (f" ({r[v] / r['plain']:.1f}x)" if v != "plain" and r.get("plain") else "")
        add(f"| {r['kernel']} | `{' '.join(r['defs'])}` | " + " | ".join(c(v) for v in ["plain", "off"] + MODES) +
            f" | {(r['dro-wp'] / r['off']) if r.get('dro-wp') and r.get('off') else float('nan'):.1f}x |")
    add("")
    add("Growth with 100x the data (compile time at 10x per dimension / at the run sizes; each repetition "
        "compiles both sizes back to back, and the ratio shown is the median of the per-repetition ratios; plain "
        "clang-19, whose work does not depend on the sizes, shows the noise):")
    add("")
    add("| kernel | clang-19 | off | lower | clo | dro-l | dro-wp |")
    add("|---|---|---|---|---|---|---|")
    for k in kernels:
        a, b = ct.get((k, False)), ct.get((k, True))
        if not a or not b:
            continue
        add(f"| {k} | " + " | ".join(f"{growth(a, b, v):.2f}x" if growth(a, b, v) is not None else "-"
                                     for v in ["plain", "off"] + MODES) + " |")
    add("")
    text = "\n".join(L) + "\n"
    with open(os.path.join(out, "dro.md"), "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--workdir", help="scratch directory (default: a new one under /tmp, removed at the end)")
    ap.add_argument("--quick", action="store_true", help="small sizes and few points (a few minutes)")
    ap.add_argument("--stripe", default="32K", help="stripe of the main table (compiler and runtime)")
    ap.add_argument("--disks", type=int, default=8)
    ap.add_argument("--fraction", default="1/4", help="buffer / data of the main table")
    ap.add_argument("--fractions", help="buffer sensitivity (default 1/64,1/32,1/16,1/8,1/4,1/2)")
    ap.add_argument("--stripes", help="stripe sensitivity (default 16K,32K,64K,128K,256K)")
    ap.add_argument("--sens-kernels", help="kernels of the sensitivity runs "
                                           "(default sweeps,transpose,reductions,multisweep,stencil)")
    ap.add_argument("--model", default="hdd")
    ap.add_argument("--direct", default="off", help="IOPOLY_DIRECT of the runs (default off: page cache)")
    ap.add_argument("--compile-reps", type=int)
    ap.add_argument("--run-timeout", type=float, default=600)
    ap.add_argument("--compile-timeout", type=float, default=900)
    ap.add_argument("--render-only", action="store_true", help="re-render the report from raw/dro.json")
    cfg = ap.parse_args()
    raw_path = os.path.join(cfg.out, "raw", "dro.json")
    if cfg.render_only:
        with open(raw_path) as f:
            raw = json.load(f)
    else:
        cfg.build = os.path.abspath(cfg.build)
        cfg.iopoly_clang = os.path.join(cfg.build, "bin", "iopoly-clang")
        if not os.access(cfg.iopoly_clang, os.X_OK):
            sys.exit(f"bench_dro: {cfg.iopoly_clang} not found; build first (scripts/bench-dro.sh does)")
        if shutil.which("clang-19") is None:
            sys.exit("bench_dro: clang-19 not found")
        cfg.stripe = parse_size(cfg.stripe)
        cfg.fraction_text = cfg.fraction
        cfg.fraction = frac_value(cfg.fraction)
        cfg.fractions = (cfg.fractions or ("1/16,1/4" if cfg.quick else "1/64,1/32,1/16,1/8,1/4,1/2")).split(",")
        cfg.stripes = (cfg.stripes or ("16K,64K" if cfg.quick else "16K,32K,64K,128K,256K")).split(",")
        cfg.sens_kernels = (cfg.sens_kernels or ("sweeps,transpose" if cfg.quick else
                                                 "sweeps,transpose,reductions,multisweep,stencil")).split(",")
        cfg.compile_reps = cfg.compile_reps or (1 if cfg.quick else 5)
        own = not cfg.workdir
        cfg.work = os.path.abspath(cfg.workdir or tempfile.mkdtemp(prefix="iopoly-bench-dro-", dir="/tmp"))
        os.makedirs(cfg.work, exist_ok=True)
        log(f"bench_dro: scratch directory {cfg.work}")
        try:
            raw = run_all(cfg)
        finally:
            if own:
                shutil.rmtree(cfg.work, ignore_errors=True)
        os.makedirs(os.path.dirname(raw_path), exist_ok=True)
        with open(raw_path, "w") as f:
            json.dump(raw, f, indent=1)
    have_plots = plots(raw, cfg.out)
    if not have_plots:
        log("bench_dro: matplotlib is not available (apt-get install python3-matplotlib): no plots")
    text = render(raw, cfg.out, have_plots)
    print(text)
    log(f"bench_dro: wrote {os.path.join(cfg.out, 'dro.md')}, {raw_path}" +
        (", dro-main.png, dro-buffer.png, dro-stripe.png" if have_plots else ""))
    if raw["mismatches"]:
        log("bench_dro: FAILED: some mode computed a different checksum than mode=off:\n  " +
            "\n  ".join(raw["mismatches"]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
