#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench_partition.py - profile-guided file partitioning (paper 4) on the
modeled cluster: five workloads at 4, 8 and 16 ranks, central MPI-IO
against the partition layer.

For every workload (bench/partition/*.c) and rank count:

  1. the plain program (central MPI-IO, the baseline): its outputs are the
     reference, its wall time the baseline wall time;
  2. the same program linked with libiopoly_profile (IOPOLY_PROFILE): the
     profile, and the profiler's overhead;
  3. iopoly-partition PROFILE -o plan.json;
  4. the program linked with libiopoly_partition and the plan, gathering at
     close (the default: the shared files are whole when it ends), its own
     log saying where every byte went;
  5. the same with IOPOLY_PARTITION_GATHER=manual (the data stays
     partitioned, as in the paper's runs), then `iopoly-partition gather`;
  6. iopoly-profile model on the baseline profile and on both logs: modeled
     run time (I/O only) and read/write bandwidth on a cluster of node-local
     disks and a central disk behind one shared link (ClusterModel.h).

Every shared file must equal the baseline's byte for byte (after the gather
in 5) and every run must print the baseline's checksum of what it read;
a difference is reported and makes the tool exit with status 1. Writes
bench/results/partition.md, partition-*.png and raw/partition.json.

  bench_partition.py [--quick] [--build DIR] [--out DIR] [--workdir DIR]
                     [--ranks 4,8,16] [--benchmarks perf,...] [--repeat N]
  bench_partition.py --render-only    # the report and plots from raw/partition.json
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCHMARKS = {
    # name: (arguments, files it writes, its input file (or None), what paper 4 calls it)
    "perf": ([], ["perf.dat"], None, "MPICH perf: a 1 MiB block per rank, written and read back"),
    "tileio": ([], ["tile.dat"], None, "mpi-tile-io: 128x128 tiles of doubles, 2-element overlap"),
    "jacobi": ([], ["jacobi.a", "jacobi.b"], "jacobi.a", "out-of-core Jacobi, 1024x512 doubles, 4 sweeps"),
    "mandelbrot": ([], ["mandel.img"], None, "Mandelbrot 2048x1024, written row by row, read back"),
    "btio": ([], ["btio.out"], None, "BT-IO-like: 32^3 cells x 5 doubles, 5 steps appended"),
}
QUICK_ARGS = {"perf": ["--block", "262144"], "tileio": ["--tile", "64"], "jacobi": ["--rows", "256"],
              "mandelbrot": ["--height", "256"], "btio": ["--n", "16", "--steps", "2"]}
RESULTS = os.path.join(ROOT, "bench", "results")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Runner:
    def __init__(self, build, workdir, quick):
        self.bin = os.path.join(build, "bench", "partition")
        self.tools = os.path.join(build, "bin")
        self.workdir = workdir
        self.quick = quick
        self.mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
        if not self.mpirun:
            sys.exit("bench_partition: mpirun not found (install openmpi-bin)")
        self.launcher = [self.mpirun]
        version = subprocess.run([self.mpirun, "--version"], capture_output=True, text=True).stdout
        self.mpi_version = version.splitlines()[0] if version else "?"
        if "Open MPI" in version or "OpenRTE" in version:
            self.launcher += ["--oversubscribe"]
            if os.geteuid() == 0:
                self.launcher += ["--allow-run-as-root"]
        for tool in ("iopoly-profile", "iopoly-partition"):
            if not os.path.exists(os.path.join(self.tools, tool)):
                sys.exit(f"bench_partition: {self.tools}/{tool} missing; build first")

    def mpi(self, np, program, args, env=None, check=True, cpu=False):
        """Runs PROGRAM on NP ranks; returns (its JSON line, wall seconds of the
        process, its stderr[, CPU seconds of mpirun and every rank])."""
        e = dict(os.environ)
        e["OMPI_MCA_btl"] = "self,vader"
        e.update(env or {})
        cmd = list(self.launcher)
        if "Open MPI" in self.mpi_version:
            for k in sorted(env or {}):
                cmd += ["-x", k]
            cmd += ["-x", "OMPI_MCA_btl"]
        cmd += ["-np", str(np), os.path.join(self.bin, program)] + args
        t, u = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, capture_output=True, text=True, env=e)
        wall = time.monotonic() - t
        u2 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = (u2.ru_utime + u2.ru_stime) - (u.ru_utime + u.ru_stime)
        if p.returncode != 0 and check:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
        line = next((l for l in p.stdout.splitlines() if l.startswith("{")), None)
        out = (json.loads(line) if line else None), wall, p.stderr
        return out + (cpu_s,) if cpu else out

    def tool(self, name, args):
        p = subprocess.run([os.path.join(self.tools, name)] + args, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{name} {' '.join(args)} failed:\n{p.stderr[-3000:]}")
        return p.stdout

    def model(self, logfile):
        out = logfile + ".model.json"
        self.tool("iopoly-profile", ["model", "--json", out, logfile])
        with open(out) as f:
            return json.load(f)[0]


def same_files(a_dir, b_dir, names):
    for n in names:
        a, b = os.path.join(a_dir, n), os.path.join(b_dir, n)
        if not os.path.exists(b):
            return f"{n} missing"
        if subprocess.run(["cmp", "-s", a, b]).returncode != 0:
            return f"{n} differs"
    return None


def run_one(r, bench, np, repeat):
    args0, outputs, input_file, _ = BENCHMARKS[bench]
    args = args0 + (QUICK_ARGS[bench] if r.quick else [])
    wd = os.path.join(r.workdir, f"{bench}-{np}")
    shutil.rmtree(wd, ignore_errors=True)
    central, ref = os.path.join(wd, "central"), os.path.join(wd, "ref")
    os.makedirs(central)
    os.makedirs(ref)
    local_pattern = os.path.join(wd, "local", "node%r")
    pristine = None
    if input_file:  # the initial out-of-core data, made once
        r.mpi(np, f"{bench}-plain", args + ["--dir", central, "--init"])
        pristine = os.path.join(wd, "pristine-" + input_file)
        shutil.copy(os.path.join(central, input_file), pristine)

    def reset(local_too=True):
        for n in outputs:
            p = os.path.join(central, n)
            if os.path.exists(p):
                os.remove(p)
        if pristine:
            shutil.copy(pristine, os.path.join(central, input_file))
        if local_too:
            shutil.rmtree(os.path.join(wd, "local"), ignore_errors=True)

    res = {"bench": bench, "nranks": np, "args": args, "problems": []}
    run_args = args + ["--dir", central]

    # 1-2. the baseline and the profile run, alternating so that the load
    # of a shared machine drifts alike over both (the profiler's cost is the
    # median of the per-round ratios)
    prof = os.path.join(wd, "profile")
    plain_w, plain_p, prof_w, prof_p, plain_cpu, prof_cpu = [], [], [], [], [], []
    for _ in range(repeat):
        reset()
        j, w, _, cpu = r.mpi(np, f"{bench}-plain", run_args, cpu=True)
        plain_w.append(j["wall_s"])
        plain_p.append(w)
        plain_cpu.append(cpu)
        res["plain"] = j
        for n in outputs:
            shutil.copy(os.path.join(central, n), os.path.join(ref, n))
        reset()
        jp, w, _, cpu = r.mpi(np, f"{bench}-profile", run_args, {"IOPOLY_PROFILE": prof}, cpu=True)
        prof_w.append(jp["wall_s"])
        prof_p.append(w)
        prof_cpu.append(cpu)
    res["plain_wall_s"], res["plain_proc_s"] = statistics.median(plain_w), statistics.median(plain_p)
    res["profile_wall_s"], res["profile_proc_s"] = statistics.median(prof_w), statistics.median(prof_p)
    res["plain_walls"], res["profile_walls"] = plain_w, prof_w
    res["profile_overhead"] = statistics.median(b / a - 1 for a, b in zip(plain_w, prof_w))
    res["profile_overhead_proc"] = statistics.median(b / a - 1 for a, b in zip(plain_p, prof_p))
    res["profile_overhead_cpu"] = statistics.median(b / a - 1 for a, b in zip(plain_cpu, prof_cpu))
    res["profile_bytes"] = os.path.getsize(prof + ".iopp")
    if jp["checksum"] != res["plain"]["checksum"]:
        res["problems"].append("the profiled run read other data")
    diff = same_files(ref, central, outputs)
    if diff:
        res["problems"].append(f"profiled run: {diff}")

    # 3. the plan
    plan = os.path.join(wd, "plan.json")
    res["plan_report"] = r.tool("iopoly-partition", [prof + ".iopp", "-o", plan])
    with open(plan) as f:
        res["plan_stats"] = json.load(f)["report"]

    # 4. partitioned, gathering at close
    env = {"IOPOLY_PARTITION_PLAN": plan, "IOPOLY_LOCAL_DIR": local_pattern,
           "IOPOLY_PARTITION_REPORT": os.path.join(wd, "layer.%r.json")}
    walls, proc = [], []
    routed = os.path.join(wd, "partitioned")
    for _ in range(repeat):
        reset()
        j, w, err = r.mpi(np, f"{bench}-partition", run_args, dict(env, IOPOLY_PROFILE=routed))
        walls.append(j["wall_s"])
        proc.append(w)
    res["part_wall_s"], res["part_proc_s"] = statistics.median(walls), statistics.median(proc)
    res["part_walls"] = walls
    if j["checksum"] != res["plain"]["checksum"]:
        res["problems"].append("the partitioned run read other data")
    diff = same_files(ref, central, outputs)
    res["identical_close"] = diff is None
    if diff:
        res["problems"].append(f"partitioned run: {diff}")
    if "does not match" in err:
        res["problems"].append("the plan did not match the run it was made from")
    layer = []
    for k in range(np):
        with open(os.path.join(wd, f"layer.{k}.json")) as f:
            layer.append(json.load(f))
    res["layer"] = {key: sum(f[key] for x in layer for f in x["files"])
                    for key in ("local_read_bytes", "local_write_bytes", "shared_read_bytes", "shared_write_bytes",
                                "remote_read_bytes", "push_bytes", "stage_bytes", "gather_bytes", "foreign_calls")}

    # 4b. warm: the next job step on the same files, node-local copies of an
    # unchanged file still valid (the reference: the plain program on a copy)
    warmref = os.path.join(wd, "warmref")
    shutil.copytree(central, warmref)
    r.mpi(np, f"{bench}-plain", args + ["--dir", warmref])
    warm = os.path.join(wd, "warm")
    jw, w, _ = r.mpi(np, f"{bench}-partition", run_args, dict(env, IOPOLY_PROFILE=warm))
    res["warm_wall_s"] = jw["wall_s"]
    diff = same_files(warmref, central, outputs)
    res["identical_warm"] = diff is None
    if diff:
        res["problems"].append(f"warm partitioned run: {diff}")

    # 5. partitioned, left partitioned; then the gather
    reset()
    manual = os.path.join(wd, "manual")
    j, w, _ = r.mpi(np, f"{bench}-partition", run_args,
                    dict(env, IOPOLY_PROFILE=manual, IOPOLY_PARTITION_GATHER="manual"))
    res["manual_wall_s"], res["manual_proc_s"] = j["wall_s"], w
    if j["checksum"] != res["plain"]["checksum"]:
        res["problems"].append("the run with manual gather read other data")
    t = time.monotonic()
    r.tool("iopoly-partition", ["gather", plan, "--local-dir", local_pattern])
    res["gather_tool_s"] = time.monotonic() - t
    diff = same_files(ref, central, outputs)
    res["identical_manual"] = diff is None
    if diff:
        res["problems"].append(f"after iopoly-partition gather: {diff}")

    # 6. the modeled cluster
    res["model_central"] = r.model(prof + ".iopp")
    res["model_close"] = r.model(routed + ".iopp")
    res["model_warm"] = r.model(warm + ".iopp")
    res["model_manual"] = r.model(manual + ".iopp")
    return res


def callcost(r, rounds=5):
    """The profiler's own cost per call, on one rank (no oversubscription):
    the minimum over alternating rounds of plain and profiled callcost."""
    wd = os.path.join(r.workdir, "callcost")
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    best = {"plain": {}, "profile": {}}
    for _ in range(rounds):
        for v in ("plain", "profile"):
            env = {"IOPOLY_PROFILE": os.path.join(wd, "p")} if v == "profile" else {}
            j, _, _ = r.mpi(1, f"callcost-{v}", ["--dir", wd], env)
            for k in ("write_ns", "read_ns", "open_close_ms"):
                best[v][k] = min(best[v].get(k, 1e18), j[k])
    return best


def sensitivity(r, bench, profile_ranks, target):
    """A plan fitted on profiles at PROFILE_RANKS applied at TARGET ranks (paper 4, section 4.3)."""
    args = BENCHMARKS[bench][0] + (QUICK_ARGS[bench] if r.quick else [])
    outputs, input_file = BENCHMARKS[bench][1], BENCHMARKS[bench][2]
    wd = os.path.join(r.workdir, f"sens-{bench}")
    shutil.rmtree(wd, ignore_errors=True)
    central = os.path.join(wd, "central")
    os.makedirs(central)
    logs = []
    for p in profile_ranks:
        if input_file:
            r.mpi(p, f"{bench}-plain", args + ["--dir", central, "--init"])
        r.mpi(p, f"{bench}-profile", args + ["--dir", central], {"IOPOLY_PROFILE": os.path.join(wd, f"p{p}")})
        logs.append(os.path.join(wd, f"p{p}.iopp"))
    plan = os.path.join(wd, "plan.json")
    r.tool("iopoly-partition", logs + ["-o", plan, "--quiet"])
    check = subprocess.run([os.path.join(r.tools, "iopoly-partition"), "check", plan, "--ranks", str(target)],
                           capture_output=True, text=True).stdout
    out = {"bench": bench, "profiles": profile_ranks, "target": target, "check": check.strip()}
    if "applies at" not in check:
        return out
    for n in outputs:
        if os.path.exists(os.path.join(central, n)):
            os.remove(os.path.join(central, n))
    if input_file:
        r.mpi(target, f"{bench}-plain", args + ["--dir", central, "--init"])
    env = {"IOPOLY_PARTITION_PLAN": plan, "IOPOLY_LOCAL_DIR": os.path.join(wd, "local", "node%r"),
           "IOPOLY_PROFILE": os.path.join(wd, "applied")}
    j, _, err = r.mpi(target, f"{bench}-partition", args + ["--dir", central], env)
    out["model"] = r.model(os.path.join(wd, "applied.iopp"))
    out["mismatch"] = "does not match" in err
    return out


# ----------------------------------------------------------------------------
# Report

def pct(a, b):
    return 100.0 * (1 - b / a) if a else 0.0


def render(data, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = data["results"]
    benches = [b for b in BENCHMARKS if any(x["bench"] == b for x in rows)]
    ranks = sorted({x["nranks"] for x in rows})
    at8 = {x["bench"]: x for x in rows if x["nranks"] == (8 if 8 in ranks else ranks[-1])}
    mid = 8 if 8 in ranks else ranks[-1]
    L = []
    L.append("# Profile-guided file partitioning (paper 4): benchmark report\n")
    L.append(f"Regenerate: `{data['command']}` (about {data['elapsed_s'] / 60:.0f} minutes here; "
             "`--render-only` re-renders this page from `raw/partition.json`).\n")
    L.append(f"Machine: {data['machine']}; {data['mpi']}; source {data['commit']}. "
             f"Ranks oversubscribe the {data['cpus']} CPUs; every directory is on the same disk.\n")
    L.append("Five workloads after paper 4, section 4.1 (bench/partition/), each at "
             + ", ".join(map(str, ranks)) + " ranks: the plain program (central MPI-IO), the profile run "
             "(libiopoly_profile), `iopoly-partition`, the partitioned run (libiopoly_partition) gathering at "
             "close, and the partitioned run with `IOPOLY_PARTITION_GATHER=manual` followed by "
             "`iopoly-partition gather`. Modeled times come from `iopoly-profile model` on each run's log "
             "(the partition layer logs where every byte went): node-local disks, a central disk behind one "
             "link shared by all nodes, FIFO queues, compute free, collective calls pooled as two-phase I/O. "
             "The model's parameters follow paper 4's cluster (Table 3):\n")
    p = data["model_params"]
    L.append("| device | model |\n|---|---|")
    for k in ("central", "link", "local", "port"):
        L.append(f"| {k} | `{p[k]}` |")
    L.append("")
    for b in benches:
        L.append(f"* **{b}**: {BENCHMARKS[b][3]}")
    L.append("")

    # Targets
    L.append("## Targets\n")
    L.append(f"At {mid} ranks, modeled. *cold*: the first partitioned run after the profile (node-local files "
             "empty: every byte read before it is written comes from the central storage); *warm*: the next job "
             "step on the same files (node-local copies of files that did not change are still valid); both "
             "gather at close (the layer's default: the shared files are whole when the program ends). *left "
             "partitioned*: `IOPOLY_PARTITION_GATHER=manual`, the data stays in the node-local files (as in the "
             "paper's measurements) until `iopoly-partition gather`.\n")
    L.append("| workload | read BW x cold / warm | write BW x cold / warm | run time -% cold | warm | left partitioned |"
             " shared files identical |")
    L.append("|---|---|---|---|---|---|---|")
    ok = {"bw_cold": True, "bw_warm": True, "rt_cold": True, "rt_warm": True, "rt_manual": True, "same": True}
    for b in benches:
        x = at8[b]
        c, m, w, n = x["model_central"], x["model_close"], x["model_warm"], x["model_manual"]
        ratio = lambda a, k: a[f"{k}_bandwidth"] / c[f"{k}_bandwidth"] if c[f"{k}_bandwidth"] else 0
        rc, rw, rm = pct(c["makespan_s"], m["makespan_s"]), pct(c["makespan_s"], w["makespan_s"]), \
            pct(c["makespan_s"], n["makespan_s"])
        ident = x["identical_close"] and x["identical_manual"] and x.get("identical_warm", True)
        ok["bw_cold"] &= ratio(m, "read") >= 3 and ratio(m, "write") >= 3
        ok["bw_warm"] &= ratio(w, "read") >= 3 and ratio(w, "write") >= 3
        ok["rt_cold"] &= rc >= 30
        ok["rt_warm"] &= rw >= 30
        ok["rt_manual"] &= rm >= 30
        ok["same"] &= ident
        L.append(f"| {b} | {ratio(m, 'read'):.1f} / {ratio(w, 'read'):.1f} | {ratio(m, 'write'):.1f} / "
                 f"{ratio(w, 'write'):.1f} | {rc:.0f}% | {rw:.0f}% | {rm:.0f}% | {'yes' if ident else '**NO**'} |")
    L.append("")
    v = lambda k: "PASS" if ok[k] else "NOT MET"
    L.append(f"* Partitioned bandwidth at least 3x central MPI-IO at {mid} ranks, reads and writes, every workload: "
             f"cold **{v('bw_cold')}**, warm **{v('bw_warm')}**.")
    L.append(f"* Run time at least 30% lower on every workload: cold **{v('rt_cold')}**, warm **{v('rt_warm')}**, "
             f"left partitioned **{v('rt_manual')}**.")
    L.append(f"* Shared files byte-identical to the central run afterwards (cold, warm, and after "
             f"`iopoly-partition gather`): **{v('same')}**.")
    over = [(b, 100 * at8[b]["profile_overhead"], 100 * at8[b]["profile_overhead_proc"],
             100 * at8[b]["profile_overhead_cpu"]) for b in benches]
    cc = data.get("callcost")
    if cc:
        dw = max(0.0, cc["profile"]["write_ns"] - cc["plain"]["write_ns"])
        dr = max(0.0, cc["profile"]["read_ns"] - cc["plain"]["read_ns"])
        do = max(0.0, cc["profile"]["open_close_ms"] - cc["plain"]["open_close_ms"])
        est = []
        for b in benches:
            c = at8[b]["model_central"]
            n = at8[b]["nranks"]
            files = len(BENCHMARKS[b][1])
            cost = (c["write_calls"] * dw + c["read_calls"] * dr) / n * 1e-9 + files * do * 1e-3
            est.append((b, 100 * cost / c["makespan_s"]))
        L.append(f"* Profiler overhead under 5% of run time at {mid} ranks, on the modeled cluster (its cost per call "
                 f"measured on one rank: write +{dw:.0f} ns, read +{dr:.0f} ns, open+close +{do:.2f} ms; times each "
                 "rank's calls, against the central run's modeled time): "
                 + ", ".join(f"{b} {e:.2f}%" for b, e in est)
                 + f" — **{'PASS' if all(e < 5 for _, e in est) else 'NOT MET'}**. Measured as real wall time on this "
                 f"shared 2-CPU machine, where these runs last tens of milliseconds: "
                 + ", ".join(f"{b} {o:+.0f}%" for b, o, _, _ in over)
                 + f" — **{'PASS' if all(o < 5 for _, o, _, _ in over) else 'NOT MET'}** (median of "
                 f"{data['repeat_mid']} alternating rounds; fixed costs and noise dominate, see below).")
    L.append("")

    # Main table
    L.append("## Modeled run time and bandwidth\n")
    L.append("Modeled seconds of I/O (the makespan; compute is free); bandwidth = sum over ranks of bytes / time "
             "in that rank's read (write) calls, as paper 4 aggregates per-access latencies. The floor is the "
             "bytes-bound minimum of each run on the model (every byte at the bandwidth of the device it went "
             "to, no latency, perfect overlap).\n")
    L.append("| workload | ranks | central s | floor | cold s | floor | warm s | left partitioned s | read MiB/s central / "
             "cold / warm | write MiB/s central / cold / warm | central bytes central / cold / warm |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for b in benches:
        for x in sorted((y for y in rows if y["bench"] == b), key=lambda y: y["nranks"]):
            c, m, w, n = x["model_central"], x["model_close"], x["model_warm"], x["model_manual"]
            mb = lambda v: f"{v / 2**20:.1f}"
            L.append(f"| {b} | {x['nranks']} | {c['makespan_s']:.3f} | {floor(c, data):.3f} | {m['makespan_s']:.3f} | "
                     f"{floor(m, data):.3f} | {w['makespan_s']:.3f} | {n['makespan_s']:.3f} | "
                     f"{mb(c['read_bandwidth'])} / {mb(m['read_bandwidth'])} / {mb(w['read_bandwidth'])} | "
                     f"{mb(c['write_bandwidth'])} / {mb(m['write_bandwidth'])} / {mb(w['write_bandwidth'])} | "
                     f"{mb(c['bytes_shared'])} / {mb(m['bytes_shared'])} / {mb(w['bytes_shared'])} MiB |")
    L.append("")
    L.append("![modeled run time](partition-runtime.png)\n")
    L.append(f"![bandwidth at {mid} ranks](partition-bandwidth.png)\n")

    # Plans
    L.append(f"## What the plans say ({mid} ranks)\n")
    L.append("Chunks (and bytes) per class of Table 1, and what the layer did in the partitioned run "
             "(sums over ranks, from `IOPOLY_PARTITION_REPORT`).\n")
    L.append("| workload | local | duplicate | broadcast | central | node-local I/O | staged | broadcast sent | gathered |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for b in benches:
        x = at8[b]
        cls = {}
        for f in x["plan_stats"]["files"]:
            for v in f.get("variants", []):
                for k, s in v["classes"].items():
                    c = cls.setdefault(k, [0, 0])
                    c[0] += s["chunks"]
                    c[1] += s["bytes"]
        cell = lambda k: f"{cls.get(k, [0, 0])[0]} ({human(cls.get(k, [0, 0])[1])})"
        ly = x["layer"]
        L.append(f"| {b} | {cell('local')} | {cell('duplicate')} | {cell('broadcast')} | {cell('central')} | "
                 f"{human(ly['local_read_bytes'] + ly['local_write_bytes'])} | {human(ly['stage_bytes'])} | "
                 f"{human(ly['push_bytes'])} | {human(ly['gather_bytes'])} |")
    L.append("")

    # Wall time
    L.append("## Real wall time on this machine\n")
    L.append("Seconds inside the program (after MPI_Init, to after the last close: the gather at close included; "
             f"median of {data['repeat_mid']} runs at {mid} ranks, 1 elsewhere), and of the whole `mpirun` process "
             "(start-up and MPI_Finalize, where the profile is merged, included). All directories share one disk "
             "and two CPUs, so these show the layers' software cost, not the cluster's I/O: the modeled times "
             "above are the cluster.\n")
    L.append("| workload | ranks | plain | profiled | partitioned cold | warm | left partitioned | `iopoly-partition gather` | "
             "mpirun plain / profiled / partitioned |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for b in benches:
        for x in sorted((y for y in rows if y["bench"] == b), key=lambda y: y["nranks"]):
            L.append(f"| {b} | {x['nranks']} | {x['plain_wall_s']:.3f} | {x['profile_wall_s']:.3f} | "
                     f"{x['part_wall_s']:.3f} | {x['warm_wall_s']:.3f} | {x['manual_wall_s']:.3f} | "
                     f"{x['gather_tool_s']:.3f} | "
                     f"{x['plain_proc_s']:.2f} / {x['profile_proc_s']:.2f} / {x['part_proc_s']:.2f} |")
    L.append("")
    L.append(f"The profiler's cost at {mid} ranks, median of the per-round ratios (profiled / plain - 1): "
             + "; ".join(f"{b} wall {o:+.0f}%, process {p:+.0f}%, CPU {c:+.0f}%" for b, o, p, c in over) + ". "
             "Under Open MPI the partitioned runs use ROMIO (the layer selects it), the plain ones OMPIO.\n")
    L.append("Profile sizes: " + ", ".join(f"{x['bench']}@{x['nranks']} {human(x['profile_bytes'])}" for x in rows
                                           if x["nranks"] == mid) + ".\n")

    # Sensitivity
    if data.get("sensitivity"):
        L.append("## A plan made at other rank counts (paper 4, section 4.3)\n")
        L.append("Profiles at the first rank counts, `iopoly-partition` fits the accesses as functions of rank "
                 "and size, and the plan is applied at the target count (or says why it cannot).\n")
        L.append("| workload | profiles at | applied at | verdict | modeled s (fitted plan) | modeled s (plan profiled there) |")
        L.append("|---|---|---|---|---|---|")
        for s in data["sensitivity"]:
            direct = next((x for x in rows if x["bench"] == s["bench"] and x["nranks"] == s["target"]), None)
            verdict = s["check"].replace("|", "/").replace("\n", "; ")
            fitted = f"{s['model']['makespan_s']:.3f}" if "model" in s else "-"
            there = f"{direct['model_close']['makespan_s']:.3f}" if direct else "-"
            L.append(f"| {s['bench']} | {', '.join(map(str, s['profiles']))} | {s['target']} | {verdict} | {fitted} | {there} |")
        L.append("")

    problems = [f"{x['bench']}@{x['nranks']}: {p}" for x in rows for p in x["problems"]]
    L.append("## Problems\n")
    L.append("\n".join(f"* {p}" for p in problems) if problems else "None: every run read what the central run read, "
             "and every shared file ended byte-identical to the central run's.")
    L.append("")
    with open(os.path.join(out, "partition.md"), "w") as f:
        f.write("\n".join(L) + "\n")

    # Plots
    fig, axes = plt.subplots(1, len(benches), figsize=(3.2 * len(benches), 3.4), squeeze=False)
    for ax, b in zip(axes[0], benches):
        xs = sorted((y for y in rows if y["bench"] == b), key=lambda y: y["nranks"])
        n = [x["nranks"] for x in xs]
        ax.plot(n, [x["model_central"]["makespan_s"] for x in xs], "o-", label="central MPI-IO")
        ax.plot(n, [x["model_close"]["makespan_s"] for x in xs], "s-", label="partitioned cold, gather at close")
        ax.plot(n, [x["model_warm"]["makespan_s"] for x in xs], "d--", label="partitioned warm, gather at close")
        ax.plot(n, [x["model_manual"]["makespan_s"] for x in xs], "^-", label="partitioned, left partitioned")
        ax.set_title(b)
        ax.set_xlabel("ranks")
        ax.set_xticks(n)
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("modeled I/O time (s)")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "partition-runtime.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    w = 0.2
    for i, (key, lab) in enumerate([("read", "read"), ("write", "write")]):
        c = [at8[b]["model_central"][f"{key}_bandwidth"] / 2**20 for b in benches]
        m = [at8[b]["model_close"][f"{key}_bandwidth"] / 2**20 for b in benches]
        pos = [k + (2 * i - 1.5) * w for k in range(len(benches))]
        ax.bar(pos, c, w, label=f"{lab}, central MPI-IO")
        ax.bar([q + w for q in pos], m, w, label=f"{lab}, partitioned (cold)")
    ax.set_xticks(range(len(benches)))
    ax.set_xticklabels(benches)
    ax.set_yscale("log")
    ax.set_ylabel("aggregate bandwidth (MiB/s, modeled)")
    ax.set_title(f"{mid} ranks")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "partition-bandwidth.png"), dpi=110)
    plt.close(fig)
    return 0 if not problems else 1


def parse_bw(spec):
    """bytes/s of 'bw=' in a device string like 'latency=1ms,seq=0.05ms,bw=17.2 MiB/s,wbw=...'."""
    out = {}
    for part in spec.split(","):
        k, _, v = part.partition("=")
        if k in ("bw", "wbw"):
            num, unit = v.split()[0], v.split()[1] if len(v.split()) > 1 else "B/s"
            mul = {"B/s": 1, "KiB/s": 2**10, "MiB/s": 2**20, "GiB/s": 2**30}.get(unit, 1)
            out[k] = float(num) * mul
    return out


def floor(m, data):
    """Bytes-bound minimum: central bytes through the link, local bytes spread over the nodes' disks."""
    p = data["model_params"]
    link = parse_bw(p["link"]).get("bw", 1)
    local = parse_bw(p["local"])
    local_bw = min(local.get("bw", 1), local.get("wbw", local.get("bw", 1)))
    nodes = m["nranks"]
    return max(m["bytes_shared"] / link, (m["bytes_local"] + m["bytes_push"] + m["bytes_remote"]) / (local_bw * nodes))


def human(n):
    n = float(n)
    for u in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or u == "GiB":
            return f"{n:.0f} {u}" if u == "B" else f"{n:.1f} {u}"
        n /= 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=RESULTS)
    ap.add_argument("--workdir", default="/tmp/iopoly-bench-partition")
    ap.add_argument("--ranks", default="4,8,16")
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    ap.add_argument("--repeat", type=int, default=5,
                    help="alternating plain/profiled rounds and partitioned runs at 8 ranks (median); 1 elsewhere")
    ap.add_argument("--quick", action="store_true", help="small sizes, 4 and 8 ranks, one run each")
    ap.add_argument("--render-only", action="store_true")
    a = ap.parse_args(argv)
    raw = os.path.join(a.out, "raw", "partition.json")
    if a.render_only:
        with open(raw) as f:
            return render(json.load(f), a.out)
    ranks = [int(x) for x in a.ranks.split(",")] if not a.quick else [4, 8]
    repeat = 1 if a.quick else a.repeat
    r = Runner(a.build, a.workdir, a.quick)
    t0 = time.monotonic()
    results = []
    for bench in a.benchmarks.split(","):
        if bench not in BENCHMARKS:
            sys.exit(f"bench_partition: unknown benchmark '{bench}' ({', '.join(BENCHMARKS)})")
        for np in ranks:
            log(f"[{time.monotonic() - t0:6.0f} s] {bench} at {np} ranks")
            res = run_one(r, bench, np, repeat if np == 8 else 1)
            for p in res["problems"]:
                log(f"  PROBLEM: {p}")
            results.append(res)
    log(f"[{time.monotonic() - t0:6.0f} s] the profiler's cost per call")
    cost = callcost(r, 3 if a.quick else 7)
    sens = []
    if not a.quick and 16 in ranks:
        for bench in ("perf", "mandelbrot", "btio", "jacobi"):
            if bench in a.benchmarks.split(","):
                log(f"[{time.monotonic() - t0:6.0f} s] {bench}: plan from 4 and 8 ranks applied at 16")
                sens.append(sensitivity(r, bench, [4, 8], 16))
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    model_params = results[0]["model_central"]["params"]
    data = {
        "command": "scripts/bench-partition.sh" + (" --quick" if a.quick else ""),
        "machine": f"{platform.node()}, {platform.system()} {platform.release()}, {os.cpu_count()} CPUs",
        "cpus": os.cpu_count(), "mpi": r.mpi_version, "commit": commit or "?",
        "elapsed_s": time.monotonic() - t0, "repeat_mid": repeat, "model_params": model_params,
        "results": results, "sensitivity": sens, "callcost": cost,
    }
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    with open(raw, "w") as f:
        json.dump(data, f, indent=1)
    rc = render(data, a.out)
    log(f"wrote {a.out}/partition.md ({time.monotonic() - t0:.0f} s)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
