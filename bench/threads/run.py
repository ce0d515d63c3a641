# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The runs of the thread benchmark: setsbench (bench/threads/setsbench.c)
for each workload, map, buffer fraction, disk model, thread count and
policy. The single-thread run is the sequential restructured order (both
policies give it); the others run on IOPOLY_THREADS threads sharing the one
stripe buffer. Thread runs are not deterministic (which thread takes which
set depends on timing), so each is repeated and the median kept.
"""
import json
import os
import statistics

from bench import common

WORKLOADS = ["sweep", "halo", "wave"]
MAPS = ["disks", "units"]
FRACTIONS = [8, 32]
MODELS = ["hdd", "ssd"]
THREADS = [1, 2, 4, 8]
POLICIES = ["g", "naive"]


def arrays_of(workload):
    return 3 if workload == "wave" else 2


def one_run(exe, workdir, cfg, reps):
    """Median over \\p reps runs of one configuration (dict of results)."""
    data = arrays_of(cfg["workload"]) * cfg["units"] * cfg["spu"] * cfg["stripe"]
    buffer = max(cfg["stripe"], data // cfg["fraction"] // cfg["stripe"] * cfg["stripe"])
    rows = []
    for _ in range(reps):
        stats_path = os.path.join(workdir, "sets-stats.json")
        if os.path.exists(stats_path):
            os.unlink(stats_path)
        res = common.run_striped(exe, workdir, cfg["stripe"], buffer, cfg["disks"], model=cfg["model"],
                                 args=[cfg["workload"], str(cfg["units"]), str(cfg["spu"]), cfg["map"], stats_path],
                                 extra_env={"IOPOLY_THREADS": str(cfg["threads"]), "IOPOLY_SCHED": cfg["sched"],
                                            "IOPOLY_PROGRESS": "0"})
        if res["status"] != "ok":
            return {**cfg, "status": res["status"], "error": res.get("error", "")}
        with open(stats_path) as f:
            st = json.load(f)
        rows.append({"fetches": st["stripe_fetches"], "distinct": st["distinct_stripes"],
                     "modeled": st["modeled_io_seconds"], "busy": st["modeled_disk_busy_seconds"],
                     "wall": st["wall_seconds"], "in_use": st["threads"]["disks_in_use_mean"],
                     "in_use_max": st["threads"]["disks_in_use_max"], "running": st["threads"]["max_running"],
                     "waits": st["threads"]["capacity_waits"], "checksum": res["stdout"].strip()})
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0] if k != "checksum"}
    sums = sorted({r["checksum"] for r in rows})
    return {**cfg, "status": "ok", "buffer": buffer, "data": data, **med, "checksums": sums,
            "fetches_all": [r["fetches"] for r in rows], "modeled_all": [r["modeled"] for r in rows]}


def configurations(quick):
    units, spu, stripe, disks = (64, 2, 16 << 10, 8) if quick else (256, 2, 16 << 10, 8)
    for workload in WORKLOADS:
        for map_ in MAPS:
            for fraction in FRACTIONS:
                for model in MODELS:
                    for threads in THREADS:
                        for sched in (["g"] if threads == 1 else POLICIES):
                            yield {"workload": workload, "map": map_, "fraction": fraction, "model": model,
                                   "threads": threads, "sched": sched if threads > 1 else "single",
                                   "units": units, "spu": spu, "stripe": stripe, "disks": disks}


def run_all(exe, workdir, reps, quick, progress=common.log):
    cfgs = list(configurations(quick))
    out = []
    for i, cfg in enumerate(cfgs):
        run_cfg = dict(cfg)
        if run_cfg["sched"] == "single":
            run_cfg["sched"] = "g"  # one thread: the sequential order whatever the policy
        r = one_run(exe, workdir, run_cfg, 1 if cfg["threads"] == 1 else reps)
        r["sched"] = cfg["sched"]
        out.append(r)
        if r["status"] != "ok":
            progress(f"[{i + 1}/{len(cfgs)}] {cfg['workload']} {cfg['map']} 1/{cfg['fraction']} {cfg['model']} "
                     f"{cfg['threads']}t {cfg['sched']}: {r['status']} {r.get('error', '')}")
        else:
            progress(f"[{i + 1}/{len(cfgs)}] {cfg['workload']} {cfg['map']} 1/{cfg['fraction']} {cfg['model']} "
                     f"{cfg['threads']}t {cfg['sched']}: {r['fetches']:.0f} fetches, {r['modeled']:.3f} s modeled")
    return out
