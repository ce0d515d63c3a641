# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bench/results/threads.md from the raw runs of bench.threads.run."""
import collections


def _key(r):
    return (r["workload"], r["map"], r["fraction"], r["model"])


def _pct(new, base):
    return 100.0 * (base - new) / base if base else 0.0


def render(runs, command, machine):
    L = ["# Locality sets on threads (paper 1, section 5)\n",
         "Part 1: explicit locality sets (setsbench).\n",
         f"Regenerate with `{command}`.\n",
         f"Machine: {machine}.\n",
         "What runs: `bench/threads/setsbench.c`, a program whose work is a graph of locality sets run "
         "through `__iopoly_run_sets` (the entry point of `include/iopoly/abi.h`) on `IOPOLY_THREADS` "
         "threads sharing the one stripe buffer: `sweep` (set t: B[t] = A[t]/2, no data shared between "
         "sets), `halo` (B[t] from A[t-1..t+1]: neighbouring sets share stripes), `wave` (halo, then "
         "C[t] from B[t-1..t+1] after the sets t-1..t+1 of the first phase: a DAG). A unit is 2 stripes of "
         "16 KiB on 8 disks. `map disks` gives the scheduler paper 1's disk maps, `map units` one bit per "
         "unit (stripe-unit tags). `single` is one thread in the sequential order (the single-thread "
         "restructured program); `g` is Fig. 14 (global disk map), `naive` each thread its own Hamming "
         "order over a contiguous share (Fig. 13(b)). Thread runs are medians of repeated runs (timing "
         "decides which thread takes which set). Part 2 (the last section) runs the bench kernels "
         "compiled with `-fplugin-arg-iopoly-threads=on`.\n",
         "Columns: stripe fetches, distinct stripes the run touched (A is read, B and C are written whole "
         "before they are read, so a stripe of B or C is fetched only if it was evicted first), modeled I/O seconds "
         "(the disk model's elapsed time of the run: each thread has its own clock, started at the "
         "forking thread's, a set starts when its predecessors ended, and the free thread whose clock is "
         "earliest takes the next set, so the waits of different threads overlap as the disks' queues "
         "allow, a request taking the first idle gap of its disk's timeline that holds it; README, locality "
         "sets on threads), mean disks (or units) in "
         "use when a set starts (|G|), wall seconds on this machine.\n"]
    groups = collections.OrderedDict()
    for r in runs:
        groups.setdefault(_key(r), []).append(r)
    summary = collections.defaultdict(list)
    bad = []
    for key, rs in groups.items():
        w, m, frac, model = key
        L.append(f"\n## {w}, map {m}, buffer 1/{frac} of the data, {model}\n")
        L.append("| threads | policy | fetches | distinct stripes | modeled I/O s | in use (mean) | in use (max) | "
                 "capacity waits | wall s |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        base = next((r for r in rs if r["sched"] == "single" and r["status"] == "ok"), None)
        sums = set()
        for r in rs:
            if r["status"] != "ok":
                L.append(f"| {r['threads']} | {r['sched']} | {r['status']} | | | | | | |")
                continue
            sums.update(r["checksums"])
            L.append(f"| {r['threads']} | {r['sched']} | {r['fetches']:.0f} | {r['distinct']:.0f} | "
                     f"{r['modeled']:.3f} | {r['in_use']:.2f} | {r['in_use_max']:.0f} | {r['waits']:.0f} | "
                     f"{r['wall']:.3f} |")
        if len(sums) > 1:
            bad.append(key)
            L.append(f"\n**Outputs differ**: {sorted(sums)}\n")
        by = {(r["threads"], r["sched"]): r for r in rs if r["status"] == "ok"}
        if base and (8, "g") in by and (8, "naive") in by:
            g, n = by[(8, "g")], by[(8, "naive")]
            summary[(m, frac, model)].append((w, _pct(g["modeled"], base["modeled"]), _pct(g["modeled"], n["modeled"]),
                                              g["wall"] / base["wall"] if base["wall"] else 0,
                                              base["fetches"], g["fetches"], n["fetches"]))
    L.append("\n## Against the issue's targets (8 threads)\n")
    L.append("Targets: with G, at least 33% less modeled I/O than the single thread and at least 15% less "
             "than naive; wall time no worse than the single thread. Positive = G better.\n")
    L.append("| workload | map | buffer | model | fetches single / G / naive | G vs single (modeled) | "
             "G vs naive (modeled) | wall G / single |")
    L.append("|---|---|---|---|---:|---:|---:|---:|")
    for (m, frac, model), rows in summary.items():
        for w, vs_single, vs_naive, wall, fs, fg, fn in rows:
            L.append(f"| {w} | {m} | 1/{frac} | {model} | {fs:.0f} / {fg:.0f} / {fn:.0f} | {vs_single:+.1f}% | "
                     f"{vs_naive:+.1f}% | {wall:.2f} |")
    L.append("\nOutputs: " + ("identical in every configuration." if not bad else
                              f"DIFFER in {len(bad)} configuration(s): {bad}."))
    return "\n".join(L) + "\n", not bad
