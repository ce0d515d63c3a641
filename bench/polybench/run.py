# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The PolyBench/C 4.2.1 benchmark driver: every kernel with every array
disk-resident (prepare.py), compiled once per mode with default plugin
options, run at several stripe sizes and buffer fractions of its data on
striped disk directories with the hdd disk model, every output compared
with the plain-memory build, and the floor of each run (distinct stripes,
Belady's MIN of its executed order at its buffer) taken from its trace.

The raw data go to <out>/raw/polybench.json after every kernel, so that an
interrupted run resumes (--resume) where it stopped.
"""
import json
import re
import os
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bench import common
from bench.polybench import prepare

MODES = ["lower", "clo", "dro-l", "dro-wp"]
VERSION_LINE = re.compile(r"^iopoly: loops at (\S+): version (\d+) of (\d+) chosen(.*)$", re.M)


def version_kind(version, of, rest):
    """What the chosen version is, from IOPOLY_VERBOSE's list of every
    version's estimate: 'original', 'polly tiles T', 'polly rows tiles T'
    (the schedule with rows innermost) or 'data'."""
    if version + 1 == of:
        return "original"
    m = re.search(r" %d: [^ ]+(?: \(tiles of (\d+)(, rows innermost)?\))?" % version, rest)
    if not m or not m.group(1):
        return "data"
    return ("polly rows tiles " if m.group(2) else "polly tiles ") + m.group(1)
# With --jobs > 1 the kernels of one size share their utility objects: built
# once, under this lock.
UTIL_LOCK = threading.Lock()


class Config:
    def __init__(self, args):
        self.polybench = os.path.abspath(args.polybench)
        self.build = os.path.abspath(args.build)
        self.out = os.path.abspath(args.out)
        self.work = os.path.abspath(args.workdir)
        self.sizes = args.sizes
        self.stripes = [common.parse_size(s) for s in args.stripes]
        self.buffers = args.buffers
        self.modes = args.modes
        self.kernels = args.kernels
        self.disks = args.disks
        self.model = args.model
        self.timeout = args.timeout
        self.compile_timeout = args.compile_timeout
        self.min_frames = args.min_frames
        self.trace = not args.no_floor
        self.jobs = max(1, args.jobs)
        self.apart = args.apart
        self.iopoly_clang = os.path.join(self.build, "bin", "iopoly-clang")
        self.trace_tool = os.path.join(self.build, "bin", "iopoly-trace")
        self.include = os.path.join(common.ROOT, "include")

    def describe(self):
        return {"sizes": self.sizes, "stripes": self.stripes, "buffers": self.buffers, "modes": self.modes,
                "kernels": self.kernels, "disks": self.disks, "model": self.model, "timeout": self.timeout,
                "min_frames": self.min_frames, "floor": self.trace, "jobs": self.jobs, "apart": self.apart}


def dump_of(stderr):
    """The POLYBENCH_DUMP_ARRAYS output (stderr) without the runtime's own
    messages (lines starting with 'iopoly:')."""
    return "".join(l for l in stderr.splitlines(keepends=True) if not l.startswith("iopoly:"))


class Kernel:
    """One kernel at one dataset size: its builds and runs."""

    def __init__(self, cfg, kernel, size):
        self.cfg, self.kernel, self.size = cfg, kernel, size
        self.name = prepare.kernel_name(kernel)
        self.dir = os.path.join(cfg.work, size, self.name)
        os.makedirs(self.dir, exist_ok=True)
        self.src = prepare.prepare(cfg.polybench, kernel, os.path.join(cfg.work, size), apart=cfg.apart)
        self.defs = [f"-D{size}_DATASET", *prepare.DEFINES]

    def utilities(self):
        """polybench.c twice: as is (the reference build) and with its
        allocation renamed away (the iopoly builds use alloc.c's)."""
        with UTIL_LOCK:
            return prepare.build_utilities(self.src, self.defs, self.cfg.include,
                                           os.path.join(self.cfg.work, self.size, "util"))

    def build_reference(self):
        plain, _, _ = self.utilities()
        exe = os.path.join(self.dir, "plain.exe")
        cmd = ["clang-19", "-O2", *self.defs, *self.src["includes"], self.src["source"], plain, "-lm", "-o", exe]
        ok, err, wall, cpu = common.run_compiler(cmd, self.cfg.compile_timeout)
        if not ok:
            raise RuntimeError(f"{self.name} {self.size}: the plain build fails:\n{err}")
        res = subprocess.run([exe], capture_output=True, timeout=self.cfg.timeout)
        if res.returncode:
            raise RuntimeError(f"{self.name} {self.size}: the plain build exits with {res.returncode}")
        ref = os.path.join(self.dir, "plain.dump")
        with open(ref, "wb") as f:
            f.write(res.stderr)
        return {"seconds": wall, "cpu_seconds": cpu, "dump": ref, "dump_bytes": len(res.stderr)}

    def build_mode(self, mode):
        _, renamed, alloc = self.utilities()
        obj = os.path.join(self.dir, mode + ".o")
        exe = os.path.join(self.dir, mode + ".exe")
        plugin_mode, *options = mode.split("+")
        cmd = [self.cfg.iopoly_clang, "-O2", f"-fplugin-arg-iopoly-mode={plugin_mode}",
               *(f"-fplugin-arg-iopoly-{o}" for o in options), *self.defs, *self.src["includes"],
               "-Rpass=iopoly", "-Rpass-missed=iopoly", "-Rpass-analysis=iopoly", "-c", self.src["source"], "-o", obj]
        ok, err, wall, cpu = common.run_compiler(cmd, self.cfg.compile_timeout)
        info = {"mode": mode, "ok": ok, "seconds": wall, "cpu_seconds": cpu,
                "command": " ".join(c.replace(self.cfg.work + "/", "") for c in
                                    ["iopoly-clang", *cmd[1:]])}
        if not ok:
            info["error"] = "\n".join(err.splitlines()[-20:])
            return None, info
        info["remarks"] = common.remarks_of(err, os.path.basename(self.src["source"]))
        info["code"] = common.code_hash(obj)
        link = [self.cfg.iopoly_clang, "-O2", obj, renamed, alloc, "-lm", "-o", exe]
        res = subprocess.run(link, capture_output=True, text=True)
        if res.returncode:
            info["ok"] = False
            info["error"] = "link: " + res.stderr[-2000:]
            return None, info
        return exe, info

    def run(self, exe, stripe, buffer, ref_dump, trace, timeout=None):
        work = os.path.join(self.dir, "run")
        os.makedirs(work, exist_ok=True)
        r = common.run_striped(exe, work, stripe, buffer, self.cfg.disks, self.cfg.model, "off",
                               timeout or self.cfg.timeout,
                               # No thrash warning: it would land in the middle of a
                               # line of the dump (stderr), which is compared.
                               trace=trace, extra_env={"IOPOLY_VERBOSE": "1", "IOPOLY_THRASH": "0"})
        out = {k: v for k, v in r.items() if k not in ("stdout", "stderr", "datadir", "trace")}
        # The versions the runtime chose for restructured loops.
        out["versions"] = [{"where": m.group(1), "version": int(m.group(2)), "of": int(m.group(3)),
                            "kind": version_kind(int(m.group(2)), int(m.group(3)), m.group(4))}
                           for m in VERSION_LINE.finditer(r.get("stderr", ""))]
        if r["status"] == "ok":
            with open(ref_dump, "rb") as f:
                out["identical"] = dump_of(r["stderr"]).encode("latin-1") == f.read()
            out["data_bytes"] = common.array_bytes(r["datadir"])
            if r.get("trace"):
                out["floor"] = common.trace_floor(self.cfg.trace_tool, r["trace"], buffer, stripe)
        shutil.rmtree(work, ignore_errors=True)
        return out


def buffer_for(data, fraction, stripe, min_frames):
    frames = max(min_frames, int(data * common.frac_value(fraction)) // stripe)
    return frames * stripe


def run_kernel(cfg, kernel, size, save):
    """Measures one kernel at one size; hands its entry to save()."""
    k = Kernel(cfg, kernel, size)
    entry = {"kernel": k.name, "path": kernel, "size": size, "builds": {}, "runs": []}
    common.log(f"{k.name} {size}: plain build")
    try:
        entry["reference"] = k.build_reference()
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        entry["error"] = str(e)
        save(entry)
        return
    exes = {}
    for mode in cfg.modes:
        common.log(f"{k.name} {size}: compiling mode={mode}")
        exe, info = k.build_mode(mode)
        entry["builds"][mode] = info
        if exe:
            exes[mode] = exe
        else:
            common.log(f"  COMPILE FAILED: {info.get('error', '')[:500]}")
    # The data size: one lowered run with a buffer that holds everything.
    sizing = next((m for m in ("lower", *cfg.modes) if m in exes), None)
    data = None
    if sizing:
        # Everything in the buffer: no I/O to wait for, but the lowered
        # code of a large kernel may still need longer than one run's limit.
        r = k.run(exes[sizing], cfg.stripes[0], 1 << 34, entry["reference"]["dump"], trace=False,
                  timeout=max(4 * cfg.timeout, 300))
        entry["sizing_run"] = r
        data = r.get("data_bytes")
    if not data:
        entry["error"] = "could not determine the data size (the sizing run failed)"
        save(entry)
        return
    entry["data_bytes"] = data
    for stripe in cfg.stripes:
        for frac in cfg.buffers:
            buffer = buffer_for(data, frac, stripe, cfg.min_frames)
            for mode in cfg.modes:
                if mode not in exes:
                    continue
                common.log(f"{k.name} {size}: {mode} stripe {common.stripe_name(stripe)} buffer {frac} "
                           f"({common.human_bytes(buffer)} of {common.human_bytes(data)})")
                r = k.run(exes[mode], stripe, buffer, entry["reference"]["dump"], cfg.trace)
                row = {"mode": mode, "stripe": stripe, "fraction": frac, "buffer": buffer, **r}
                st = r.get("stats") or {}
                fl = r.get("floor") or {}
                common.log(f"    {r['status']}{'' if r.get('identical', True) else ' OUTPUT DIFFERS'}: "
                           f"fetches {st.get('stripe_fetches')}, fetch/blk {st.get('fetches_per_block') or 0:.2f}, "
                           f"modeled {st.get('modeled_io_seconds') or 0:.2f} s, MIN {fl.get('min_fetches')}, "
                           f"wall {r['wall']:.1f} s")
                entry["runs"].append(row)
    save(entry)


def run_all(cfg, resume):
    raw_path = os.path.join(cfg.out, "raw", "polybench.json")
    raw = None
    machine = common.machine_info(cfg.build, cfg.work)
    if resume and os.path.exists(raw_path):
        with open(raw_path) as f:
            raw = json.load(f)
    if raw is None:
        raw = {"config": cfg.describe(), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "machine": machine, "kernels": [], "load_start": os.getloadavg()}
    # Kernels added by --resume with another build than the run's say so.
    build = ("git_commit", "git_dirty", "plugin_sha256", "runtime_sha256")
    other = any(machine[k] != raw["machine"].get(k) for k in build)
    os.makedirs(os.path.dirname(raw_path), exist_ok=True)
    t0 = time.monotonic()
    lock = threading.Lock()
    # PolyBench's order (kernels added by --resume go in their place).
    order = {(prepare.kernel_name(k), size): i for i, (size, k) in
             enumerate((size, k) for size in cfg.sizes for k in prepare.KERNELS)}

    def save(entry=None):
        with lock:
            if entry is not None:
                if other:
                    entry["commit"] = machine["git_commit"] + (" (uncommitted changes)" if machine["git_dirty"] else "")
                raw["kernels"].append(entry)
                # Kernels finish out of order with --jobs: keep PolyBench's order.
                raw["kernels"].sort(key=lambda e: order.get((e["kernel"], e["size"]), len(order)))
            raw["seconds"] = raw.get("seconds_before", 0) + time.monotonic() - t0
            raw["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
            raw["load_end"] = os.getloadavg()
            tmp = raw_path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(raw, f, separators=(",", ":"))  # compact: the raw data of a quick run is over 1 MiB indented
            os.replace(tmp, raw_path)

    raw["seconds_before"] = raw.get("seconds", 0)
    done = {(e["kernel"], e["size"]) for e in raw["kernels"]}
    todo = [(size, kernel) for size in cfg.sizes for kernel in cfg.kernels
            if (prepare.kernel_name(kernel), size) not in done]
    if cfg.jobs == 1:
        for size, kernel in todo:
            run_kernel(cfg, kernel, size, save)
    else:
        # Kernels in parallel (threads waiting on compiler and program
        # processes): wall times are then those of a loaded machine; the
        # counters and the modeled I/O are not affected.
        with ThreadPoolExecutor(cfg.jobs) as pool:
            for f in [pool.submit(run_kernel, cfg, kernel, size, save) for size, kernel in todo]:
                f.result()
    save()
    return raw
