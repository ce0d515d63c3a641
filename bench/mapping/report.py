# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Renders bench/results/mapping.md and its plots from the raw runs."""

import math
import os

MAPPINGS = ["block", "intra", "cache", "cache+local"]
LEVELS = ["L1", "L2", "L3"]
TITLES = {"real": "8 clients, 4 I/O nodes, 2 storage nodes: real servers",
          "sim": "64 clients, 32 I/O nodes, 16 storage nodes: simulated (iopoly-cachesim, clock order)"}


def _gmean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _index(runs):
    return {(r["config"], r["kernel"], r["mapping"]): r for r in runs}


def _ratio(a, b):
    return a / b if b else float("nan")


def _summary(runs, config):
    """Per mapping, the mean over kernels of value / block's value."""
    idx = _index(runs)
    kernels = sorted({r["kernel"] for r in runs if r["config"] == config})
    out = {}
    for m in MAPPINGS:
        row = {}
        for key in ["lat"] + ["miss_" + lv for lv in LEVELS]:
            vals = []
            for k in kernels:
                a, b = idx.get((config, k, m)), idx.get((config, k, "block"))
                if not a or not b:
                    continue
                if key == "lat":
                    vals.append(_ratio(a["io_latency_mean_s"], b["io_latency_mean_s"]))
                else:
                    lv = key[5:]
                    vals.append(_ratio(a[lv]["misses"], b[lv]["misses"]))
            row[key] = sum(vals) / len(vals) if vals else float("nan")
            row[key + "_gm"] = _gmean(vals)
        out[m] = row
    return kernels, out


def _plots(result, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    runs = result["runs"]
    for config in sorted({r["config"] for r in runs}):
        kernels, summ = _summary(runs, config)
        idx = _index(runs)
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
        width = 0.2
        # Left: misses per level, normalized to block (mean over kernels).
        for i, m in enumerate(MAPPINGS):
            axes[0].bar([x + i * width for x in range(3)], [summ[m]["miss_" + lv] for lv in LEVELS], width, label=m)
        axes[0].set_xticks([x + 1.5 * width for x in range(3)])
        axes[0].set_xticklabels(["L1 (client)", "L2 (I/O node)", "L3 (storage node)"])
        axes[0].axhline(1.0, color="gray", lw=0.8)
        axes[0].set_ylabel("misses / block's")
        axes[0].set_title("cache misses, mean over kernels")
        axes[0].legend(fontsize=8)
        # Right: modeled I/O latency per kernel, normalized to block.
        for i, m in enumerate(MAPPINGS):
            vals = []
            for k in kernels:
                a, b = idx.get((config, k, m)), idx.get((config, k, "block"))
                vals.append(_ratio(a["io_latency_mean_s"], b["io_latency_mean_s"]) if a and b else 0)
            axes[1].bar([x + i * width for x in range(len(kernels))], vals, width, label=m)
        axes[1].set_xticks([x + 1.5 * width for x in range(len(kernels))])
        axes[1].set_xticklabels(kernels, rotation=30, fontsize=8)
        axes[1].axhline(1.0, color="gray", lw=0.8)
        axes[1].axhline(0.7, color="red", lw=0.8, ls="--")
        axes[1].set_ylabel("modeled I/O latency / block's")
        axes[1].set_title("modeled I/O latency (dashed: the 30% target)")
        fig.suptitle(TITLES.get(config, config), fontsize=10)
        fig.tight_layout()
        name = "mapping-%s.png" % config
        fig.savefig(os.path.join(out, name), dpi=110)
        plt.close(fig)
        made.append(name)
    return made


def write(result, out):
    runs = result["runs"]
    plots = _plots(result, out)
    L = []
    L.append("# Iteration-to-rank mapping (paper 2)\n")
    L.append("Regenerate with `%s` (raw data: [`raw/mapping.json`](raw/mapping.json); "
             "`python3 -m bench.mapping.bench --report-only` re-renders this page).\n" % result["command"])
    L.append("Every kernel of [`bench/mapping/kernels`](../mapping/kernels) is compiled with "
             "`iopoly-mpicc -fplugin-arg-iopoly-mpi=on` in four mappings: `block` (contiguous blocks of "
             "iterations, the paper's original version), `intra` (the blocks, each rank in its own locality "
             "order: the paper's intra-processor scheme), `cache` (the storage-cache aware clustering of "
             "paper 2, Fig. 5, without local scheduling) and `cache+local` (with the local scheduling of "
             "sec. 5.4). Caches are LRU over %d-byte stripes (= data chunks), one size for every node, as in "
             "paper 2's Table 1: half of a client's share of the data (at least 16 stripes). Disks: the `hdd` "
             "model, one queue each; network: 50 us and 1 GB/s per hop. The modeled I/O latency is the mean "
             "over the ranks of the time each spends waiting for its transfers (compute is free). Every run's "
             "checksum equals the serial program's; every real run was replayed by `iopoly-cachesim "
             "--order=recorded --check` and agreed with the servers at every level.\n" % result["block_bytes"])
    for config in sorted({r["config"] for r in runs}):
        kernels, summ = _summary(runs, config)
        idx = _index(runs)
        L.append("## %s\n" % TITLES.get(config, config))
        L.append("| kernel | data | cache/node | mapping | L1 miss rate | L2 miss rate | L3 miss rate | L2 misses "
                 "(floor) | L3 misses (floor) | disk reads floor | modeled I/O s | vs block |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for k in kernels:
            for m in MAPPINGS:
                r = idx.get((config, k, m))
                b = idx.get((config, k, "block"))
                if not r:
                    continue
                c = r["compulsory"]
                L.append("| %s | %d KiB | %d KiB | %s | %.3f | %.3f | %.3f | %d (%d) | %d (%d) | %d | %.3f | %.2f |" % (
                    k, r["data_bytes"] // 1024, r["cache_bytes"] // 1024, m, r["L1"]["miss_rate"],
                    r["L2"]["miss_rate"], r["L3"]["miss_rate"], r["L2"]["misses"], c["L2"], r["L3"]["misses"],
                    c["L3"], c["disk"], r["io_latency_mean_s"], _ratio(r["io_latency_mean_s"],
                                                                        b["io_latency_mean_s"]) if b else float("nan")))
        L.append("")
        L.append("Means over the kernels of each value divided by block's (geometric means in brackets):\n")
        L.append("| mapping | modeled I/O latency | L1 misses | L2 misses | L3 misses |")
        L.append("|---|---|---|---|---|")
        for m in MAPPINGS:
            s = summ[m]
            L.append("| %s | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) |" % (
                m, s["lat"], s["lat_gm"], s["miss_L1"], s["miss_L1_gm"], s["miss_L2"], s["miss_L2_gm"],
                s["miss_L3"], s["miss_L3_gm"]))
        L.append("")
        cl, intra = summ["cache+local"], summ["intra"]
        lat_vs_intra = cl["lat"] / intra["lat"] if intra["lat"] else float("nan")
        targets = [
            ("cache+local cuts modeled I/O latency by >= 30% against block", 1 - cl["lat"], 0.30),
            ("cache+local cuts L2 misses by >= 35% against block", 1 - cl["miss_L2"], 0.35),
            ("cache+local cuts L3 misses by >= 35% against block", 1 - cl["miss_L3"], 0.35),
            ("cache+local cuts modeled I/O latency by >= 20% against intra", 1 - lat_vs_intra, 0.20),
        ]
        L.append("Targets of the issue (paper 2: 26.3% less I/O latency, 30.7% with scheduling; 31.0% fewer L2 "
                 "and 24.6% fewer L3 misses), on the means above:\n")
        for text, got, goal in targets:
            L.append("- %s: **%s** (%.1f%%)" % (text, "met" if got >= goal else "NOT MET", 100 * got))
        L.append("")
        name = "mapping-%s.png" % config
        if name in plots:
            L.append("![%s](%s)\n" % (name, name))
    with open(os.path.join(out, "mapping.md"), "w") as f:
        f.write("\n".join(L) + "\n")
