# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""python3 -m bench.layout - the file layout benchmark (issue 10, paper 1 sec. 4).

Compiles each kernel in modes lower, clo and dro-wp with the file layout
choice off (-fplugin-arg-iopoly-layout=off: every array row-major) and on
(layout=static, the default), runs them on striped disk directories with
the stripe buffer at a fraction of the kernel's data, and writes
bench/results/layout.md and bench/results/raw/layout.json: stripe fetches,
fetches per block, modeled I/O seconds (hdd model), the layouts chosen (from
the -Rpass remarks), and the floor beside every run (distinct stripes: each
fetched once). Every build's checksum must equal mode=off's; a difference
makes the tool exit with status 1 after writing the report.

Kernels: bench/layout/transposed.c (V produced by columns, read transposed:
both phases prefer column-major) and the six kernels of bench/kernels at the
disk-reuse benchmark's sizes (bench/dro/kernels.py), among them transpose.c
(V produced by rows, read transposed: the vote ties and keeps row-major).

  python3 -m bench.layout [--build DIR] [--quick] [--stripe 64K] [--disks 8] [--fraction 1/8]
  python3 -m bench.layout --render-only
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from bench import common
from bench.common import ROOT, frac_value, log, parse_size
from bench.dro.kernels import KERNEL_DIR, KERNELS as DRO_KERNELS, QUICK_DEFS

HERE = os.path.dirname(os.path.abspath(__file__))
# name, source, what it models, its -D (None: -DN=<--n>).
KERNELS = [("transposed", os.path.join(HERE, "transposed.c"), "V produced by columns, then U[i][j] = 2 V[j][i] + 1",
            None)] + [(name, os.path.join(KERNEL_DIR, name + ".c"), what, defs)
                      for name, what, defs, _ in DRO_KERNELS]
MODES = ["lower", "clo", "dro-wp"]
LAYOUTS = ["off", "static"]
TARGET_FPB = 1.5     # dro-wp with layout: at most 1.5 fetches per block on the transposed walk
TARGET_VS_CLO = 0.20  # ... and at least 20% less modeled I/O than clo


def compile_one(cfg, src, defs, mode, layout, out):
    cmd = [os.path.join(cfg.build, "bin", "iopoly-clang"), "-O2", f"-fplugin-arg-iopoly-mode={mode}",
           f"-fplugin-arg-iopoly-stripe={cfg.stripe_text}", f"-fplugin-arg-iopoly-disks={cfg.disks}",
           "-I" + KERNEL_DIR, *defs, src, "-o", out]
    if mode != "off":
        cmd[2:2] = [f"-fplugin-arg-iopoly-layout={layout}", "-Rpass=iopoly", "-Rpass-missed=iopoly"]
    ok, err, wall, _ = common.run_compiler(cmd, cfg.compile_timeout)
    shown = " ".join(c.replace(ROOT + "/", "").replace(cfg.build, "build") for c in cmd if c != out)
    info = {"ok": ok, "command": shown, "compile_seconds": wall}
    if not ok:
        info["error"] = err[-2000:]
        return info
    info["layouts"] = [r["msg"] for r in common.remarks_of(err) if r["msg"].startswith("file layout of")]
    return info


def run_all(cfg):
    data = {"config": {"stripe": cfg.stripe, "disks": cfg.disks, "fraction": cfg.fraction_text, "n": cfg.n,
                       "model": cfg.model},
            "machine": common.machine_info(cfg.build, cfg.work), "kernels": []}
    for name, src, what, defs in KERNELS:
        if cfg.kernels and name not in cfg.kernels:
            continue
        defs = [f"-DN={cfg.n}"] if defs is None else QUICK_DEFS[name][0] if cfg.quick else defs
        k = {"name": name, "what": what, "defs": defs, "runs": []}
        ref = os.path.join(cfg.work, f"{name}.off")
        info = compile_one(cfg, src, defs, "off", "off", ref)
        if not info["ok"]:
            log(f"{name}: the mode=off build failed: {info['error']}")
            sys.exit(2)
        r = common.run_striped(ref, cfg.work, cfg.stripe, 1 << 30, cfg.disks, model="none")
        k["checksum"] = next((l.split()[1] for l in r.get("stdout", "").splitlines() if l.startswith("checksum")), "?")
        size = common.run_striped(ref, cfg.work, cfg.stripe, 1 << 30, cfg.disks, model="none", args=["size"])
        k["data_bytes"] = int(size["stdout"].strip())
        k["buffer"] = max(cfg.stripe, int(k["data_bytes"] * cfg.fraction) // cfg.stripe * cfg.stripe)
        for mode in MODES:
            for layout in LAYOUTS:
                exe = os.path.join(cfg.work, f"{name}.{mode}.{layout}")
                info = compile_one(cfg, src, defs, mode, layout, exe)
                run = {"mode": mode, "layout": layout, **info}
                if info["ok"]:
                    log(f"{name} mode={mode} layout={layout}: running")
                    res = common.run_striped(exe, cfg.work, cfg.stripe, k["buffer"], cfg.disks, model=cfg.model,
                                             timeout=cfg.run_timeout)
                    run["status"] = res["status"]
                    run["stats"] = res.get("stats")
                    run["checksum"] = next((l.split()[1] for l in res.get("stdout", "").splitlines()
                                            if l.startswith("checksum")), "?")
                    run["identical"] = run["checksum"] == k["checksum"]
                    if not run["identical"]:
                        log(f"MISMATCH: {name} mode={mode} layout={layout}: checksum {run['checksum']} "
                            f"!= mode=off's {k['checksum']}")
                k["runs"].append(run)
        data["kernels"].append(k)
    return data


def fmt(x, d=0):
    return "-" if x is None else f"{x:,.{d}f}"


def summary(data):
    """Per kernel and mode, the modeled I/O with the layout choice over without it."""
    out = ["## With the layout choice against without it", "",
           "Modeled I/O of `layout=static` over `layout=off`, per mode (below 1: the layouts help; the issue asks "
           "that they never cost more than 2%).", "",
           "| kernel | " + " | ".join(MODES) + " |", "|---|" + "---:|" * len(MODES)]
    worse = []
    for k in data["kernels"]:
        cells = []
        for mode in MODES:
            by = {r["layout"]: (r.get("stats") or {}).get("modeled_io_seconds") for r in k["runs"]
                  if r["mode"] == mode and r.get("status") == "ok"}
            if by.get("off") and by.get("static") is not None:
                q = by["static"] / by["off"]
                cells.append(f"{q:.2f}")
                if q > 1.02:
                    worse.append(f"{k['name']} {mode} ({q:.2f}x)")
            else:
                cells.append("-")
        out.append(f"| {k['name']} | " + " | ".join(cells) + " |")
    out += ["", "Worse by more than 2%: " + (", ".join(worse) if worse else "none") + ".", ""]
    return out


def render(data, command):
    c = data["config"]
    out = ["# File layout selection (paper 1, section 4)", "",
           "Regenerate with `" + command + "` (from the repository root).", "",
           f"{common.human_bytes(c['stripe'])} stripes on {c['disks']} disks, "
           f"stripe buffer {c['fraction']} of the data, disk model `{c['model']}` (modeled I/O seconds), buffered "
           "I/O. `layout=off`: every array row-major; `layout=static` (the default): the layout chosen by the "
           "compiler from the accesses. Floor: the distinct stripes of the run (each fetched once). "
           "Every build's checksum is compared with the mode=off build's.", ""]
    mism = []
    for k in data["kernels"]:
        out += [f"## {k['name']}: {k['what']}", "",
                f"`{' '.join(k.get('defs') or ['-DN=%d' % c['n']])}`: data {common.human_bytes(k['data_bytes'])}, "
                f"buffer {common.human_bytes(k['buffer'])}.", "",
                "| mode | layout | stripe fetches | floor (distinct) | fetches/block | modeled I/O s | identical |",
                "|---|---|---:|---:|---:|---:|---|"]
        for r in k["runs"]:
            st = r.get("stats") or {}
            if not r["ok"] or r.get("status") != "ok":
                out.append(f"| {r['mode']} | {r['layout']} | {r.get('status', 'compile failed')} | | | | |")
                continue
            if not r["identical"]:
                mism.append(f"{k['name']} {r['mode']} {r['layout']}")
            out.append(f"| {r['mode']} | {r['layout']} | {fmt(st.get('stripe_fetches'))} | "
                       f"{fmt(st.get('distinct_stripes'))} | {fmt(st.get('fetches_per_block'), 2)} | "
                       f"{fmt(st.get('modeled_io_seconds'), 2)} | {'yes' if r['identical'] else 'NO'} |")
        chosen = next((r for r in k["runs"] if r["layout"] == "static" and r.get("layouts")), None)
        if chosen:
            out += ["", "Layouts chosen (remarks of the layout=static build):", ""]
            out += ["- " + m for m in chosen["layouts"]]
        out.append("")
    out += summary(data)
    t = next((k for k in data["kernels"] if k["name"] == "transposed"), None)
    if t:
        def get(mode, layout):
            r = next((r for r in t["runs"] if r["mode"] == mode and r["layout"] == layout), None)
            return (r or {}).get("stats") or {}
        dro, clo = get("dro-wp", "static"), get("clo", "static")
        out += ["## The issue's targets (transposed walk)", ""]
        fpb = dro.get("fetches_per_block")
        if fpb is not None:
            out.append(f"- dro-wp with layout at most {TARGET_FPB} fetches per block: {fpb:.2f} "
                       f"({'MET' if fpb <= TARGET_FPB else 'NOT MET'})")
        if dro.get("modeled_io_seconds") is not None and clo.get("modeled_io_seconds"):
            gain = 1 - dro["modeled_io_seconds"] / clo["modeled_io_seconds"]
            out.append(f"- dro-wp with layout at least {TARGET_VS_CLO:.0%} less modeled I/O than clo (both with "
                       f"layout): {gain:.1%} ({'MET' if gain >= TARGET_VS_CLO else 'NOT MET'})")
        cl0 = get("clo", "off")
        if dro.get("modeled_io_seconds") is not None and cl0.get("modeled_io_seconds"):
            gain = 1 - dro["modeled_io_seconds"] / cl0["modeled_io_seconds"]
            out.append(f"- dro-wp with layout against clo without it: {gain:.1%} less modeled I/O")
        out.append("")
    if mism:
        out += ["**Checksum mismatches:** " + ", ".join(mism), ""]
    m = data.get("machine") or {}
    if m:
        out += ["## Machine", "", "```", json.dumps(m, indent=1, sort_keys=True)[:3000], "```", ""]
    return "\n".join(out), mism


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--workdir")
    ap.add_argument("--quick", action="store_true", help="512x512 for transposed, the dro benchmark's quick sizes")
    ap.add_argument("--n", type=int, default=1024, help="transposed.c's N")
    ap.add_argument("--kernels", help="comma-separated subset of the kernels")
    ap.add_argument("--stripe", default="64K")
    ap.add_argument("--disks", type=int, default=8)
    ap.add_argument("--fraction", default="1/8")
    ap.add_argument("--model", default="hdd")
    ap.add_argument("--run-timeout", type=float, default=900)
    ap.add_argument("--compile-timeout", type=float, default=600)
    ap.add_argument("--render-only", action="store_true")
    cfg = ap.parse_args()
    raw = os.path.join(cfg.out, "raw", "layout.json")
    command = "scripts/bench-layout.sh" + (" --quick" if cfg.quick else "")
    if cfg.render_only:
        with open(raw) as f:
            data = json.load(f)
    else:
        cfg.build = os.path.abspath(cfg.build)
        cfg.n = 512 if cfg.quick else cfg.n
        cfg.kernels = cfg.kernels.split(",") if cfg.kernels else []
        cfg.stripe_text, cfg.stripe = cfg.stripe, parse_size(cfg.stripe)
        cfg.fraction_text, cfg.fraction = cfg.fraction, frac_value(cfg.fraction)
        cfg.work = cfg.workdir or tempfile.mkdtemp(prefix="iopoly-bench-layout.")
        os.makedirs(cfg.work, exist_ok=True)
        try:
            data = run_all(cfg)
        finally:
            if not cfg.workdir:
                shutil.rmtree(cfg.work, ignore_errors=True)
        os.makedirs(os.path.dirname(raw), exist_ok=True)
        with open(raw, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
    text, mism = render(data, command)
    with open(os.path.join(cfg.out, "layout.md"), "w") as f:
        f.write(text)
    log("wrote " + os.path.join(cfg.out, "layout.md"))
    sys.exit(1 if mism else 0)


if __name__ == "__main__":
    main()
