# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""threads=on on PolyBench (issue 12): when a run measured both `dro-wp`
and `dro-wp+threads=on`, threads.md beside polybench.md puts each kernel's
threads=on runs against the one-thread build of the same run: stripe
fetches, modeled I/O and the versions the runtime chose."""
import os

from bench.common import gmean, stripe_name
from bench.polybench.report import chosen, fetches, fmt, mio, ratio, run_of

ONE, THREADS = "dro-wp", "dro-wp+threads=on"
SAME = 0.05  # within 5% counts as the same modeled I/O


def has_both(raw):
    modes = set(raw.get("config", {}).get("modes", []))
    return ONE in modes and THREADS in modes


def rows(raw):
    cfg = raw["config"]
    for e in raw["kernels"]:
        for stripe in cfg["stripes"]:
            for frac in cfg["buffers"]:
                one, thr = run_of(e, ONE, stripe, frac), run_of(e, THREADS, stripe, frac)
                if one or thr:
                    yield e, stripe, frac, one, thr


def status(r):
    if r is None:
        return "not run"
    if r.get("status") != "ok":
        return f"**{r.get('status')}**"
    return None if r.get("identical") else "**OUTPUT DIFFERS**"


def render(raw, out):
    argv = " ".join(raw.get("argv", []))
    threads = (raw.get("machine") or {}).get("nproc", "?")
    all_rows = list(rows(raw))
    ratios = [ratio(mio(t), mio(o)) for _, _, _, o, t in all_rows]
    paired = [x for x in ratios if x is not None]
    better = sum(1 for x in paired if x < 1 - SAME)
    worse = sorted(((x, e["kernel"], f) for x, (e, _, f, _, _) in zip(ratios, all_rows) if x and x > 1 + SAME),
                   reverse=True)
    bad = [f"{e['kernel']} {f} {m}" for e, _, f, o, t in all_rows for m, r in ((ONE, o), (THREADS, t)) if status(r)]
    L = []
    add = L.append
    add("# PolyBench with threads=on against one thread (issue 12)")
    add("")
    add(f"Regenerate with `scripts/bench-polybench.sh <polybench-4.2.1-dir> {argv}` (this page is written with "
        "polybench.md whenever a run has both `dro-wp` and `dro-wp+threads=on`). Both builds are compiled with "
        "default plugin options and run with the same stripe, buffer and disk model; the threads=on build runs "
        f"with `IOPOLY_THREADS` unset (every core: {threads}). Modeled I/O is the run's elapsed modeled time.")
    add("")
    add("## Summary")
    add("")
    g = gmean(paired)
    add(f"* threads=on / one thread, modeled I/O: **{fmt(g)}x** on the geometric mean of {len(paired)} runs that "
        f"finished in both builds; less (by more than {SAME:.0%}) in {better}, more in {len(worse)}"
        + (": " + ", ".join(f"{k} at {f} {x:.2f}x" for x, k, f in worse) if worse else "") + ".")
    add("* Runs that did not finish or whose output differs from the plain build: "
        + (", ".join(bad) if bad else "none") + ".")
    add("")
    add("## Per kernel")
    add("")
    add("Each build: stripe fetches / modeled I/O seconds. `ran`: the versions the runtime chose (tiled in k of n "
        "SCoP executions, k' of them in Polly's tiles).")
    add("")
    add("| kernel | stripe | buffer | one thread | ran | threads=on | ran | threads / one |")
    add("|---|---|---|---|---|---|---|---|")
    for (e, stripe, frac, one, thr), x in zip(all_rows, ratios):
        cells = [status(r) or f"{fetches(r)} / {fmt(mio(r))}" for r in (one, thr)]
        add(f"| {e['kernel']} | {stripe_name(stripe)} | {frac} | {cells[0]} | {chosen(one)} | {cells[1]} | "
            f"{chosen(thr)} | {fmt(x)} |")
    add("")
    with open(os.path.join(out, "threads.md"), "w") as f:
        f.write("\n".join(L) + "\n")
