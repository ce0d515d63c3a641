# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Helpers shared by the benchmark drivers of bench/<topic>/ (disk-reuse
restructuring on bench/kernels, PolyBench/C): sizes and their names,
progress output, compiling with CPU times, running a program on striped
disk directories with IOPOLY_STATS (and the trace floor of iopoly-trace
--min), remarks, the machine code of an ELF file, machine information,
means. Standard library only.
"""
import hashlib
import json
import math
import os
import platform
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STAT_KEYS = ["stripe_fetches", "distinct_stripes", "fetches_per_block", "modeled_io_seconds",
             "modeled_disk_busy_seconds", "io_seconds", "wall_seconds", "buffer_hits", "evictions", "writebacks",
             "bytes_read", "bytes_written", "attaches", "releases", "hit_ratio", "zero_fills", "overwrites",
             "prefetch", "threads", "write_behind", "write_behind_changed_again"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = str(text).strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


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


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def gmean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def clean_env():
    """The environment without any IOPOLY_* setting of the caller."""
    return {k: v for k, v in os.environ.items() if not k.startswith("IOPOLY_")}


REMARK = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): remark: (?P<msg>.*?) \[(?P<flag>-R[\w-]+=[\w.-]+)\]$")


def remarks_of(stderr, basename=None):
    """Remarks in a compiler's stderr (of file \\p basename only if given),
    each once, without Polly's aliasing advice."""
    out, seen = [], set()
    for line in stderr.splitlines():
        m = REMARK.match(line.strip())
        if not m or (basename and os.path.basename(m.group("file")) != basename):
            continue
        if m.group("msg").startswith("Possibly aliasing pointer"):
            continue
        key = (m.group("line"), m.group("col"), m.group("msg"), m.group("flag"))
        if key not in seen:
            seen.add(key)
            out.append({"line": int(m.group("line")), "col": int(m.group("col")), "msg": m.group("msg"),
                        "flag": m.group("flag")})
    return out


def machine_code(path):
    """The executable sections of an ELF64 file (name and bytes of each):
    what tells whether two builds differ in their code."""
    try:
        with open(path, "rb") as f:
            elf = f.read()
    except OSError:
        return None
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return None
    order = "<" if elf[5] == 1 else ">"
    shoff, = struct.unpack_from(order + "Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", elf, 0x3A)

    def section(k):
        name, _, flags, _, off, size = struct.unpack_from(order + "IIQQQQ", elf, shoff + k * shentsize)
        return name, flags, off, size

    _, _, stroff, _ = section(shstrndx)
    code = []
    for k in range(shnum):
        name, flags, off, size = section(k)
        if flags & 0x4:  # SHF_EXECINSTR
            end = elf.index(b"\0", stroff + name)
            code.append(elf[stroff + name:end] + b":" + elf[off:off + size])
    return b"\n".join(code)


def code_hash(path):
    code = machine_code(path)
    return None if code is None else hashlib.sha256(code).hexdigest()


def file_hash(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return ""


def run_compiler(cmd, timeout):
    """Runs a compiler command; returns (ok, stderr, wall seconds, CPU
    seconds of the compiler and its children). The CPU time is the
    command's own (wait4), not a difference of RUSAGE_CHILDREN, which
    would also count the commands other threads of the bench reap meanwhile
    (--jobs 2)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as errf:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf)
        status, usage = None, None
        while status is None:
            pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status, usage = st, ru
            elif time.monotonic() - t0 > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                status = None
                break
            else:
                time.sleep(0.01)
        proc.returncode = 0  # reaped above: Popen must not wait for it again
        wall = time.monotonic() - t0
        errf.seek(0)
        err = errf.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    if status is None:
        return False, f"timeout after {timeout} s", wall, cpu
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        err = f"exit status {code}\n" + err
    return code == 0, err, wall, cpu


def run_striped(exe, workdir, stripe, buffer, disks, model="hdd", direct="off", timeout=600, args=(), trace=False,
                extra_env=None):
    """Runs \\p exe on \\p disks fresh disk directories under \\p workdir with
    the given stripe and buffer; returns a dict: status (ok, timeout,
    buffer-full, failed), wall, load, stdout, stderr, stats (IOPOLY_STATS),
    and the trace path when asked."""
    datadir = os.path.join(workdir, "data")
    shutil.rmtree(datadir, ignore_errors=True)
    os.makedirs(datadir)
    stats_file = os.path.join(workdir, "stats.json")
    trace_file = os.path.join(workdir, "trace.bin")
    for f in (stats_file, trace_file):
        if os.path.exists(f):
            os.unlink(f)
    env = clean_env()
    env.update({"IOPOLY_DIR": datadir, "IOPOLY_DISKS": str(disks), "IOPOLY_STRIPE": str(stripe),
                "IOPOLY_BUFFER": str(buffer), "IOPOLY_DISK_MODEL": model, "IOPOLY_DIRECT": direct,
                "IOPOLY_STATS": stats_file})
    if trace:
        env["IOPOLY_TRACE"] = trace_file
    env.update(extra_env or {})
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        res = subprocess.run([exe, *args], capture_output=True, env=env, cwd=workdir, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "wall": time.monotonic() - t0, "load": load}
    out = {"status": "ok", "wall": time.monotonic() - t0, "load": load,
           "stdout": res.stdout.decode("latin-1"), "stderr": res.stderr.decode("latin-1"), "datadir": datadir}
    if res.returncode != 0:
        err = out["stderr"].strip().splitlines()
        out["status"] = "buffer-full" if "stripe buffer full" in out["stderr"] else "failed"
        out["error"] = f"exit status {res.returncode}: " + " | ".join(err[-3:])
        return out
    if os.path.exists(stats_file):
        with open(stats_file) as f:
            st = json.load(f)
        out["stats"] = {k: st.get(k) for k in STAT_KEYS}
        out["direct_io"] = st.get("direct_io")
    if trace and os.path.exists(trace_file):
        out["trace"] = trace_file
    return out


def trace_floor(trace_tool, trace_file, buffer, stripe, timeout=1800):
    """Belady's MIN of a traced run at \\p buffer bytes (iopoly-trace --min):
    {frames, references, distinct_stripes, min_misses, min_fetches} or None."""
    try:
        res = subprocess.run([trace_tool, "--min", str(buffer) + "B", "--stripe", str(stripe), trace_file],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if res.returncode != 0:
        return None
    return json.loads(res.stdout)


def array_bytes(datadir):
    """Bytes of the disk-resident arrays of a run: the 'bytes' lines of the
    array headers in the first disk directory."""
    total = 0
    d0 = os.path.join(datadir, "disk0")
    for name in sorted(os.listdir(d0)) if os.path.isdir(d0) else []:
        if not name.endswith(".iop"):
            continue
        with open(os.path.join(d0, name), "rb") as f:
            head = f.read(4096).decode("latin-1")
        m = re.search(r"^bytes (\d+)$", head, re.M)
        if m:
            total += int(m.group(1))
    return total


def machine_info(build, workdir, git_paths=("plugin", "runtime", "include", "bench")):
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

    fs = out(["df", "-T", workdir]).splitlines()
    clang = out(["clang-19", "--version"])
    return {"nproc": os.cpu_count(), "uname": out(["uname", "-a"]).strip(), "cpu": cpu, "memory": mem,
            "clang": clang.splitlines()[0] if clang else "",
            "workdir_fs": fs[-1].split()[1] if len(fs) > 1 else "", "python": platform.python_version(),
            "git_commit": out(["git", "rev-parse", "--short", "HEAD"]),
            # Results being written (bench/results) are not the code measured.
            "git_dirty": [l[3:] for l in out(["git", "status", "--porcelain", "--", *git_paths,
                                              ":(exclude)bench/results"]).splitlines()],
            "plugin_sha256": file_hash(os.path.join(build, "lib", "IOPoly.so")),
            "runtime_sha256": file_hash(os.path.join(build, "lib", "libiopoly.so"))}


def matplotlib_or_none():
    """pyplot with the Agg backend, or None (the report says the plots are
    missing) when python3-matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None
