# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compiling and running the kernels of bench/kernels/ for the disk-reuse
benchmark: the main table, the buffer and stripe sensitivity, the
granularity comparison and compile times; returns the raw data that
report.py renders."""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

from bench import common
from bench.common import ROOT, frac_value, human_bytes, log, parse_size, stripe_name
from bench.common import STAT_KEYS
from bench.dro.kernels import KERNEL_DIR, KERNELS, MODES, QUICK_DEFS

# The modes whose runs are repeated with write-behind off (section 6).
WRITE_BEHIND_MODES = ("lower", "clo", "dro-wp")



def schedule_summary(mode, remarks):
    """What the remarks say about the schedule of the mode."""
    scops = sum(1 for r in remarks if r["msg"] == "SCoP ends here.")
    dismissed = sum(1 for r in remarks if r["msg"].startswith("SCoP ends here but was dismissed"))
    applied = [r for r in remarks if r["flag"] == "-Rpass=iopoly" and ("tiled the loops" in r["msg"] or "reordered the loops" in r["msg"])]
    missed = [r for r in remarks if r["flag"] == "-Rpass-missed=iopoly" and ("left the loops" in r["msg"] or "not applied" in r["msg"])]
    return {"scops": scops, "dismissed": dismissed, "applied": [r["msg"] for r in applied],
            "missed": [r["msg"] for r in missed]}


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
        rem = common.remarks_of(err, kernel + ".c")
        info["remarks"] = rem
        info["schedule"] = schedule_summary(mode, rem)
        info["code"] = common.code_hash(out)
    return info


def run_kernel(cfg, exe, stripe, buffer, stats_file, timeout, env_extra=None):
    datadir = os.path.join(cfg.work, "data")
    shutil.rmtree(datadir, ignore_errors=True)
    if os.path.exists(stats_file):
        os.unlink(stats_file)
    env = common.clean_env()
    env.update({"IOPOLY_DIR": datadir, "IOPOLY_DISKS": str(cfg.disks), "IOPOLY_STRIPE": str(stripe),
                "IOPOLY_BUFFER": str(buffer), "IOPOLY_DISK_MODEL": cfg.model, "IOPOLY_DIRECT": cfg.direct,
                "IOPOLY_STATS": stats_file})
    env.update(env_extra or {})
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

    def measure(self, section, kernel, mode, stripe, fraction, extra=(), env=None):
        """Compiles (once) and runs one kernel in one mode (with the IOPOLY_*
        settings \p env besides the bench's); the row of raw data."""
        ref, data, _ = self.reference(kernel)
        exe, info = self.build(kernel, mode, stripe, extra)
        buffer = max(stripe, int(data * fraction) // stripe * stripe)
        row = {"section": section, "kernel": kernel, "mode": mode, "defs": self.defs(kernel), "extra": list(extra),
               "stripe_bytes": stripe, "disks": self.cfg.disks, "fraction": fraction, "data_bytes": data,
               "buffer_bytes": buffer, "compile": info, "reference_checksum": ref, "env": dict(env or {})}
        if not info["ok"]:
            row["run"] = {"status": "compile-failed"}
            return row
        settings = list(extra) + [f"{k}={v}" for k, v in (env or {}).items()]
        log(f"  {section}: {kernel} {mode}{' ' + ' '.join(settings) if settings else ''} stripe {stripe_name(stripe)}, "
            f"buffer {human_bytes(buffer)} of {human_bytes(data)}")
        r = run_kernel(self.cfg, exe, stripe, buffer, os.path.join(self.cfg.work, "stats.json"), self.cfg.run_timeout,
                       env)
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
           "argv": sys.argv[1:], "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": common.machine_info(cfg.build, cfg.work)}
    raw["load_start"] = os.getloadavg()
    t_start = time.monotonic()
    kernels = [k for k, *_ in KERNELS]

    log(f"1/6 main table: {len(kernels)} kernels x {', '.join(MODES)}; stripe {stripe_name(cfg.stripe)}, "
        f"{cfg.disks} disks, buffer {cfg.fraction_text} of the data")
    main = []
    for kernel in kernels:
        ref, data, wall = bench.reference(kernel)
        main.append({"section": "main", "kernel": kernel, "mode": "off", "defs": bench.defs(kernel), "data_bytes": data,
                     "run": {"status": "ok", "wall": wall, "checksum": ref, "identical": True}})
        for mode in MODES:
            main.append(bench.measure("main", kernel, mode, cfg.stripe, cfg.fraction))
    raw["main"] = main

    log(f"2/6 buffer sensitivity: {', '.join(cfg.sens_kernels)} at {', '.join(cfg.fractions)} of the data")
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

    log(f"3/6 stripe sensitivity: {', '.join(cfg.sens_kernels)} at stripes {', '.join(cfg.stripes)}")
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

    log("4/6 granularity: dro-wp with granularity=disk against the default (stripe)")
    gran = []
    for kernel in kernels:
        stripe_row = next(r for r in main if r["kernel"] == kernel and r["mode"] == "dro-wp")
        gran.append(dict(stripe_row, section="granularity", granularity="stripe"))
        row = bench.measure("granularity", kernel, "dro-wp", cfg.stripe, cfg.fraction,
                            extra=["-fplugin-arg-iopoly-granularity=disk"])
        gran.append(dict(row, granularity="disk"))
    raw["granularity"] = gran

    log(f"5/6 compile time: median of {cfg.compile_reps}, plain clang-19 -O2 -c and iopoly-clang -O2 -c per mode")
    raw["compile"] = compile_times(bench, kernels)

    log("6/6 write-behind: every kernel with IOPOLY_WRITE_BEHIND=0 against the default (on)")
    wb = []
    for kernel in kernels:
        for mode in WRITE_BEHIND_MODES:
            on = next(r for r in main if r["kernel"] == kernel and r["mode"] == mode)
            wb.append(dict(slim(on), section="write_behind", write_behind=True))
            off = bench.measure("write_behind", kernel, mode, cfg.stripe, cfg.fraction,
                                env={"IOPOLY_WRITE_BEHIND": "0"})
            wb.append(dict(slim(off), write_behind=False))
    raw["write_behind"] = wb

    raw["load_end"] = os.getloadavg()
    raw["seconds"] = time.monotonic() - t_start
    raw["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    end_hash = common.file_hash(os.path.join(cfg.build, "lib", "IOPoly.so"))
    raw["plugin_changed_during_run"] = end_hash != raw["machine"]["plugin_sha256"]
    raw["mismatches"] = bench.mismatches
    return raw
