# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The disk-reuse benchmark's report: bench/results/dro.md and its plots
from the raw data of run.py (bench/results/raw/dro.json)."""
import os
import re

from bench import common
from bench.common import gmean, human_bytes, mean, stripe_name
from bench.dro.kernels import *  # noqa: F401,F403 (kernels, modes, targets)


def stats_of(row):
    r = row.get("run", {})
    return r.get("stats") if r.get("status") == "ok" else None


def mio(row):
    st = stats_of(row)
    return st["modeled_io_seconds"] if st else None


def fpb(row):
    st = stats_of(row)
    return st["fetches_per_block"] if st else None


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}f}"


def status_text(row):
    r = row.get("run", {})
    s = r.get("status")
    if s == "ok":
        return None
    if s == "timeout":
        return f"timeout (> {r['wall']:.0f} s)"
    if s == "buffer-full":
        return "buffer too small"
    if s == "compile-failed":
        return "**compile failed**"
    return f"**{s}**"


def applied_text(row):
    mode = row["mode"]
    if mode in ("off", "lower"):
        return "-"
    comp = row.get("compile", {})
    sch = comp.get("schedule")
    if not sch:
        return "-"
    if mode == "clo":
        if not sch["scops"]:
            return "no (no SCoP kept)" if sch["dismissed"] else "no (no SCoP)"
        return f"isl schedule on {sch['scops']} SCoP{'s' if sch['scops'] > 1 else ''}" + (
            ", code differs from lower" if row.get("code_differs") else ", **same code as lower**")
    n_app, n_miss = len(sch["applied"]), len(sch["missed"])
    if n_app and not n_miss:
        m = re.search(r"(\d+) sets .*disk state changes (\d+) -> (\d+)", sch["applied"][0])
        return "yes" + (f" ({m.group(1)} sets, changes {m.group(2)}->{m.group(3)})" if m and n_app == 1 else
                        f" ({n_app} SCoPs)")
    if n_app:
        return f"yes in {n_app} of {n_app + n_miss} SCoPs"
    if n_miss:
        return "no (cost model)" if "cost model" in sch["missed"][0] else "no"
    return "no (no SCoP kept)" if sch["dismissed"] else "no (no SCoP)"


def annotate_code(raw):
    """Marks clo rows whose machine code differs from lower's."""
    for sec in ("main", "buffer", "stripe"):
        rows = raw.get(sec, [])
        for r in rows:
            if r["mode"] != "clo":
                continue
            low = next((x for x in rows if x["kernel"] == r["kernel"] and x["mode"] == "lower"
                        and x.get("stripe_bytes") == r.get("stripe_bytes")), None)
            if low:
                r["code_differs"] = r["compile"].get("code") != low["compile"].get("code")


def reductions(main, kernels, mode, base):
    """Per kernel 1 - modeled I/O(mode) / modeled I/O(base), where both ran."""
    out = {}
    for k in kernels:
        a = mio(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
        b = mio(next(r for r in main if r["kernel"] == k and r["mode"] == base))
        out[k] = (1 - a / b) if a is not None and b else None
    return out


def aggregates(rows, kernels, mode, base, match=lambda r: True):
    """Suite averages of the reduction of modeled I/O of mode against base,
    over the kernels where both ran: the mean of the per-kernel reductions,
    1 - the geometric mean of the ratios, 1 - the ratio of the suite-average
    modeled I/O. None where no kernel has both."""
    pairs = []
    for k in kernels:
        a = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and match(r)), None)
        b = next((r for r in rows if r["kernel"] == k and r["mode"] == base and match(r)), None)
        if a and b and mio(a) is not None and mio(b):
            pairs.append((mio(a), mio(b)))
    if not pairs:
        return None, None, None, 0
    g = gmean([max(a, 1e-9) / b for a, b in pairs])
    return (mean(1 - a / b for a, b in pairs), 1 - g, 1 - sum(a for a, _ in pairs) / sum(b for _, b in pairs),
            len(pairs))


def growth(a, b, v):
    """Compile time at 10x per dimension over the base size: the median of
    the paired per-repetition ratios (older raw data: ratio of the values)."""
    if b.get(v + "_growth") is not None:
        return b[v + "_growth"]
    return b[v] / a[v] if a.get(v) and b.get(v) else None


def pct(v):
    return "-" if v is None else f"{100 * v:.1f}%"


def verdict(ok):
    return "**PASS**" if ok else "**NOT MET**"


def plots(raw, out):
    plt = common.matplotlib_or_none()
    if plt is None:
        return False
    colors = {"lower": "#7f7f7f", "clo": "#1f77b4", "dro-l": "#ff7f0e", "dro-wp": "#2ca02c"}
    kernels = [k for k, *_ in KERNELS]
    main = raw["main"]

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    width = 0.2
    for ax, getter, title in ((axes[0], mio, "modeled I/O seconds (hdd model)"),
                              (axes[1], fpb, "stripe fetches per block (paper 1, Fig. 17)")):
        for i, mode in enumerate(MODES):
            xs, ys = [], []
            for j, k in enumerate(kernels):
                v = getter(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
                if v is not None:
                    xs.append(j + (i - 1.5) * width)
                    ys.append(max(v, 1e-3))
            ax.bar(xs, ys, width, label=mode, color=colors[mode])
        ax.set_yscale("log")
        ax.set_xticks(range(len(kernels)))
        ax.set_xticklabels(kernels, rotation=20)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Main table: stripe {stripe_name(raw['config']['stripe'])}, {raw['config']['disks']} disks, "
                 f"buffer {raw['config']['fraction_text']} of each kernel's data", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "dro-main.png"), dpi=110)
    plt.close(fig)

    for sec, xkey, xlabel, fname, title in (
            ("buffer", "fraction", "buffer / data", "dro-buffer.png",
             f"Sensitivity to the buffer size (paper 1, Fig. 18); stripe {stripe_name(raw['config']['stripe'])}"),
            ("stripe", "stripe_bytes", "stripe size (compiler and runtime)", "dro-stripe.png",
             f"Sensitivity to the stripe size (paper 1, Fig. 20); buffer {raw['config']['fraction_text']} "
             "of the data")):
        rows = raw[sec]
        ks = list(dict.fromkeys(r["kernel"] for r in rows))
        n = len(ks) + 1
        cols = 3
        fig, axes = plt.subplots((n + cols - 1) // cols, cols, figsize=(13, 3.6 * ((n + cols - 1) // cols)),
                                 squeeze=False)
        for idx, k in enumerate(ks):
            ax = axes[idx // cols][idx % cols]
            for mode in MODES:
                pts = sorted((r[xkey], mio(r)) for r in rows if r["kernel"] == k and r["mode"] == mode
                             and mio(r) is not None)
                if pts:
                    xs = [p[0] / 1024 if sec == "stripe" else p[0] for p in pts]
                    ax.plot(xs, [max(p[1], 1e-3) for p in pts], "o-", label=mode, color=colors[mode])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(k, fontsize=10)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.set_ylabel("modeled I/O s", fontsize=8)
            ax.grid(alpha=0.3)
            xs = sorted({r[xkey] for r in rows})
            if sec == "buffer":
                ax.set_xticks(xs)
                ax.set_xticklabels([next(r["fraction_text"] for r in rows if r[xkey] == x) for x in xs], fontsize=7)
            else:
                ax.set_xticks([x / 1024 for x in xs])
                ax.set_xticklabels([stripe_name(x) for x in xs], fontsize=7)
        # Last panel: the suite average of each mode's improvement over lower.
        ax = axes[(n - 1) // cols][(n - 1) % cols]
        xs = sorted({r[xkey] for r in rows})
        for mode in MODES[1:]:
            ys = []
            for x in xs:
                red = []
                for k in ks:
                    a = mio(next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[xkey] == x), {}))
                    b = mio(next((r for r in rows if r["kernel"] == k and r["mode"] == "lower" and r[xkey] == x), {}))
                    if a is not None and b:
                        red.append(100 * (1 - a / b))
                ys.append(sum(red) / len(red) if red else float("nan"))
            ax.plot([x / 1024 if sec == "stripe" else x for x in xs], ys, "o-", label=mode, color=colors[mode])
        ax.set_xscale("log", base=2)
        ax.set_title("mean improvement over lower (kernels where both ran)", fontsize=9)
        ax.set_ylabel("% less modeled I/O", fontsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        if sec == "buffer":
            ax.set_xticks(xs)
            ax.set_xticklabels([next(r["fraction_text"] for r in rows if r[xkey] == x) for x in xs], fontsize=7)
        else:
            ax.set_xticks([x / 1024 for x in xs])
            ax.set_xticklabels([stripe_name(x) for x in xs], fontsize=7)
        axes[0][0].legend(fontsize=8)
        for j in range(n, axes.shape[0] * cols):
            axes[j // cols][j % cols].axis("off")
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=110)
        plt.close(fig)
    return True


def render(raw, out, have_plots):
    annotate_code(raw)
    cfg = raw["config"]
    m = raw["machine"]
    main = raw["main"]
    kernels = [k for k, *_ in KERNELS]
    L = []
    add = L.append
    quick = " --quick" if cfg["quick"] else ""
    add("# Disk-reuse restructuring benchmark (issue 4)")
    add("")
    add("Regenerate with `scripts/bench-dro.sh" + quick + "` (this run: `" +
        " ".join(["scripts/bench_dro.py"] + raw["argv"]) + f"`, started {raw['started']}, "
        f"{raw['seconds'] / 60:.1f} minutes). Every number below comes from the runs recorded in "
        "[`raw/dro.json`](raw/dro.json); `python3 scripts/bench_dro.py --render-only` re-renders this page and "
        "the plots from it.")
    if cfg["quick"]:
        add("")
        add("**This is a `--quick` run: small sizes, few points; not the benchmark's numbers.**")
    add("")
    add("Modes: `lower` = the original loop order lowered onto the runtime (the base); `clo` = Polly's isl "
        "scheduler with tiling, then lowering (conventional locality optimization); `dro-l` = disk-reuse "
        "reordering of each loop nest (paper 1, section 3); `dro-wp` = disk-reuse reordering across all nests "
        "of a SCoP. Plugin options are the defaults except stripe and disks.")
    add("")
    add("## Setup")
    add("")
    add(f"* Machine: {m['cpu']}, {m['nproc']} cores (`nproc`), {m['memory']} memory; `uname -a`: `{m['uname']}`; "
        f"{m['clang']}; Python {m['python']}.")
    add(f"* Source: commit `{m['git_commit']}`" + (
        f", with uncommitted changes in {', '.join('`' + f + '`' for f in m['git_dirty'])}" if m["git_dirty"] else
        ", no uncommitted changes in plugin/, runtime/, include/, bench/kernels/") +
        f"; plugin `IOPoly.so` sha256 {m['plugin_sha256']}, runtime sha256 {m['runtime_sha256']}.")
    if raw.get("plugin_changed_during_run"):
        add("* **The plugin (IOPoly.so) was rebuilt while the benchmark ran: results may mix two versions.**")
    add(f"* Runs: {cfg['disks']} disk directories on one {m['workdir_fs'] or 'local'} file system under /tmp, "
        f"stripe {stripe_name(cfg['stripe'])} (the same stripe and disk count given to the compiler), buffer "
        f"{cfg['fraction_text']} of each kernel's disk-resident data (rounded down to whole stripes), "
        f"`IOPOLY_DISK_MODEL={cfg['model']}` (7.5 ms per random and 0.2 ms per sequential request, 120 MiB/s, one "
        f"queue per disk), `IOPOLY_DIRECT={cfg['direct']}` (reads from the page cache, so that the orders that "
        "thrash finish in seconds). Fetches and modeled I/O seconds are counted in program order and are the same "
        "on every run; wall seconds are measured around the process (start, the run, the write-back at exit) and "
        f"include the page-cache copies, not disk time. Other work ran on the machine at the same time (load "
        f"average {raw['load_start'][0]:.2f} at the start, {raw['load_end'][0]:.2f} at the end; each run's load "
        "is in the raw data): wall times are indicative only.")
    add(f"* Per-run time limit {cfg['run_timeout']} s; a run that hits it is shown as a timeout and left out of "
        "the averages.")
    add("")
    add("| kernel | models | sizes | disk-resident data | buffer (main table) |")
    add("|---|---|---|---|---|")
    for k, what, _, _ in KERNELS:
        r = next(r for r in main if r["kernel"] == k and r["mode"] == "lower")
        add(f"| `{k}` | {what} | `{' '.join(r['defs'])}` | {human_bytes(r['data_bytes'])} | "
            f"{human_bytes(r['buffer_bytes'])} ({r['buffer_bytes'] // r['stripe_bytes']} stripes) |")
    add("")

    # Targets first: the numbers are computed here and shown again below.
    red_lower = reductions(main, kernels, "dro-wp", "lower")
    red_clo = reductions(main, kernels, "dro-wp", "clo")
    avg_lower, geo_lower, tot_lower, _ = aggregates(main, kernels, "dro-wp", "lower")
    avg_clo, geo_clo, tot_clo, _ = aggregates(main, kernels, "dro-wp", "clo")
    fpb_rows = []
    for k in kernels:
        lo = fpb(next(r for r in main if r["kernel"] == k and r["mode"] == "lower"))
        wp = fpb(next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp"))
        if lo is not None and lo >= T_FPB_LOWER:
            fpb_rows.append((k, lo, wp, wp is not None and wp <= T_FPB_DRO))
    ct = {(r["kernel"], r["big"]): r for r in raw["compile"]}
    ct_ratios = []
    for k in kernels:
        r = ct.get((k, False))
        if r and r.get("dro-wp") and r.get("plain") and r.get("off"):
            ct_ratios.append((k, r["dro-wp"] / r["plain"], r["dro-wp"] / r["off"]))
    flat = []
    for k in kernels:
        a, b = ct.get((k, False)), ct.get((k, True))
        if a and b and growth(a, b, "dro-wp") is not None:
            flat.append((k, growth(a, b, "dro-wp"), growth(a, b, "plain")))
    t1 = avg_lower is not None and avg_lower >= T_VS_LOWER
    t2 = avg_clo is not None and avg_clo >= T_VS_CLO
    t3 = bool(fpb_rows) and all(ok for *_, ok in fpb_rows)
    t4 = bool(ct_ratios) and all(p <= T_COMPILE and o <= T_COMPILE for _, p, o in ct_ratios)
    t5 = bool(flat) and all(f <= T_FLAT for _, f, _ in flat)
    n_ok_lower = sum(v is not None for v in red_lower.values())
    n_ok_clo = sum(v is not None for v in red_clo.values())

    add("## Summary: the issue's targets")
    add("")
    add("| target | measured | status |")
    add("|---|---|---|")
    add(f"| dro-wp cuts modeled I/O by >= {T_VS_LOWER:.0%} vs lower (suite average) | mean of the per-kernel "
        f"reductions {pct(avg_lower)} over {n_ok_lower} kernels (per kernel: "
        + ", ".join(f"{k} {pct(v)}" for k, v in red_lower.items()) + f"); geometric mean {pct(geo_lower)}, "
        f"suite-average modeled I/O {pct(tot_lower)} | {verdict(t1)} |")
    add(f"| dro-wp cuts modeled I/O by >= {T_VS_CLO:.0%} vs clo (suite average) | mean {pct(avg_clo)} over "
        f"{n_ok_clo} kernels (per kernel: " + ", ".join(f"{k} {pct(v)}" for k, v in red_clo.items()) +
        f"); geometric mean {pct(geo_clo)}, suite-average modeled I/O {pct(tot_clo)} "
        f"| {verdict(t2)} |")
    add(f"| fetches per block <= {T_FPB_DRO} with dro-wp where lower's is >= {T_FPB_LOWER:g} | " +
        (", ".join(f"{k}: {lo:.2f} -> {fmt(wp)}{'' if ok else ' (no)'}" for k, lo, wp, ok in fpb_rows) or
         "no kernel has lower >= 3") + f"; {sum(ok for *_, ok in fpb_rows)} of {len(fpb_rows)} kernels | "
        f"{verdict(t3)} |")
    if ct_ratios:
        worst = max(ct_ratios, key=lambda x: max(x[1], x[2]))
        add(f"| compile time (dro-wp, CPU seconds, section 5) <= {T_COMPILE:g}x plain clang-19 -O2 and "
            f"<= {T_COMPILE:g}x mode=off | "
            f"vs plain clang-19: mean {mean(p for _, p, _ in ct_ratios):.1f}x, worst {worst[0]} "
            f"{worst[1]:.1f}x; vs mode=off: mean {mean(o for *_, o in ct_ratios):.1f}x | {verdict(t4)} |")
    if flat:
        add(f"| compile time flat when the arrays grow 100x (dro-wp CPU seconds at 10x per dimension / at the "
            f"base size <= {T_FLAT}) | " + ", ".join(f"{k} {f:.2f}x" for k, f, _ in flat) + f" | {verdict(t5)} |")
    add("")
    met = [n for n, ok in (("modeled I/O vs lower", t1), ("modeled I/O vs clo", t2), ("fetches per block", t3),
                           ("compile time vs clang", t4), ("compile time flat", t5)) if ok]
    notmet = [n for n, ok in (("modeled I/O vs lower", t1), ("modeled I/O vs clo", t2), ("fetches per block", t3),
                              ("compile time vs clang", t4), ("compile time flat", t5)) if not ok]
    # The first two targets at the other buffer sizes (section 2's kernels).
    brow = raw.get("buffer", [])
    bks = list(dict.fromkeys(r["kernel"] for r in brow))
    parts = []
    for ftext in dict.fromkeys(r["fraction_text"] for r in brow):
        cell = []
        for base, thr in (("lower", T_VS_LOWER), ("clo", T_VS_CLO)):
            v, g, _, n = aggregates(brow, bks, "dro-wp", base, lambda r: r["fraction_text"] == ftext)
            cell.append(f"vs {base} {pct(v)}" + ("" if v is None else (" (met)" if v >= thr else " (not met)")) +
                        f" (geo. {pct(g)})")
        parts.append(f"{ftext}: " + ", ".join(cell))
    if parts:
        add(f"The targets are judged at the main table's buffer ({cfg['fraction_text']} of the data). The first two "
            f"depend on it: at the buffer sizes of section 2 ({', '.join(bks)}; no matmul), dro-wp's mean reduction "
            "of modeled I/O (and the geometric-mean one) is " + "; ".join(parts) + ".")
        add("")
    add(f"Met: {', '.join(met) if met else 'none'}. Not met: {', '.join(notmet) if notmet else 'none'}. "
        "The verdicts on modeled I/O use the arithmetic mean of the per-kernel reductions (as paper 1's Fig. 15 "
        "averages its benchmarks); the reduction by the geometric mean of the per-kernel ratios and the reduction "
        "of the suite-average modeled I/O are shown next to it.")
    if raw["mismatches"]:
        add("")
        add("**CHECKSUM MISMATCHES (a mode computed a different result than mode=off):**")
        for msg in raw["mismatches"]:
            add(f"* **{msg}**")
    add("")

    add("## 1. Main table")
    add("")
    if have_plots:
        add("![modeled I/O and fetches per block per kernel and mode](dro-main.png)")
        add("")
    add("`fetch/blk` = stripe fetches / distinct stripes fetched (paper 1, Fig. 17). `schedule` is what the "
        "`-Rpass=iopoly`/`-Rpass-missed=iopoly` remarks say (for clo, Polly's `-Rpass-analysis=polly-scops` "
        "remarks and whether the machine code differs from lower's). `same` = checksum equal to mode=off's.")
    add("")
    add("| kernel | mode | fetches | distinct | fetch/blk | modeled I/O s | wall s | schedule | same |")
    add("|---|---|---|---|---|---|---|---|---|")
    for k in kernels:
        for r in (x for x in main if x["kernel"] == k):
            st = stats_of(r)
            run = r["run"]
            same = "yes" if run.get("identical") else ("**NO**" if run.get("status") == "ok" else "-")
            if r["mode"] == "off":
                add(f"| {k} | off (reference) | - | - | - | - | {run['wall']:.2f} | - | {run['checksum']} |")
                continue
            if st:
                add(f"| {k} | {r['mode']} | {st['stripe_fetches']} | {st['distinct_stripes']} | "
                    f"{st['fetches_per_block']:.2f} | {st['modeled_io_seconds']:.2f} | {run['wall']:.2f} | "
                    f"{applied_text(r)} | {same} |")
            else:
                add(f"| {k} | {r['mode']} | {status_text(r)} | | | | | {applied_text(r)} | - |")
    add("")
    add("Suite averages (over the kernels where the mode ran to the end):")
    add("")
    add("| mode | kernels | fetches | distinct | fetch/blk | modeled I/O s | wall s | modeled I/O vs lower: mean "
        "reduction / geo. mean ratio / reduction of the total |")
    add("|---|---|---|---|---|---|---|---|")
    for mode in MODES:
        rows = [r for r in main if r["mode"] == mode and stats_of(r)]
        red = reductions(main, kernels, mode, "lower")
        ratios = []
        tot_a = tot_b = 0.0
        for k in kernels:
            a = mio(next(r for r in main if r["kernel"] == k and r["mode"] == mode))
            b = mio(next(r for r in main if r["kernel"] == k and r["mode"] == "lower"))
            if a is not None and b:
                ratios.append(a / b)
                tot_a += a
                tot_b += b
        add(f"| {mode} | {len(rows)} | {fmt(mean(stats_of(r)['stripe_fetches'] for r in rows), 0)} | "
            f"{fmt(mean(stats_of(r)['distinct_stripes'] for r in rows), 0)} | "
            f"{fmt(mean(stats_of(r)['fetches_per_block'] for r in rows))} | "
            f"{fmt(mean(stats_of(r)['modeled_io_seconds'] for r in rows))} | "
            f"{fmt(mean(r['run']['wall'] for r in rows))} | "
            + (f"{pct(mean(red.values()))} / {fmt(gmean(ratios), 3)} / {pct(1 - tot_a / tot_b) if tot_b else '-'}"
               if mode != "lower" else "-") + " |")
    add("")
    add("Schedules, from the remarks on each kernel's own file (the checksum loop in kernel.h left out):")
    add("")
    for k in kernels:
        for mode in ("dro-l", "dro-wp"):
            r = next(x for x in main if x["kernel"] == k and x["mode"] == mode)
            sch = r.get("compile", {}).get("schedule")
            if not sch:
                continue
            for msg in sch["applied"]:
                add(f"* `{k}`: {msg if msg.startswith(mode + ':') else mode + ': ' + msg}")
            for msg in sch["missed"]:
                add(f"* `{k}` {mode}: *{msg}*")
            if not sch["applied"] and not sch["missed"]:
                add(f"* `{k}` {mode}: no remark (Polly kept {sch['scops']} SCoPs, dismissed {sch['dismissed']})")
    add("")

    # Where dro-wp does not win.
    add("### Where dro-wp is not better than lower or clo")
    add("")
    lines = []
    for k in kernels:
        wp = next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp")
        for base in ("lower", "clo"):
            b = next(r for r in main if r["kernel"] == k and r["mode"] == base)
            a_m, b_m = mio(wp), mio(b)
            if a_m is None or b_m is None or a_m < b_m:
                continue
            sch = wp.get("compile", {}).get("schedule") or {}
            why = ("schedule not applied: " + "; ".join(sch["missed"])) if sch.get("missed") and not sch.get(
                "applied") else ("schedule applied (" + "; ".join(sch.get("applied", [])) + ")")
            lines.append(f"* `{k}`: dro-wp {a_m:.2f} s modeled I/O, {fmt(fpb(wp))} fetches per block against "
                         f"{base} {b_m:.2f} s, {fmt(fpb(b))}; {why}.")
    L.extend(lines or ["dro-wp has less modeled I/O than both lower and clo on every kernel."])
    for k in kernels:
        wp = next(r for r in main if r["kernel"] == k and r["mode"] == "dro-wp")
        sch = wp.get("compile", {}).get("schedule") or {}
        if sch and not sch.get("applied"):
            low = next(r for r in main if r["kernel"] == k and r["mode"] == "lower")
            same = stats_of(wp) and stats_of(low) and \
                stats_of(wp)["stripe_fetches"] == stats_of(low)["stripe_fetches"]
            L.append(f"* `{k}`: dro-wp did not reorder anything (" + ("; ".join(sch.get("missed", [])) or
                                                                    "no remark") + "); " +
                     ("its counters equal lower's." if same else
                      "its counters differ from lower's only through the other effects of the Polly pipeline on "
                      "the code (for one, the Polly modes turn off full unrolling)."))
    add("")

    for sec, label, key in (("buffer", "buffer size (paper 1, Fig. 18)", "fraction_text"),
                            ("stripe", "stripe size (paper 1, Fig. 20)", "stripe_bytes")):
        rows = raw[sec]
        n = "2" if sec == "buffer" else "3"
        add(f"## {n}. Sensitivity to the {label}")
        add("")
        if sec == "buffer":
            add(f"Stripe {stripe_name(cfg['stripe'])}, buffer from {cfg['fractions'][0]} to {cfg['fractions'][-1]} "
                f"of each kernel's data. Each cell: modeled I/O seconds / fetches per block.")
        else:
            add(f"Buffer {cfg['fraction_text']} of the data; the compiler (`-fplugin-arg-iopoly-stripe`) and the "
                "runtime (`IOPOLY_STRIPE`) get the same stripe. Each cell: modeled I/O seconds / fetches per block.")
        add("")
        if have_plots:
            add(f"![sensitivity to the {sec} size](dro-{sec}.png)")
            add("")
        xs = list(dict.fromkeys(r[key] for r in rows))
        add("| kernel | mode | " + " | ".join(str(x) if sec == "buffer" else stripe_name(x) for x in xs) + " |")
        add("|---|---|" + "---|" * len(xs))
        for k in dict.fromkeys(r["kernel"] for r in rows):
            for mode in MODES:
                cells = []
                for x in xs:
                    r = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[key] == x), None)
                    if r is None:
                        cells.append("")
                    elif stats_of(r):
                        cells.append(f"{mio(r):.2f} / {fpb(r):.2f}" + ("" if r["run"].get("identical") else
                                                                      " **checksum differs**"))
                    else:
                        cells.append(status_text(r))
                add(f"| {k} | {mode} | " + " | ".join(cells) + " |")
        add("")
        add("Mean reduction of modeled I/O against lower (kernels where both ran):")
        add("")
        add("| mode | " + " | ".join(str(x) if sec == "buffer" else stripe_name(x) for x in xs) + " |")
        add("|---|" + "---|" * len(xs))
        for mode in MODES[1:]:
            cells = []
            for x in xs:
                red = []
                for k in dict.fromkeys(r["kernel"] for r in rows):
                    a = next((r for r in rows if r["kernel"] == k and r["mode"] == mode and r[key] == x), None)
                    b = next((r for r in rows if r["kernel"] == k and r["mode"] == "lower" and r[key] == x), None)
                    if a and b and mio(a) is not None and mio(b):
                        red.append(1 - mio(a) / mio(b))
                cells.append(f"{pct(mean(red))} ({len(red)})" if red else "-")
            add(f"| {mode} | " + " | ".join(cells) + " |")
        add("")

    add("## 4. Granularity of the locality sets: dro-wp with `granularity=disk` and `granularity=stripe`")
    add("")
    add("`stripe` (the default) makes one locality unit per chunk of consecutive stripes of each array; `disk` "
        "uses the disk of each stripe, as in the paper. Same stripe, disks and buffer as the main table.")
    add("")
    add("| kernel | granularity | fetches | fetch/blk | modeled I/O s | wall s | schedule | same |")
    add("|---|---|---|---|---|---|---|---|")
    for k in kernels:
        for g in ("stripe", "disk"):
            r = next((x for x in raw["granularity"] if x["kernel"] == k and x["granularity"] == g), None)
            if r is None:
                continue
            st = stats_of(r)
            sch = (r.get("compile") or {}).get("schedule") or {}
            detail = applied_text(r)
            if sch.get("missed") and not sch.get("applied"):
                detail += ": " + sch["missed"][0]
            if st:
                add(f"| {k} | {g} | {st['stripe_fetches']} | {st['fetches_per_block']:.2f} | "
                    f"{st['modeled_io_seconds']:.2f} | {r['run']['wall']:.2f} | {detail} | "
                    f"{'yes' if r['run'].get('identical') else '**NO**'} |")
            else:
                add(f"| {k} | {g} | {status_text(r)} | | | | {detail} | - |")
    add("")

    add(f"## 5. Compile time")
    add("")
    add(f"CPU seconds (user + system of the compiler processes; other work shares the machine, so CPU time rather "
        f"than wall time), median of {cfg['compile_reps']} compiles (`-O2 -c`, no link) of each kernel: plain "
        "`clang-19` without the plugin, `iopoly-clang` with mode=off (plugin loaded, nothing done) and in each "
        "mode; at the sizes of the runs and with every array dimension x10 (100x the data of the 2-D arrays). "
        "The ratio to plain clang-19 in parentheses; every sample (CPU and wall) is in the raw data. Single "
        "compiles vary by up to about a third on this shared machine.")
    add("")
    add("| kernel | sizes | clang-19 | off | lower | clo | dro-l | dro-wp | dro-wp / off |")
    add("|---|---|---|---|---|---|---|---|---|")
    for r in raw["compile"]:
        def c(v):
            if r.get(v) is None:
                return "failed"
            return f"{r[v]:.2f}" + (f" ({r[v] / r['plain']:.1f}x)" if v != "plain" and r.get("plain") else "")
        add(f"| {r['kernel']} | `{' '.join(r['defs'])}` | " + " | ".join(c(v) for v in ["plain", "off"] + MODES) +
            f" | {(r['dro-wp'] / r['off']) if r.get('dro-wp') and r.get('off') else float('nan'):.1f}x |")
    add("")
    add("Growth with 100x the data (compile time at 10x per dimension / at the run sizes; each repetition "
        "compiles both sizes back to back, and the ratio shown is the median of the per-repetition ratios; plain "
        "clang-19, whose work does not depend on the sizes, shows the noise):")
    add("")
    add("| kernel | clang-19 | off | lower | clo | dro-l | dro-wp |")
    add("|---|---|---|---|---|---|---|")
    for k in kernels:
        a, b = ct.get((k, False)), ct.get((k, True))
        if not a or not b:
            continue
        add(f"| {k} | " + " | ".join(f"{growth(a, b, v):.2f}x" if growth(a, b, v) is not None else "-"
                                     for v in ["plain", "off"] + MODES) + " |")
    add("")
    if raw.get("write_behind"):
        add("## 6. Write-behind (`IOPOLY_WRITE_BEHIND`)")
        add("")
        add("The main table's runs (write-behind on, the default) against the same builds run with "
            "`IOPOLY_WRITE_BEHIND=0`, where a fetch that evicts a dirty stripe first waits for its write. Same "
            "stripe, disks and buffer as the main table. Writes: stripes written back (of them, written ahead; "
            "written ahead and then changed again).")
        add("")
        add("| kernel | mode | modeled I/O s, off | on | on / off | fetches, off | on | writes, off | on (ahead, again) "
            "| same |")
        add("|---|---|---|---|---|---|---|---|---|---|")
        ratios = []
        for k in kernels:
            for mode in ("lower", "clo", "dro-wp"):
                on = next((x for x in raw["write_behind"] if x["kernel"] == k and x["mode"] == mode
                           and x["write_behind"]), None)
                off = next((x for x in raw["write_behind"] if x["kernel"] == k and x["mode"] == mode
                            and not x["write_behind"]), None)
                if not on or not off or not stats_of(on) or not stats_of(off):
                    continue
                a, b = stats_of(off), stats_of(on)
                r = b["modeled_io_seconds"] / a["modeled_io_seconds"] if a["modeled_io_seconds"] else None
                if r:
                    ratios.append(r)
                same = on["run"].get("identical") and off["run"].get("identical")
                add(f"| {k} | {mode} | {a['modeled_io_seconds']:.2f} | {b['modeled_io_seconds']:.2f} | "
                    f"{fmt(r)} | {a['stripe_fetches']} | {b['stripe_fetches']} | {a['writebacks']} | "
                    f"{b['writebacks']} ({b.get('write_behind')}, {b.get('write_behind_changed_again')}) | "
                    f"{'yes' if same else '**NO**'} |")
        if ratios:
            geo = gmean(ratios)
            add("")
            add(f"Geometric mean of on / off over {len(ratios)} runs: {geo:.2f}; better in "
                f"{sum(1 for x in ratios if x < 0.99)}, worse in {sum(1 for x in ratios if x > 1.01)}.")
        add("")
    text = "\n".join(L) + "\n"
    with open(os.path.join(out, "dro.md"), "w") as f:
        f.write(text)
    return text
