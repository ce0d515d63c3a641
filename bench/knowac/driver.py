# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""driver.py - runs knowac-gen and pgea for the KNOWAC benchmark.

One Bench object knows the build (pgea, knowac-gen, libiopoly_knowac.so,
libknowac_slowdisk.so) and a scratch directory; run() starts pgea once, on
1 rank (a singleton MPI process) or N ranks (mpirun), with or without
KNOWAC, on the disk model or not, and returns what pgea printed, the
knowac statistics of every rank, the disk model's counters, the process's
wall and CPU time and a SHA-256 of the output file (results must be byte
for byte the same with and without KNOWAC).
"""
import glob
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, build, workdir, model="hdd", servers=1):
        self.build = os.path.abspath(build)
        self.work = os.path.abspath(workdir)
        self.data = os.path.join(self.work, "data")      # on the disk model
        self.scratch = os.path.join(self.work, "runs")   # statistics, databases
        os.makedirs(self.data, exist_ok=True)
        os.makedirs(self.scratch, exist_ok=True)
        self.pgea = os.path.join(self.build, "bench", "pgea")
        self.gen_tool = os.path.join(self.build, "bench", "knowac-gen")
        self.slowdisk = os.path.join(self.build, "bench", "libknowac_slowdisk.so")
        self.knowac = os.path.join(self.build, "lib", "libiopoly_knowac.so")
        for p in (self.pgea, self.gen_tool, self.slowdisk, self.knowac):
            if not os.path.exists(p):
                raise SystemExit(f"bench_knowac: {p} is missing (build the targets pgea, knowac-gen, "
                                 "knowac_slowdisk and iopoly_knowac)")
        self.model = model
        self.mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
        self.counter = 0

    # -- inputs ------------------------------------------------------------
    def gen(self, name, cells=16384, layers=16, steps=4, nvars=4, vtype="double", fmt="cdf2", seed=1):
        """Writes data/<name>.nc once (kept when the parameters are the same)."""
        path = os.path.join(self.data, name + ".nc")
        tag = f"{cells} {layers} {steps} {nvars} {vtype} {fmt} {seed}"
        stamp = path + ".params"
        if os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == tag:
            return path
        subprocess.run([self.gen_tool, "-o", path, "--cells", str(cells), "--layers", str(layers), "--steps",
                        str(steps), "--vars", str(nvars), "--type", vtype, "--format", fmt, "--seed", str(seed)],
                       check=True, env=self._base_env())
        open(stamp, "w").write(tag)
        return path

    # -- one run -----------------------------------------------------------
    def _base_env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("IOPOLY_", "KNOWAC_", "LD_PRELOAD"))}
        env["OMPI_MCA_btl"] = "self,vader"  # shared memory only: no network probing
        return env

    def run(self, inputs, op="avg", work=0, ranks=1, knowac="off", db=None, app="pgea", disk=True, servers=1,
            extra_env=None, keep_output=False):
        """knowac: off (not loaded), learn, prefetch or dry (prefetch with IOPOLY_KNOWAC_DRY_RUN=1)."""
        self.counter += 1
        tag = f"r{self.counter:04d}"
        rdir = os.path.join(self.scratch, tag)
        os.makedirs(rdir)
        out = os.path.join(self.data, f"out-{tag}.nc")
        env = self._base_env()
        preload = []
        if disk:
            preload.append(self.slowdisk)
            env.update({"KNOWAC_SLOWDISK_DIR": self.data, "KNOWAC_SLOWDISK_MODEL": self.model,
                        "KNOWAC_SLOWDISK_SERVERS": str(servers),
                        "KNOWAC_SLOWDISK_QUEUE": os.path.join(rdir, "queue"),
                        "KNOWAC_SLOWDISK_STATS": os.path.join(rdir, "disk-%p.json")})
        if knowac != "off":
            preload.append(self.knowac)
            env.update({"IOPOLY_KNOWAC": "prefetch" if knowac == "dry" else knowac,
                        "IOPOLY_KNOWAC_DB": db, "IOPOLY_KNOWAC_APP": app,
                        "IOPOLY_STATS": os.path.join(rdir, "stats-%r.json")})
            if knowac == "dry":
                env["IOPOLY_KNOWAC_DRY_RUN"] = "1"
        env.update(extra_env or {})
        if preload:
            env["LD_PRELOAD"] = " ".join(preload)
        cmd = [self.pgea, "-o", out, "--op", op, "--work", str(work)] + list(inputs)
        if ranks > 1:
            launch = [self.mpirun, "-np", str(ranks), "--oversubscribe"]
            if os.geteuid() == 0:
                launch.append("--allow-run-as-root")
            for k in sorted(env):
                if k.startswith(("IOPOLY_", "KNOWAC_", "OMPI_MCA_btl")) or k == "LD_PRELOAD":
                    launch += ["-x", f"{k}={env[k]}"]
            # mpirun itself runs without the preloads.
            cmd = launch + cmd
            env = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise SystemExit(f"bench_knowac: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        line = [l for l in p.stdout.splitlines() if l.startswith("{")]
        res = json.loads(line[-1])
        res.update({"process_seconds": wall,
                    "cpu_seconds": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                    "knowac_mode": knowac, "op": op, "work": work, "ranks": ranks, "disk": disk,
                    "servers": servers, "inputs": [os.path.basename(i) for i in inputs],
                    "stderr": p.stderr.strip()[-2000:]})
        h = hashlib.sha256()
        with open(out, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        res["output_sha256"] = h.hexdigest()
        stats = []
        for f in sorted(glob.glob(os.path.join(rdir, "stats-*.json"))):
            stats.append(json.load(open(f))["knowac"])
        res["knowac"] = stats
        disks = [json.load(open(f)) for f in glob.glob(os.path.join(rdir, "disk-*.json"))]
        # Every rank (and mpirun) writes its own counters; busy time is per
        # server, summed over the ranks' requests.
        res["disk_busy_seconds"] = sum(d["busy_seconds"] for d in disks) / max(servers, 1)
        res["disk_requests"] = sum(d["requests"] for d in disks)
        if not keep_output:
            os.remove(out)
        shutil.rmtree(rdir, ignore_errors=True)
        return res


def summary(res):
    """One line for the progress log."""
    k = res["knowac"][0] if res["knowac"] else {}
    s = (f"{res['knowac_mode']:8s} ranks={res['ranks']} op={res['op']:5s} work={res['work']:<4d} "
         f"{res['seconds']:6.2f} s (read {res['read_seconds']:.2f}, compute {res['compute_seconds']:.2f}, "
         f"write {res['write_seconds']:.2f})")
    if k:
        s += f"  hits {k['hits']}/{k['hits'] + k['misses'] + k['partial_hits']} acc {k['accuracy']:.2f}"
    return s
