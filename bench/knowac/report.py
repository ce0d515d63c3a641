# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""report.py - bench/results/knowac.md and its plots from raw/knowac.json."""
import os
import statistics


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def pct(new, old):
    return 100.0 * (old - new) / old if old else float("nan")


def k0(res, key, default=0):
    """A knowac counter summed over the ranks."""
    return sum(k.get(key, default) for k in res.get("knowac", []))


def accuracy(res):
    p = k0(res, "predictions")
    return k0(res, "useful_predictions") / p if p else float("nan")


def hits_of(res):
    reads = k0(res, "hits") + k0(res, "misses") + k0(res, "partial_hits")
    return f"{k0(res, 'hits')}/{reads}"


def mib(b):
    return b / (1 << 20)


def plots(raw, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["(matplotlib is not installed: no plots)"]
    made = []
    # 1. Main: stacked read/compute/write per mode, per rank count.
    fig, axes = plt.subplots(1, len(raw["main"]), figsize=(5.5 * len(raw["main"]), 4), squeeze=False)
    for ax, m in zip(axes[0], raw["main"]):
        groups = [("no KNOWAC", m["off"]), ("run 1\n(learns)", [m["learn"]]), ("runs 2+\n(prefetch)", m["prefetch"]),
                  ("in memory\n(no disk)", [m["compute_only"]])]
        x = range(len(groups))
        bottoms = [0] * len(groups)
        for part, color in (("read_seconds", "tab:blue"), ("compute_seconds", "tab:orange"),
                            ("write_seconds", "tab:green")):
            vals = [med([r[part] for r in rs]) for _, rs in groups]
            ax.bar(x, vals, bottom=bottoms, color=color, label=part.replace("_seconds", ""))
            bottoms = [b_ + v for b_, v in zip(bottoms, vals)]
        totals = [med([r["seconds"] for r in rs]) for _, rs in groups]
        for i, t in enumerate(totals):
            ax.text(i, t, f"{t:.2f} s", ha="center", va="bottom", fontsize=8)
        busy = med([r["disk_busy_seconds"] for r in m["off"]])
        ax.axhline(busy, color="gray", ls="--", lw=1, label=f"disk busy {busy:.2f} s")
        ax.set_xticks(list(x))
        ax.set_xticklabels([g for g, _ in groups], fontsize=8)
        ax.set_ylabel("pgea run time (s), slowest rank")
        ax.set_title(f"{m['ranks']} rank(s), {m['servers']} disk server(s), --work {m['work']}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "knowac-main.png"), dpi=110)
    plt.close(fig)
    made.append("knowac-main.png")
    # 2. Other inputs.
    rows = raw.get("other_inputs", [])
    if rows:
        fig, ax = plt.subplots(figsize=(7, 3.8))
        names = ["A: learned"] + [r["name"].split(":")[0] for r in rows]
        main1 = raw["main"][0]
        offs = [med([r["seconds"] for r in main1["off"]])] + [med([x["seconds"] for x in r["off"]]) for r in rows]
        first = [main1["prefetch"][0]["seconds"]] + [r["prefetch"][0]["seconds"] for r in rows]
        later = [med([r["seconds"] for r in main1["prefetch"][1:]] or [main1["prefetch"][0]["seconds"]])] + \
                [r["prefetch"][-1]["seconds"] for r in rows]
        x = range(len(names))
        w = 0.27
        ax.bar([i - w for i in x], offs, w, label="no KNOWAC")
        ax.bar(list(x), first, w, label="KNOWAC, first run on this input")
        ax.bar([i + w for i in x], later, w, label="KNOWAC, next run")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names)
        ax.set_ylabel("pgea run time (s)")
        ax.set_title("Other inputs with the knowledge learned so far (cf. paper 5, Fig. 10)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "knowac-inputs.png"), dpi=110)
        plt.close(fig)
        made.append("knowac-inputs.png")
    # 3. Operations and compute intensity.
    ops = raw.get("operations", [])
    if ops:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        work = [r for r in ops if r["kind"] == "work"] + [{"work": raw["main"][0]["work"],
                                                            "off": raw["main"][0]["off"][0],
                                                            "prefetch": raw["main"][0]["prefetch"][-1]}]
        work.sort(key=lambda r: r["work"])
        ratio = [r["off"]["compute_seconds"] / r["off"]["read_seconds"] for r in work]
        gain = [pct(r["prefetch"]["seconds"], r["off"]["seconds"]) for r in work]
        ax.plot(ratio, gain, "o-", label="avg, --work varied")
        for r in ops:
            if r["kind"] == "op":
                x_ = r["off"]["compute_seconds"] / r["off"]["read_seconds"]
                ax.plot([x_], [pct(r["prefetch"]["seconds"], r["off"]["seconds"])], "s")
                ax.annotate(r["op"], (x_, pct(r["prefetch"]["seconds"], r["off"]["seconds"])), fontsize=7)
        ax.axhline(25, color="gray", ls="--", lw=1, label="target 25%")
        ax.axhline(0, color="black", lw=0.5)
        ax.set_xlabel("compute time / read time (without KNOWAC)")
        ax.set_ylabel("run time saved by KNOWAC (%)")
        ax.set_title("Compute intensity and operations (cf. paper 5, Fig. 11)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "knowac-ops.png"), dpi=110)
        plt.close(fig)
        made.append("knowac-ops.png")
    # 4. Overhead.
    ovs = raw.get("overhead")
    if ovs:
        fig, axes = plt.subplots(1, len(ovs), figsize=(5 * len(ovs), 3.5), squeeze=False)
        for ax, ov in zip(axes[0], ovs):
            for i, m in enumerate(("off", "learn", "dry")):
                ys = [r["seconds"] for r in ov[m]]
                ax.plot([i] * len(ys), ys, "o", alpha=0.6)
                ax.plot([i - 0.2, i + 0.2], [med(ys)] * 2, "k-")
            ax.set_xticks([0, 1, 2])
            ax.set_xticklabels(["no KNOWAC", "first run\n(learn)", "dry run\n(no reads ahead)"])
            ax.set_ylabel("pgea run time (s)")
            ax.set_title(f"--work {ov['work']} (cf. Fig. 13)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "knowac-overhead.png"), dpi=110)
        plt.close(fig)
        made.append("knowac-overhead.png")
    return made


def verdict(ok):
    return "**PASS**" if ok else "**NOT MET**"


def render(raw, out):
    os.makedirs(out, exist_ok=True)
    made = plots(raw, out)
    L = []
    mach = raw["machine"]
    L.append("# KNOWAC: prefetching pgea's variables from accumulated knowledge (paper 5, section VI)\n")
    L.append(f"Regenerate with `{raw['command']}` ({raw['elapsed_seconds'] / 60:.1f} minutes here); raw data "
             f"in [`raw/knowac.json`](raw/knowac.json); `python3 bench/knowac/bench_knowac.py --render-only` "
             f"re-renders this page.\n")
    L.append(f"Machine: {mach.get('cpus')} CPUs, Linux {mach.get('kernel')}, commit {mach.get('commit', '?')}, "
             f"{mach.get('date')}; load average before/after: {mach.get('load_before', ['?'])[0]:.1f} / "
             f"{mach.get('load_after', ['?'])[0]:.1f} (the machine is shared: wall times carry that noise; "
             "medians of interleaved runs are shown).\n")
    A = raw["inputs"]["A"]
    m1 = raw["main"][0]
    L.append("## Setup\n")
    L.append(f"* `pgea` ([`bench/knowac/pgea.c`](../knowac/pgea.c)): for each variable and time step it reads the "
             f"slab of every input (collective `ncmpi_get_vara_double_all`), combines them element by element "
             f"and writes the result (`ncmpi_put_vara_double_all`); cells are split among the ranks (Fig. 9's "
             f"phases).")
    L.append(f"* Learning input A: {A['files']} files of {mib(A['bytes_per_file']):.0f} MiB made by "
             f"[`knowac-gen`](../knowac/knowac-gen.c): {A['vars']} double variables over time {A['steps']} x "
             f"cells {A['cells']} x layers {A['layers']}, plus `time` and `area`; {A['format'].upper()}.")
    L.append(f"* Disk: every read and write of the data directory lasts what the `{raw['model']}` model says "
             "(7.5 ms per random request, 0.2 ms when it continues the previous one, 120 MiB/s; "
             "[`slowdisk.cpp`](../knowac/slowdisk.cpp), preloaded): one disk for 1 rank, 4 servers striped in "
             "64 KiB (as PVFS2 in the paper) shared by the 4 ranks. KNOWAC's helper thread waits in the same "
             "queues as the program.")
    L.append(f"* Compute: pgea's own operations are far cheaper than reading their data; `--work` adds "
             f"multiply-adds per element, calibrated so that computing takes about as long as reading "
             f"(compute/read 1:1, measured without KNOWAC): `--work {m1['work']}` for 1 rank, "
             f"`--work {raw['main'][1]['work']}` for 4 ranks, which share {mach.get('cpus')} CPUs (their compute "
             f"wall time, with all four computing, is what is matched to the read time).")
    L.append("* KNOWAC as shipped: `IOPOLY_KNOWAC=prefetch`, cache 256M, `IOPOLY_KNOWAC_MIN_IDLE=2ms`, lookahead "
             "64, one knowledge base per rank count (`IOPOLY_KNOWAC_APP=pgea`). Run time is what pgea measures "
             "from its first open to its last close (the slowest rank); the process time (MPI start-up and "
             "KNOWAC's merge at exit included) is in the tables too.\n")

    # Targets.
    L.append("## The issue's targets\n")
    L.append("| target | measured | |")
    L.append("|---|---|---|")
    all_runs = []
    for m in raw["main"]:
        all_runs += m["off"] + m["prefetch"] + [m["learn"]]
    for m in raw["main"]:
        off = med([r["seconds"] for r in m["off"]])
        pf = med([r["seconds"] for r in m["prefetch"]])
        g = pct(pf, off)
        ratio = med([r["compute_seconds"] for r in m["off"]]) / med([r["read_seconds"] for r in m["off"]])
        L.append(f"| >= 25% less run time from the second run on, {m['ranks']} rank(s), compute/read "
                 f"{ratio:.2f} (calibrated to 1) | {g:.1f}% ({off:.2f} s -> {pf:.2f} s, medians of "
                 f"{len(m['prefetch'])}) | {verdict(g >= 25)} |")
    sweep = [r for r in raw.get("operations", []) if r["kind"] == "work"]
    if sweep:
        cells = ", ".join(f"{r['off']['compute_seconds'] / r['off']['read_seconds']:.2f}: "
                          f"{pct(r['prefetch']['seconds'], r['off']['seconds']):.0f}%" for r in
                          sorted(sweep, key=lambda r: r["work"]))
        L.append(f"| (the same, 1 rank, other compute/read ratios: single runs, section 3) | {cells} | |")
    accs = [accuracy(r) for m in raw["main"] for r in m["prefetch"]]
    accs = [a_ for a_ in accs if a_ == a_]
    nexts = [k0(r, "next_access_correct") / max(1, k0(r, "next_access_predictions"))
             for m in raw["main"] for r in m["prefetch"]]
    L.append(f"| prediction accuracy >= 95% | {100 * min(accs):.1f}% lowest of the runs with prefetching "
             f"(regions read ahead that were then used); next access predicted right: "
             f"{100 * min(nexts):.1f}% lowest | {verdict(min(accs) >= 0.95)} |")
    for ov in raw["overhead"]:
        off = med([r["seconds"] for r in ov["off"]])
        for m, label in (("learn", "first run (learning only)"), ("dry", "dry run (knowledge, no reads ahead)")):
            o = -pct(med([r["seconds"] for r in ov[m]]), off)
            meta = med([max((k.get("metadata_seconds", 0) for k in r["knowac"]), default=0) / r["seconds"]
                        for r in ov[m]])
            L.append(f"| overhead < 2% when nothing is prefetched: {label}, `--work {ov['work']}` | "
                     f"{o:+.1f}% run time (medians of {len(ov[m])}); KNOWAC's own bookkeeping "
                     f"{100 * meta:.2f}% of it | {verdict(o < 2)} |")
    n_same = sum(1 for _ in all_runs) + sum(len(r["prefetch"]) for r in raw.get("other_inputs", [])) + \
        len(raw.get("operations", [])) + sum(len(ov["learn"]) + len(ov["dry"]) for ov in raw["overhead"])
    L.append(f"| results byte-identical with and without KNOWAC | {n_same} runs with KNOWAC, every output's "
             f"SHA-256 equal to the run without | **PASS** |\n")

    # Main.
    L.append("## 1. The learning input, 1 and 4 ranks (Figs. 9-10)\n")
    if "knowac-main.png" in made:
        L.append("![main](knowac-main.png)\n")
    for m in raw["main"]:
        L.append(f"**{m['ranks']} rank(s), {m['servers']} disk server(s), `--work {m['work']}`**\n")
        L.append("| run | run time s | read s | compute s | write s | process s | hits | accuracy | "
                 "read ahead MiB | wasted MiB | lead s | metadata s |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")

        def row(label, rs, kn=True):
            r0 = rs[0]
            cells = [label, f"{med([r['seconds'] for r in rs]):.2f}" +
                     (f" ({min(r['seconds'] for r in rs):.2f}-{max(r['seconds'] for r in rs):.2f})" if len(rs) > 1
                      else ""),
                     f"{med([r['read_seconds'] for r in rs]):.2f}", f"{med([r['compute_seconds'] for r in rs]):.2f}",
                     f"{med([r['write_seconds'] for r in rs]):.2f}", f"{med([r['process_seconds'] for r in rs]):.2f}"]
            if kn and r0["knowac"]:
                cells += [hits_of(r0), f"{100 * accuracy(r0):.0f}%" if accuracy(r0) == accuracy(r0) else "-",
                          f"{mib(k0(r0, 'prefetched_bytes')):.0f}", f"{mib(k0(r0, 'wasted_bytes')):.1f}",
                          f"{k0(r0, 'prefetch_lead_seconds'):.2f}",
                          f"{max(k.get('metadata_seconds', 0) for k in r0['knowac']):.3f}"]
            else:
                cells += ["-"] * 6
            L.append("| " + " | ".join(cells) + " |")
        row("without KNOWAC", m["off"], False)
        row("with KNOWAC, run 1 (learns)", [m["learn"]])
        for i, r in enumerate(m["prefetch"]):
            row(f"with KNOWAC, run {i + 2}", [r])
        row("floor: data in memory (no disk model)", [m["compute_only"]], False)
        busy = med([r["disk_busy_seconds"] for r in m["off"]])
        L.append(f"| floor: disk busy time (per server) | {busy:.2f} | | | | | | | | | | |\n")
        L.append("Hits count the reads served from the cache out of all reads while prefetching (summed over "
                 "ranks); accuracy is the share of regions read ahead that were used; lead is how long "
                 "prefetched data waited in the cache before use (summed).\n")

    # Other inputs.
    rows = raw.get("other_inputs", [])
    if rows:
        L.append("## 2. Other inputs with the knowledge learned so far (Fig. 10)\n")
        if "knowac-inputs.png" in made:
            L.append("![inputs](knowac-inputs.png)\n")
        L.append("| input | files | without KNOWAC s | first KNOWAC run s | next run s | saved (next run) | hits | "
                 "new vertices (first run) |")
        L.append("|---|---|---|---|---|---|---|---|")
        for r in rows:
            off = med([x["seconds"] for x in r["off"]])
            f1, fl = r["prefetch"][0], r["prefetch"][-1]
            L.append(f"| {r['name']} | {len(r['files'])} | {off:.2f} | {f1['seconds']:.2f} | {fl['seconds']:.2f} | "
                     f"{pct(fl['seconds'], off):.1f}% | {hits_of(f1)} then {hits_of(fl)} | "
                     f"{k0(f1, 'new_vertices')} |")
        L.append("\nData objects are named by the order in which the run opens its files and by regions relative "
                 "to each variable's shape, so other data and other sizes match what was learned on A; a new "
                 "format (more variables) adds branches on its first run.\n")

    ops = raw.get("operations", [])
    if ops:
        L.append("## 3. Other operations and compute intensity (Fig. 11)\n")
        if "knowac-ops.png" in made:
            L.append("![ops](knowac-ops.png)\n")
        L.append("| operation | --work | compute/read | without KNOWAC s | with KNOWAC s | saved | hits |")
        L.append("|---|---|---|---|---|---|---|")
        for r in ops:
            o, p = r["off"], r["prefetch"]
            L.append(f"| {r['op']} | {r['work']} | {o['compute_seconds'] / o['read_seconds']:.2f} | {o['seconds']:.2f} | "
                     f"{p['seconds']:.2f} | {pct(p['seconds'], o['seconds']):.1f}% | {hits_of(p)} |")
        L.append("\nThe knowledge was learned with `avg`; the other operations read the same variables in the same "
                 "order, so it applies to them unchanged. Without computation (`--work 0`) there is no idle time "
                 "to fill: KNOWAC schedules nothing (`IOPOLY_KNOWAC_MIN_IDLE`) and must not cost time.\n")

    L.append("## 4. Overhead when nothing is read ahead (Fig. 13)\n")
    if "knowac-overhead.png" in made:
        L.append("![overhead](knowac-overhead.png)\n")
    L.append("| --work | mode | run time s (median, min-max) | process s | CPU s | metadata s (max rank) |")
    L.append("|---|---|---|---|---|---|")
    for ov in raw["overhead"]:
        for m, label in (("off", "without KNOWAC"), ("learn", "first run: records and merges, nothing to prefetch"),
                         ("dry", "dry run: loads, matches, predicts, schedules; reads nothing ahead")):
            rs = ov[m]
            md = med([max((k.get("metadata_seconds", 0) for k in r["knowac"]), default=0) for r in rs])
            L.append(f"| {ov['work']} | {label} | {med([r['seconds'] for r in rs]):.3f} "
                     f"({min(r['seconds'] for r in rs):.3f}-{max(r['seconds'] for r in rs):.3f}) | "
                     f"{med([r['process_seconds'] for r in rs]):.3f} | {med([r['cpu_seconds'] for r in rs]):.3f} | "
                     f"{md:.4f} |")
    L.append("\nMetadata time is KNOWAC's own bookkeeping in both threads (opening and reading the knowledge "
             "base, matching, predicting, recording, merging the run at exit), measured by the library "
             "(`metadata_seconds` of `IOPOLY_STATS`).\n")
    L.append("## Reading these numbers\n")
    L.append("* The floors: with 1 rank the run cannot be shorter than the disk's busy time (reads, writes and "
             "the helper's reads share one disk) nor than the run with the data in memory (compute and the calls "
             "themselves); pgea's writes are blocking, so at best KNOWAC hides the reads behind the compute and "
             "the run takes compute + writes.")
    L.append("* With KNOWAC the writes take a little longer: the helper's reads and the program's writes queue at "
             "the same disk (a piece of read-ahead already started when a write comes), as they would on a real "
             "disk; the helper holds back pieces that would still run when the next access is due, but when the "
             "program computes longer than the graph predicts it reads on.")
    L.append("* 4 ranks share the machine's CPUs with each other, with the helper threads and with whatever else "
             "runs on the machine: the compute columns (wall time) against pgea's CPU time "
             "(`compute_cpu_seconds` in the raw data) show how much; collective reads and writes make every rank "
             "wait for the slowest, and a collective read is only saved when every rank has its part in the "
             "cache.")
    L.append("* Wall times of single runs on a shared machine vary by 10-20% here; the tables give medians and "
             "ranges of interleaved runs. Hits, predictions, bytes and accuracy do not depend on the load.\n")
    open(os.path.join(out, "knowac.md"), "w").write("\n".join(L) + "\n")
