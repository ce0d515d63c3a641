#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""iopoly_trace_plot.py - a picture of one run from its IOPOLY_TRACE.

Run by `iopoly-trace plot TRACE -o timeline.png`, which reads the binary
trace and feeds this script the events as CSV on stdin (iopoly-trace --csv:
time_s,array,stripe,disk,event,hit,mode). In the spirit of DXT Explorer's
timelines, four panels over the run's time:

  1. every stripe access: stripe index against time, one colour per array;
     misses (stripes read from disk) solid, hits faint;
  2. fetches and hits per array per time bin;
  3. fetches per disk per time bin (a heat map: idle disks show);
  4. the buffer's occupancy: stripes resident (fetched or prefetched and not
     yet evicted).
"""
import argparse
import csv
import sys


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, help="image file (png, svg, pdf)")
    p.add_argument("--title", default="", help="title of the figure")
    p.add_argument("--bins", type=int, default=100, help="time bins of panels 2 and 3")
    args = p.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("iopoly-trace plot: matplotlib is not installed (Debian: apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 1

    rows = list(csv.DictReader(sys.stdin))
    if not rows:
        print("iopoly-trace plot: the trace has no events", file=sys.stderr)
        return 1
    t = [float(r["time_s"]) for r in rows]
    t_end = max(t) or 1e-9
    arrays = sorted({r["array"] for r in rows})
    disks = sorted({int(r["disk"]) for r in rows})
    colours = {a: plt.get_cmap("tab10")(i % 10) for i, a in enumerate(arrays)}
    bins = max(1, args.bins)
    width = t_end / bins

    def bin_of(x):
        return min(bins - 1, int(x / width)) if width > 0 else 0

    fetch = {a: [0] * bins for a in arrays}
    hits = {a: [0] * bins for a in arrays}
    per_disk = {d: [0] * bins for d in disks}
    occ_t, occ, resident = [0.0], [0], 0
    for r, x in zip(rows, t):
        ev, hit = r["event"], r["hit"] == "1"
        b = bin_of(x)
        if ev == "attach" and hit:
            hits[r["array"]][b] += 1
        elif ev in ("attach", "prefetch"):
            fetch[r["array"]][b] += 1
            per_disk[int(r["disk"])][b] += 1
            resident += 1
        elif ev == "evict":
            resident -= 1
        if ev in ("attach", "prefetch", "evict") and not hit:
            occ_t.append(x)
            occ.append(resident)

    fig, ax = plt.subplots(4, 1, figsize=(11, 12), sharex=True,
                           gridspec_kw={"height_ratios": [3, 2, 2, 1.5]})
    for a in arrays:
        xs_m = [x for r, x in zip(rows, t) if r["array"] == a and r["event"] in ("attach", "prefetch")
                and r["hit"] != "1"]
        ys_m = [int(r["stripe"]) for r in rows if r["array"] == a and r["event"] in ("attach", "prefetch")
                and r["hit"] != "1"]
        xs_h = [x for r, x in zip(rows, t) if r["array"] == a and r["event"] == "attach" and r["hit"] == "1"]
        ys_h = [int(r["stripe"]) for r in rows if r["array"] == a and r["event"] == "attach" and r["hit"] == "1"]
        ax[0].scatter(xs_h, ys_h, s=2, color=colours[a], alpha=0.08, linewidths=0)
        ax[0].scatter(xs_m, ys_m, s=4, color=colours[a], label=f"{a} ({len(xs_m)} fetches, {len(xs_h)} hits)",
                      linewidths=0)
    ax[0].set_ylabel("stripe")
    ax[0].set_title("stripe accesses (solid: read from disk, faint: buffer hits)")
    ax[0].legend(fontsize=8, markerscale=3, loc="upper right")
    centres = [(i + 0.5) * width for i in range(bins)]
    for a in arrays:
        ax[1].plot(centres, fetch[a], color=colours[a], label=f"{a} fetches")
        ax[1].plot(centres, hits[a], color=colours[a], linestyle=":", label=f"{a} hits")
    ax[1].set_ylabel(f"per {width * 1e3:.3g} ms")
    ax[1].set_title("fetches and hits per array")
    ax[1].legend(fontsize=7, ncol=2, loc="upper right")
    if disks:
        ax[2].imshow([per_disk[d] for d in disks], aspect="auto", interpolation="nearest", cmap="viridis",
                     extent=(0, t_end, len(disks) - 0.5, -0.5))
        ax[2].set_yticks(range(len(disks)))
        ax[2].set_yticklabels([str(d) for d in disks], fontsize=7)
    ax[2].set_ylabel("disk")
    ax[2].set_title("fetches per disk (brighter: more)")
    ax[3].step(occ_t, occ, where="post", color="black")
    ax[3].set_ylabel("stripes")
    ax[3].set_title("buffer occupancy")
    ax[3].set_xlabel("time since the runtime started (s)")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"iopoly-trace plot: wrote {args.output} ({len(rows)} events, {len(arrays)} arrays, {len(disks)} disks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
