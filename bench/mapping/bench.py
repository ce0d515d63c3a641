# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the mapping benchmark: every kernel of bench/mapping/kernels (and,
with --polybench, six PolyBench/C 4.2.1 kernels: polybench.py) in the
mappings block, intra, cache and cache+local, on paper 2's hierarchy at
8/4/2 nodes for real (cache servers spawned by MPI_Init, every rank's
statistics) and at 64/32/16 nodes simulated (64 ranks' traces replayed by
iopoly-cachesim in its clock order). Every run must compute what the serial
program does (below); every real run is also replayed by the simulator in the servers'
order, which must agree with it level by level.

Correctness: the 1-rank run of the block build prints the checksum, which
must be the serial program's, and leaves the reference array files. Measured
runs skip the checksum loops (MAPK_CHECKSUM=off: every rank reading all of
the output would swamp the kernel's own misses) and must leave array files
byte-identical to the reference."""

import argparse
import json
import os
import statistics
import sys
import time

from . import common
from . import polybench
from . import report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

KERNELS = ["fig6", "mirror", "shift", "stencil", "matvec", "pairs", "jacobi1d"]
MAPPINGS = {
    "block": ["-fplugin-arg-iopoly-mapping=block"],
    "intra": ["-fplugin-arg-iopoly-mapping=intra"],
    "cache": ["-fplugin-arg-iopoly-mapping=cache", "-fplugin-arg-iopoly-map-local=off"],
    "cache+local": ["-fplugin-arg-iopoly-mapping=cache", "-fplugin-arg-iopoly-map-local=on"],
}
BLOCK = 4096  # stripe = data chunk = cache block
CONFIGS = {
    # (w, x, y) of paper 2, disks, data scale of the kernels, servers for real.
    # The real runs use the smallest data (SCALE=1): every transfer is a
    # round trip through two server processes, and 14 processes share the
    # 2 cores of the machine this was written on (about 20 s a run).
    "real": {"clients": 8, "io": 4, "storage": 2, "disks": 8, "scale": 1, "real": True},
    "sim": {"clients": 64, "io": 32, "storage": 16, "disks": 16, "scale": 4, "real": False},
}


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.work = os.path.abspath(args.work)
        self.mpicc = os.path.join(self.build, "bin", "iopoly-mpicc")
        self.cachesim = os.path.join(self.build, "bin", "iopoly-cachesim")
        os.makedirs(self.work, exist_ok=True)
        self.pb = polybench.Builder(args.polybench, self.work, self.mpicc, os.path.join(ROOT, "include")) \
            if args.polybench else None

    def env(self, cfg, data, extra=None):
        # IOPOLY_THRASH=0: the runtime's warning would land in the middle of
        # PolyBench's dump (both on stderr).
        e = {"IOPOLY_DIR": data, "IOPOLY_DISKS": str(cfg["disks"]), "IOPOLY_STRIPE": str(BLOCK), "IOPOLY_THRASH": "0",
             "IOPOLY_DISK_MODEL": "hdd", "IOPOLY_BACKEND": "posix", "OMPI_MCA_btl": "self,vader,tcp",
             "OMPI_MCA_btl_tcp_if_include": "lo"}
        e.update(extra or {})
        return e

    def compile(self, kernel, mapping, cfg):
        if polybench.is_polybench(kernel):
            return self.compile_polybench(kernel, mapping, cfg)
        out = os.path.join(self.work, "bin", "%s.%s.s%d" % (kernel, mapping.replace("+", "_"), cfg["scale"]))
        src = os.path.join(HERE, "kernels", kernel + ".c")
        inputs = [src, os.path.join(HERE, "kernels", "mapk.h"), os.path.join(self.build, "lib", "IOPoly.so")]
        if os.path.exists(out) and os.path.getmtime(out) >= max(os.path.getmtime(p) for p in inputs if
                                                                os.path.exists(p)):
            return out
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if mapping == "serial":
            flags = ["-fplugin-arg-iopoly-mode=off"]
        else:
            flags = self.mpi_flags(mapping, cfg)
        common.run([self.mpicc, "-O2", "-DSCALE=%d" % cfg["scale"]] + flags + [src, "-o", out])
        return out

    def mpi_flags(self, mapping, cfg):
        return ["-fplugin-arg-iopoly-mpi=on", "-fplugin-arg-iopoly-stripe=%d" % BLOCK,
                "-fplugin-arg-iopoly-disks=%d" % cfg["disks"]] + MAPPINGS[mapping]

    def compile_polybench(self, kernel, mapping, cfg):
        """PolyBench kernels run one dataset in both configurations (its
        sizes are PolyBench's, not scaled)."""
        if mapping == "serial":
            return self.pb.serial(kernel)
        out = os.path.join(self.work, "bin", "%s.%s" % (kernel, mapping.replace("+", "_")))
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(
                os.path.join(self.build, "lib", "IOPoly.so")):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            self.pb.mpi(kernel, self.mpi_flags(mapping, cfg), out)
        return out

    def checksum(self, kernel, out, err):
        """The program's checksum: the last word the bench's kernels print,
        the digest of PolyBench's array dump."""
        return polybench.dump_digest(err) if polybench.is_polybench(kernel) else out.split()[-1]

    def serial_checksum(self, kernel, cfg):
        out, err = common.run([self.compile(kernel, "serial", cfg)])
        return self.checksum(kernel, out, err)

    def reference(self, kernel, cfg, expect):
        """One rank of the block build with the checksum: returns the bytes
        of the stripes the kernel touches and the digest of its array files."""
        d = os.path.join(self.work, "probe")
        common.fresh_dir(d)
        stats = os.path.join(d, "stats.json")
        out, err = common.run(common.launcher(1) + [self.compile(kernel, "block", cfg)],
                              env=self.env(cfg, os.path.join(d, "data"), {"IOPOLY_STATS": stats, "IOPOLY_BUFFER": "1M",
                                                                           "IOPOLY_DISK_MODEL": "none"}))
        got = self.checksum(kernel, out, err)
        if got != expect:
            raise RuntimeError("%s: the 1-rank run's checksum is %s, the serial program's %s" % (kernel, got, expect))
        with open(stats) as f:
            data = json.load(f)["distinct_stripes"] * BLOCK
        return data, common.files_digest(os.path.join(d, "data"))

    def cache_bytes(self, data, cfg):
        """Equal caches per node, as paper 2's Table 1: here half of a client's
        share of the data (at least 16 stripes: a rank's compiled code keeps
        a dozen attached)."""
        c = max(16 * BLOCK, data // (2 * cfg["clients"]))
        return (c + BLOCK - 1) // BLOCK * BLOCK

    def one(self, kernel, mapping, name, cfg, expect):
        """One run; returns its measurements."""
        d = os.path.join(self.work, name, kernel, mapping.replace("+", "_"))
        common.fresh_dir(d)
        topo = os.path.join(d, "topo.json")
        data = self.data[(name, kernel)]
        cache = self.cache_bytes(data, cfg)
        common.uniform_topology(topo, cfg["clients"], cfg["io"], cfg["storage"], cfg["disks"], cache, BLOCK)
        traces = [os.path.join(d, "t.%d" % r) for r in range(cfg["clients"])]
        env = self.env(cfg, os.path.join(d, "data"), {
            "IOPOLY_TOPOLOGY": topo, "IOPOLY_BUFFER": str(cache), "IOPOLY_TRACE": os.path.join(d, "t.%r"),
            "IOPOLY_STATS": os.path.join(d, "s.%r.json"), "IOPOLY_CACHE_SERVERS": "1" if cfg["real"] else "0",
            "MAPK_CHECKSUM": "off"})
        t0 = time.time()
        out, _ = common.run(common.launcher(cfg["clients"]) + [self.compile(kernel, mapping, cfg)], env=env,
                            timeout=1200)
        wall = time.time() - t0
        done = [line for line in out.splitlines() if line.endswith("checksum skipped")]
        if len(done) != cfg["clients"]:
            raise RuntimeError("%s %s %s: %d of %d ranks finished" % (name, kernel, mapping, len(done),
                                                                     cfg["clients"]))
        if common.files_digest(os.path.join(d, "data")) != expect:
            raise RuntimeError("%s %s %s: the array files differ from the 1-rank run's (whose checksum is the "
                               "serial program's)" % (name, kernel, mapping))
        order = "--order=recorded" if cfg["real"] else "--order=clock"
        sim_out, _ = common.run([self.cachesim, order, "--per-rank"] + (["--check"] if cfg["real"] else []) + [topo] +
                                traces, timeout=1200)
        sim = json.loads(sim_out)
        r = {"kernel": kernel, "mapping": mapping, "config": name, "cache_bytes": cache, "data_bytes": data,
             "compulsory": sim["compulsory"], "level_mismatches": sim["level_mismatches"], "wall_s": wall}
        if cfg["real"] and sim["level_mismatches"]:
            raise RuntimeError("%s %s %s: the simulator disagrees with the servers: %s" % (
                name, kernel, mapping, sim["first_mismatch"]))
        if cfg["real"]:
            # The real run's own counters (the simulator agreed with them).
            agg = {"L1": [0, 0], "L2": [0, 0], "L3": [0, 0]}
            lat = []
            for rank in range(cfg["clients"]):
                with open(os.path.join(d, "s.%d.json" % rank)) as f:
                    h = json.load(f)["hierarchy"]
                agg["L1"][0] += h["L1"]["accesses"]
                agg["L1"][1] += h["L1"]["misses"]
                for lv in ("L2", "L3"):
                    agg[lv][0] += h["below"][lv]["reads"]
                    agg[lv][1] += h["below"][lv]["misses"]
                lat.append(h["below"]["modeled_io_seconds"])
            r["io_latency_mean_s"] = statistics.mean(lat)
            r["io_latency_max_s"] = max(lat)
        else:
            agg = {"L1": [sim["L1"]["accesses"], sim["L1"]["misses"]]}
            for lv in ("L2", "L3"):
                agg[lv] = [sim[lv]["reads"], sim[lv]["misses"]]
            r["io_latency_mean_s"] = sim["io_latency_mean_s"]
            r["io_latency_max_s"] = sim["io_latency_max_s"]
        for lv, (acc, miss) in agg.items():
            r[lv] = {"accesses": acc, "misses": miss, "miss_rate": miss / acc if acc else 0.0}
        return r

    def main(self):
        args = self.args
        runs = []
        self.data = {}
        kernels = args.kernels.split(",") if args.kernels else KERNELS + (list(polybench.KERNELS) if self.pb else [])
        for k in kernels:
            if polybench.is_polybench(k) and not self.pb:
                raise SystemExit("kernel %s is PolyBench's: give --polybench DIR" % k)
            if not polybench.is_polybench(k) and k not in KERNELS:
                raise SystemExit("unknown kernel %s (known: %s)" % (k, ", ".join(KERNELS + list(polybench.KERNELS))))
        configs = args.configs.split(",")
        total = len(kernels) * len(configs) * len(MAPPINGS)
        done = 0
        t = common.Timer()
        for name in configs:
            cfg = CONFIGS[name]
            for kernel in kernels:
                self.data[(name, kernel)], expect = self.reference(kernel, cfg, self.serial_checksum(kernel, cfg))
                for mapping in MAPPINGS:
                    done += 1
                    common.say("[%d/%d, %s] %s %s %s" % (done, total, t, name, kernel, mapping))
                    runs.append(self.one(kernel, mapping, name, cfg, expect))
        return runs


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build tree (bin/iopoly-mpicc)")
    p.add_argument("--work", default=os.path.join(ROOT, "build", "bench-mapping"), help="scratch directory")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"), help="where the report goes")
    p.add_argument("--kernels", default="", help="comma list (default: all)")
    p.add_argument("--polybench", default="", help="a PolyBench/C 4.2.1 directory: adds its kernels %s (%s dataset)" %
                   (", ".join(polybench.KERNELS), polybench.DATASET))
    p.add_argument("--configs", default="real,sim", help="real (8/4/2, servers) and/or sim (64/32/16)")
    p.add_argument("--quick", action="store_true", help="three kernels, for a smoke run")
    p.add_argument("--report-only", action="store_true", help="re-render the report from raw/mapping.json")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    raw = os.path.join(args.out, "raw", "mapping.json")
    if args.quick and not args.kernels:
        args.kernels = "fig6,mirror,pairs"
    if args.report_only:
        with open(raw) as f:
            result = json.load(f)
    else:
        t0 = time.time()
        runs = Bench(args).main()
        elapsed = time.time() - t0
        result = {"command": "scripts/bench-mapping.sh" + (" --quick" if args.quick else "") +
                  (" --kernels " + args.kernels if args.kernels and not args.quick else "") +
                  (" --polybench <PolyBench/C 4.2.1>" if args.polybench else "") +
                  (" --configs " + args.configs if args.configs != "real,sim" else ""),
                  "block_bytes": BLOCK, "configs": CONFIGS, "elapsed_s": elapsed, "runs": runs}
        os.makedirs(os.path.dirname(raw), exist_ok=True)
        with open(raw, "w") as f:
            json.dump(result, f, indent=1)
    report.write(result, args.out)
    common.say("report: %s" % os.path.join(args.out, "mapping.md"))


if __name__ == "__main__":
    main()
