#!/usr/bin/env python3
# ===- test/random/run_random.py - Random differential test of the plugin -===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Random differential test: every mode must print what mode=off prints.

    run_random.py [--count 200] [--seed-start 0] [--modes lower,clo,...]
                  [--opt-levels O0,O2,O3] [--jobs 2] [--keep] [--bin build/bin]

For each seed, gen_program.py writes a C program with disk-resident arrays.
It is compiled with iopoly-clang -fplugin-arg-iopoly-mode=off (the reference:
ordinary memory) and with every other mode, each build is run (the lowered
ones on 4 disks, 4 KiB stripes and a 64 KiB buffer under a fresh IOPOLY_DIR),
and the outputs must be byte-identical. A lowered run must also have gone
through the stripe buffer (IOPOLY_STATS attaches > 0) and, when its
disk-resident data exceeds twice the buffer (always at the default 64K),
fetched stripes (stripe_fetches > 0): a build that bypassed the runtime
cannot pass.

The buffer: the lowered code keeps one stripe attached per access site and
loop until its function returns (README, known limitations), so a program
with more sites than the buffer has frames may stop with "stripe buffer
full". There is no silent retry: such a stop is a failure unless the case
(seed, -O level, mode) is listed in buffer_limits.txt, the documented
limitation checked by name. A listed case is run again in a buffer of one
stripe per access site and loop (counted from its -Rpass=iopoly remarks),
where it must pass, and is reported in the listed-limit column; a listed case
that no longer stops is a failure too (the list must be kept true).
--buffer-rule instead gives every program such a buffer from the start when
its remarks say it needs one (for exploring other seeds); --record-limits
FILE writes the cases that stopped, in the list's format.

Schedules: for clo, dro-l and dro-wp the report counts the programs a remark
says were rescheduled ("reordered the loops here", "applied a new
schedule"); -O0 builds do not count (the Polly modes only lower there). A
mode whose share falls below its minimum (MIN_SCHEDULED, --min-scheduled)
fails the run when at least 50 programs count, so a mode that silently
stopped transforming cannot pass.

--programs FILE... runs given C files (test/random/regressions) instead of
generated ones: every mode against mode=off, without the generator's checks.

With CI=true in the environment, a candidate mode the plugin does not accept
is an error, not a note.

Modes: by default every mode among lower, clo, dro-l, dro-wp that the plugin
accepts (each is tried on a trivial file; the others are skipped with a
note). --modes names them explicitly; a mode may carry more plugin options
after '+', e.g. lower+hoist=false.

Optimization levels: by default each program is compiled at one level, -O2
for most seeds, -O0 for seeds ending in 0 and -O3 for seeds ending in 5;
--opt-levels O0,O2,O3 compiles every program at every listed level.

Per mode and level the report gives: programs compiled, identical outputs,
programs transformed (see transformed() below), runs that needed a bigger
buffer and failures (grouped by cause at the end). On a failure
the program, the outputs, the remarks and a repro.sh with the exact commands
are kept under RESULTS/failures/ and the exit status is 1; reduce.py shrinks
such a program (the command is in repro.sh).

--draw-geometry draws each program's stripe and buffer from its seed (see
draw_geometry): the restructured code must adapt at run time to a geometry
it was not compiled for, with byte-identical output. A run that stops with
"stripe buffer full" in a drawn buffer smaller than the documented rule's is
run again in the rule's buffer (the bigger-buffer column).

--draw-layouts generates programs whose arrays the file layout pass can
rewrite (gen_program.py --layouts) and draws, from each program's seed, a
file layout (a dimension permutation other than row-major) for its
disk-resident arrays of two or three dimensions and asks every mode but off
for them
(-fplugin-arg-iopoly-layout=A:1,0+...). An array the layout pass cannot
rewrite is refused with an error naming it; it is dropped from the request
and the build repeated. The outputs must stay byte-identical to mode=off
(whose arrays stay row-major), and at least one array of the run must have
been stored permuted.

--twice compiles every mode a second time and requires the same machine
code (reproducible builds: nothing of the compiler's memory layout, such as
the order of pointers, may reach the code).

--sabotage MODE compiles MODE with -DIOPOLY_RANDOM_SABOTAGE (the programs
then change one element before printing): the test must fail, which shows
that a difference is noticed.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import re
import resource
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_program  # noqa: E402

CANDIDATE_MODES = ['lower', 'clo', 'dro-l', 'dro-wp']
STRIPE, DISKS, BUFFER = '4K', '4', '64K'
# Every build, the reference included. With clang's default
# -ffp-contract=on, a*b+c becomes llvm.fmuladd, which LLVM may fuse when it
# folds a constant and not at run time (both legal), so two correct builds
# can differ in the last bit (regressions/fp_contract_fold.c). Put
# --cflags=-ffp-contract=on to test with the default anyway.
BASE_CFLAGS = ['-ffp-contract=off']
RUN_TIMEOUT = 60
COMPILE_TIMEOUT = 300
# The compiler of the helper files (issue 9: code built without the plugin).
PLAIN_CC = os.environ.get('IOPOLY_PLAIN_CC', 'clang-19')

# What a mode's remarks say when it restructured the loops (issue 4 modes,
# e.g. "dro-wp: tiled the loops here by their data: ..." under
# -Rpass=iopoly) or when it decided not to ("disk-reuse schedule not applied
# to the loops here: ..." under -Rpass-missed=iopoly), and what mode=lower
# says when it strip-mined a loop at stripe boundaries.
SCHEDULE_APPLIED = re.compile(r'remark: .*(reordered|restructured|schedule applied|tiled).*\[-Rpass=iopoly\]',
                              re.IGNORECASE)
SCHEDULE_NOT_APPLIED = re.compile(r'remark: .*(schedul|reorder).*\[-Rpass-missed=iopoly\]', re.IGNORECASE)
STRIPMINE_REMARK = re.compile(r'remark: strip-mined loop at stripe boundaries')
# What a Polly mode says when it rescheduled a SCoP (Transform/DiskReuse.cpp,
# Transform/CLO.cpp): dro-l/dro-wp say "tiled the loops here by their data".
SCHEDULED_REMARK = re.compile(
    r'remark: .*(reordered the loops here|applied a new schedule|tiled the loops here).*\[-Rpass=iopoly\]')
# Minimum share of programs (built at -O1 or above) each Polly mode must
# reschedule; measured shares of the default 200 programs are in the README.
MIN_SCHEDULED = {'clo': 0.30, 'dro-l': 0.12, 'dro-wp': 0.12}
MIN_PROGRAMS_FOR_SHARE = 50


def scheduled(mode, remarks):
    """Whether a remark says mode rescheduled a SCoP (None for lower)."""
    if mode.split('+')[0] == 'lower':
        return None
    return bool(SCHEDULED_REMARK.search(remarks))


def transformed(mode, remarks, code, lower_code):
    """Whether mode changed the program beyond plain lowering.

    mode=lower counts as transformed when it strip-mined a loop. Another
    mode counts when a remark says it applied a schedule; when its remarks
    only say it did not, it does not count; when they say neither, it counts
    when its machine code differs from mode=lower's (see machine_code)."""
    base = mode.split('+')[0]
    if base == 'lower':
        return bool(STRIPMINE_REMARK.search(remarks))
    if SCHEDULE_APPLIED.search(remarks):
        return True
    if SCHEDULE_NOT_APPLIED.search(remarks):
        return False
    return code is not None and lower_code is not None and code != lower_code


def machine_code(path):
    """The executable sections of an ELF64 file (name and bytes of each):
    the program's machine code, which is what transformed() compares."""
    with open(path, 'rb') as f:
        elf = f.read()
    if elf[:4] != b'\x7fELF' or elf[4] != 2:
        return None
    order = '<' if elf[5] == 1 else '>'
    shoff, = struct.unpack_from(order + 'Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(order + 'HHH', elf, 0x3A)

    def section(k):
        name, _, flags, _, off, size = struct.unpack_from(order + 'IIQQQQ', elf, shoff + k * shentsize)
        return name, flags, off, size

    _, _, stroff, _ = section(shstrndx)
    code = []
    for k in range(shnum):
        name, flags, off, size = section(k)
        if flags & 0x4:  # SHF_EXECINSTR
            end = elf.index(b'\0', stroff + name)
            code.append(elf[stroff + name:end] + b':' + elf[off:off + size])
    return b'\n'.join(code)


# The summary remark of each lowered function (LowerDiskAccesses.cpp).
LOWERED_REMARK = re.compile(r'lowered (\d+) loads, (\d+) stores and (\d+) memset/memcpys? .*?'
                            r'strip-mined (\d+) loops \((\d+) accesses')


def frames_needed(remarks):
    """How many stripes the lowered code may keep attached at once, by the
    documented rule (README, known limitations: one per access site and
    loop), summed over all functions (callers keep theirs while a callee
    runs), plus 2 for the runtime's own transient attaches; None when the
    remarks do not say."""
    found = LOWERED_REMARK.findall(remarks)
    if not found:
        return None
    return sum(int(x) for groups in found for x in groups) + 2


def draw_geometry(seed, disk_bytes):
    """--draw-geometry: the run's stripe (4, 8 or 16 KiB) and buffer (1/64
    to 1/2 of the program's disk-resident data, log-uniform, at least two
    stripes), drawn from the seed, so that every mode meets geometries it
    was not compiled for and must adapt at run time."""
    rng = random.Random(0x5EED0000 + seed)
    stripe = rng.choice([4096, 8192, 16384])
    frac = 2.0 ** rng.uniform(-6.0, -1.0)
    frames = max(2, int(disk_bytes * frac) // stripe)
    return stripe, '%dK' % (frames * stripe >> 10)


def draw_layouts(seed, ranks):
    """--draw-layouts: {array: permutation} for the arrays of two or three
    dimensions (ranks: {name: rank}), each other than row-major, drawn from
    the seed (about four in five arrays get one)."""
    rng = random.Random(seed * 7919 + 17)
    out = {}
    for name in sorted(ranks):
        rank = ranks[name]
        if rank < 2 or rng.random() > 0.8:
            continue
        perms = [p for p in itertools.permutations(range(rank)) if list(p) != list(range(rank))]
        out[name] = list(rng.choice(perms))
    return out


def layout_flag(layouts):
    return '-fplugin-arg-iopoly-layout=' + '+'.join(
        '%s:%s' % (n, ','.join(map(str, p))) for n, p in sorted(layouts.items()))


REFUSED_LAYOUT = re.compile(r"iopoly: cannot store '([^']+)' in layout")
LAYOUT_REMARK = re.compile(r"file layout of '([^']+)': ([0-9,]+)")


def mode_flags(mode):
    """Plugin flags for 'name+opt=val+...'."""
    parts = mode.split('+')
    flags = ['-fplugin-arg-iopoly-mode=' + parts[0]]
    flags += ['-fplugin-arg-iopoly-' + p for p in parts[1:]]
    return flags


def run_env(data_dir, stats, buffer, extra=()):
    env = dict(os.environ)
    env.update(IOPOLY_DIR=data_dir, IOPOLY_DISKS=DISKS, IOPOLY_STRIPE=STRIPE, IOPOLY_BUFFER=buffer,
               IOPOLY_DISK_MODEL='none', IOPOLY_DIRECT='off', IOPOLY_STATS=stats)
    env.update(kv.split('=', 1) for kv in extra)
    return env


def first_error(text):
    """The line of a compiler's or program's stderr that says what failed."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for key in ('fatal', 'error', 'Assertion', 'Sanitizer', 'Stack dump'):
        for ln in lines:
            if key in ln:
                return ln[:200]
    return (lines[-1] if lines else '(no message)')[:200]


def run_cmd(cmd, timeout, env=None):
    """Runs cmd: (exit status or 'timeout after Ns', stdout bytes, stderr
    bytes, CPU seconds of the process and the children it waited for)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, env=env)
        fired = []

        def kill():
            fired.append(True)
            p.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = rc = os.waitstatus_to_exitcode(status)
        if fired:
            rc = 'timeout after %ds' % timeout
        fo.seek(0)
        fe.seek(0)
        return rc, fo.read(), fe.read(), ru.ru_utime + ru.ru_stime


def parse_size(text):
    """Bytes in '64K', '1M', '4096'."""
    mult = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if mult > 1 else text) * mult


def first_difference(ref, out):
    """Where two outputs first differ, named by array (or scalar) and offset."""
    n = min(len(ref), len(out))
    pos = next((i for i in range(n) if ref[i] != out[i]), n)
    if pos == n and len(ref) == len(out):
        return 'identical'
    # Walk the reference: "NAME SIZE\n" + SIZE bytes + "\n", then scalar lines.
    at = 0
    while at < len(ref):
        nl = ref.find(b'\n', at)
        if nl < 0:
            break
        head = ref[at:nl].split()
        if len(head) == 2 and head[1].isdigit() and not head[0].startswith(b's'):
            size = int(head[1])
            start = nl + 1
            if start <= pos < start + size:
                return 'array %s (%d bytes): first difference at byte %d' % (head[0].decode(), size, pos - start)
            at = start + size + 1
        else:
            if at <= pos <= nl:
                return 'line %r (mode: %r)' % (ref[at:nl].decode(errors='replace'),
                                               out[at:out.find(b'\n', at)].decode(errors='replace'))
            at = nl + 1
    return 'outputs of %d and %d bytes differ at byte %d' % (len(ref), len(out), pos)


class Tester:
    def __init__(self, args, modes):
        self.args, self.modes = args, modes
        self.clang = os.path.join(args.bin, 'iopoly-clang')
        self.lock = threading.Lock()
        self.done = 0
        self.total = 0
        self.stats = {}      # (mode, opt) -> counters
        self.failures = []   # (seed, opt, mode, what)
        self.slowest = []
        self.compiles = []   # (CPU seconds, seed, opt, mode)
        self.ref_cpu = 0.0   # mode=off builds and runs
        self.limits = load_limits(args.limits)  # {(name, opt, mode)}
        self.stopped = []    # cases that stopped with "stripe buffer full"

    def counter(self, mode, opt):
        return self.stats.setdefault((mode, opt), dict(compiled=0, identical=0, transformed=0, code_differs=0,
                                                       scheduled=0, bigger_buffer=0, failures=0, fetches=0,
                                                       compile_cpu=0.0, compile_failures=0, permuted=0))

    def compile_cmd(self, src, opt, mode, out, remarks=False, objs=(), layouts=None):
        cmd = [self.clang, opt] + mode_flags(mode) + ['-fplugin-arg-iopoly-stripe=' + STRIPE,
                                                      '-fplugin-arg-iopoly-disks=' + DISKS]
        if layouts and mode != 'off':
            cmd.append(layout_flag(layouts))
        if self.args.sabotage and mode == self.args.sabotage:
            cmd.append('-DIOPOLY_RANDOM_SABOTAGE')
        if mode == 'off':
            cmd.append('-DIOPOLY_RANDOM_REFERENCE')  # ordinary memory for iopoly_alloc arrays
        cmd += BASE_CFLAGS + self.args.cflags
        if remarks:
            cmd += ['-Rpass=iopoly', '-Rpass-missed=iopoly']
        return cmd + [src] + list(objs) + ['-o', out]

    def job(self, seed, opt):
        t0 = time.monotonic()
        work = os.path.join(self.args.results, 'work', 'seed%d%s' % (seed, opt))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        src = os.path.join(work, 'prog.c')
        if self.args.programs:
            with open(self.args.programs[seed]) as f:
                text = f.read()
            info = None
        else:
            text, info = gen_program.generate_with_info(seed, self.args.accumulators, self.args.draw_layouts)
        with open(src, 'w') as f:
            f.write(text)
        res = {'seed': seed, 'opt': opt, 'modes': {}, 'failures': []}
        # The helper file the program calls (issue 9), built without the
        # plugin: lowered builds reach their arrays from it by page faults.
        objs = []
        if info and info.get('helper'):
            helper = os.path.join(work, 'helper.c')
            with open(helper, 'w') as f:
                f.write(info['helper'])
            objs = [os.path.join(work, 'helper.o')]
            rc, _, err, _ = run_cmd([PLAIN_CC, opt, '-c', helper, '-o', objs[0]], COMPILE_TIMEOUT)
            if rc != 0:
                res['failures'].append(('off', 'the helper file does not compile (a generator bug?)'))
                self.keep_failure(work, seed, opt, 'off', 'the helper file does not compile',
                                  {'compile.stderr': err.decode(errors='replace')})
                return res

        def fail(mode, what, extra=None):
            res['failures'].append((mode, what))
            self.keep_failure(work, seed, opt, mode, what, extra or {})

        # The reference.
        ref_exe = os.path.join(work, 'ref')
        rc, _, err, cpu = run_cmd(self.compile_cmd(src, opt, 'off', ref_exe, objs=objs), COMPILE_TIMEOUT)
        res['cpu'] = {'off': cpu}
        if rc != 0:
            fail('off', 'the mode=off build does not compile (a generator bug?)',
                 {'compile.stderr': err.decode(errors='replace')})
            return res
        ref_rc, ref_out, _, cpu = run_cmd([ref_exe], RUN_TIMEOUT)
        res['cpu']['off'] += cpu
        if ref_rc != 0:
            fail('off', 'the mode=off build exits with %s (a generator bug?)' % ref_rc)
            return res
        bad = gen_program.check_output(ref_out, info['arrays']) if info else ''
        if bad:
            fail('off', 'the mode=off output breaks the generator\'s promises (a generator bug): ' + bad,
                 {'ref.out': ref_out})
            return res
        # Every mode; mode=lower first (its machine code is the baseline of transformed()).
        lower_code = None
        order = sorted(self.modes, key=lambda m: m != 'lower')
        if 'lower' not in self.modes and any(m.split('+')[0] != 'lower' for m in self.modes):
            order = ['lower?'] + order   # compiled for the criterion only
        for mode in order:
            only_code = mode == 'lower?'
            mode = mode.rstrip('?')
            tag = mode.replace('+', '_').replace('=', '-')
            exe = os.path.join(work, tag)
            m = {}
            layouts = draw_layouts(seed, info['ranks']) if self.args.draw_layouts and info else None
            while True:
                rc, _, err, cpu = run_cmd(self.compile_cmd(src, opt, mode, exe, remarks=True, objs=objs,
                                                           layouts=layouts), COMPILE_TIMEOUT)
                remarks = err.decode(errors='replace')
                # (an allocated array is named by all its pragmas' names: 'A/p')
                refused = {n for r in REFUSED_LAYOUT.findall(remarks) for n in r.split('/')} \
                    if rc != 0 and layouts else set()
                if not refused & set(layouts or ()):
                    break
                for name in refused:  # not rewritable (escapes, -O0): asked again without it
                    layouts.pop(name, None)
            if layouts:
                with open(os.path.join(work, tag + '.layouts'), 'w') as f:
                    f.write(layout_flag(layouts) + '\n')
            if layouts is not None and rc == 0:
                stored = {(n, p) for names, p in LAYOUT_REMARK.findall(remarks) for n in names.split('/')}
                m['permuted'] = sorted(n for n, p in layouts.items() if (n, ','.join(map(str, p))) in stored)
            with open(os.path.join(work, tag + '.remarks'), 'w') as f:
                f.write(remarks)
            if not only_code:
                m['compile_cpu'] = cpu
                self.note_compile(cpu, seed, opt, mode)
            if rc != 0:
                if not only_code:
                    fail(mode, 'mode=%s does not compile (exit %s): %s' % (mode, rc, first_error(remarks)),
                         {'compile.stderr': remarks})
                    res['modes'][mode] = m
                continue
            code = machine_code(exe)
            if mode == 'lower':
                lower_code = code
            if only_code:
                continue
            if self.args.twice:
                # Reproducible builds: the same source and flags, the same
                # machine code (the compiler's own memory layout must not leak
                # into what it emits).
                again = exe + '.again'
                rc2, _, err2, _ = run_cmd(self.compile_cmd(src, opt, mode, again, objs=objs, layouts=layouts),
                                          COMPILE_TIMEOUT)
                if rc2 != 0 or machine_code(again) != code:
                    fail(mode, 'mode=%s: a second compile of the same source %s' % (
                        mode, 'failed: ' + first_error(err2.decode(errors='replace')) if rc2 != 0
                        else 'gave different machine code (the build is not reproducible)'))
                    res['modes'][mode] = m
                    continue
            m['compiled'] = True
            m['transformed'] = transformed(mode, remarks, code, lower_code)
            m['code_differs'] = lower_code is not None and code != lower_code
            m['scheduled'] = bool(scheduled(mode, remarks)) and opt != '-O0'
            data = os.path.join(work, tag + '.data')
            stats = os.path.join(work, tag + '.stats.json')
            # The documented limitation: one stripe per access site and loop
            # (frames_needed, from the remarks).
            buffer = self.args.buffer
            need = frames_needed(remarks)
            stripe = parse_size(dict(kv.split('=', 1) for kv in self.args.run_env).get('IOPOLY_STRIPE', STRIPE))
            geometry_env = []
            if self.args.draw_geometry and info:
                stripe, buffer = draw_geometry(seed, info['disk_bytes'])
                geometry_env = ['IOPOLY_STRIPE=%dK' % (stripe >> 10)]
                m['drawn'] = {'stripe': stripe, 'buffer': buffer}
            rule_buffer = '%dK' % ((need * stripe + 1023) // 1024) if need is not None else None
            if self.args.buffer_rule and need is not None and need * stripe > parse_size(buffer):
                buffer = rule_buffer
                m['bigger_buffer'] = buffer
            prog_env = ['%s=%s' % kv for kv in sorted((info or {}).get('run_env', {}).items())] + geometry_env
            m['run_env'] = prog_env
            out, rc, err = self.run_lowered(exe, data, stats, buffer, prog_env)
            case = (self.case_name(seed), opt, mode)
            full = rc != 0 and b'stripe buffer full' in err
            if full:
                self.note_limit(case)
            if full and self.args.draw_geometry and rule_buffer and parse_size(rule_buffer) > parse_size(buffer):
                # A drawn buffer below the documented rule's: run again in
                # the rule's buffer (counted as a bigger buffer, not a failure).
                buffer = rule_buffer
                m['bigger_buffer'] = buffer
                out, rc, err = self.run_lowered(exe, data, stats, buffer, prog_env)
            elif full and case in self.limits and rule_buffer and not self.by_rule():
                # Listed by name: the documented limitation. Its output is
                # still checked, in the buffer the rule asks for.
                buffer = rule_buffer
                m['bigger_buffer'] = buffer
                out, rc, err = self.run_lowered(exe, data, stats, buffer, prog_env)
            elif full and not self.by_rule():
                err += (b'\n(not a listed limitation: add "%s %s %s" to test/random/buffer_limits.txt if the program '
                        b'needs more than one stripe per access site and loop - %s by its remarks)'
                        % (case[0].encode(), opt.encode(), mode.encode(), str(need).encode()))
            elif not full and case in self.limits and not self.by_rule():
                fail(mode, 'mode=%s ran in %s although buffer_limits.txt lists it as needing more: remove the line '
                     '"%s %s %s"' % (mode, buffer, case[0], opt, mode), {'buffer': buffer, 'prog_env': prog_env})
            m['buffer'] = buffer
            with open(os.path.join(work, tag + '.out'), 'wb') as f:
                f.write(out)
            if rc != 0:
                err = err.decode(errors='replace')
                fail(mode, 'mode=%s run exits with %s: %s' % (mode, rc, first_error(err)),
                     {'run.stderr': err, 'buffer': buffer, 'prog_env': prog_env})
                res['modes'][mode] = m
                continue
            if out != ref_out:
                fail(mode, 'mode=%s output differs from mode=off: %s' % (mode, first_difference(ref_out, out)),
                     {'ref.out': ref_out, 'buffer': buffer, 'prog_env': prog_env})
                res['modes'][mode] = m
                continue
            m['identical'] = True
            try:
                with open(stats) as f:
                    st = json.load(f)
                m['fetches'], attaches = int(st.get('stripe_fetches', 0)), int(st.get('attaches', 0))
            except (OSError, ValueError, TypeError):
                m['fetches'] = attaches = 0
            # Every lowered run must have gone through the stripe buffer, and
            # must have fetched stripes when its disk-resident data exceeds
            # twice the buffer (the generator writes the largest array in
            # full, so it is evicted and read back when printed).
            if attaches <= 0:
                fail(mode, 'mode=%s attached no stripes (IOPOLY_STATS): nothing went through the runtime' % mode,
                     {'buffer': buffer, 'prog_env': prog_env})
            elif info and m['fetches'] <= 0 and info['disk_bytes'] > 2 * parse_size(buffer):
                fail(mode, 'mode=%s fetched no stripes (IOPOLY_STATS) although its %d bytes of disk-resident data '
                     'exceed twice the buffer' % (mode, info['disk_bytes']), {'buffer': buffer, 'prog_env': prog_env})
            res['modes'][mode] = m
        res['seconds'] = time.monotonic() - t0
        if not res['failures'] and not self.args.keep:
            shutil.rmtree(work, ignore_errors=True)
        return res

    def run_lowered(self, exe, data, stats, buffer, program_env=()):
        """Runs a lowered build on a fresh IOPOLY_DIR: (stdout, exit status, stderr)."""
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data)
        extra = list(program_env) + list(self.args.run_env)  # the command line wins
        rc, out, err, _ = run_cmd([exe], RUN_TIMEOUT, env=run_env(data, stats, buffer, extra))
        shutil.rmtree(data, ignore_errors=True)
        return out, rc, err

    def by_rule(self):
        """Whether buffers follow the documented rule rather than the list
        of named limits (which holds for the default geometry only)."""
        return self.args.buffer_rule or self.args.draw_geometry

    def case_name(self, seed):
        """How buffer_limits.txt names a program: its seed, or its file."""
        return os.path.basename(self.args.programs[seed]) if self.args.programs else str(seed)

    def note_limit(self, case):
        with self.lock:
            self.stopped.append(case)

    def note_compile(self, cpu, seed, opt, mode):
        with self.lock:
            self.compiles.append((cpu, seed, opt, mode))

    def keep_failure(self, work, seed, opt, mode, what, extra):
        dest = os.path.join(self.args.results, 'failures', 'seed%d%s-%s' % (seed, opt, mode.replace('+', '_')))
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for name in os.listdir(work):
            p = os.path.join(work, name)
            if os.path.isfile(p) and (name.endswith(('.c', '.out', '.remarks', '.json'))):
                shutil.copy(p, dest)
        buffer = extra.pop('buffer', self.args.buffer)
        prog_env = extra.pop('prog_env', [])
        for name, content in extra.items():
            with open(os.path.join(dest, name), 'wb' if isinstance(content, bytes) else 'w') as f:
                f.write(content)
        q = shlex.quote
        common = [opt, '-fplugin-arg-iopoly-stripe=' + STRIPE, '-fplugin-arg-iopoly-disks=' + DISKS] + BASE_CFLAGS + \
            self.args.cflags
        if self.args.sabotage == mode:
            common.append('-DIOPOLY_RANDOM_SABOTAGE')
        lines = ['#!/bin/sh',
                 '# seed %d %s, mode %s: %s' % (seed, opt, mode, what),
                 '# Regenerate the program: %s %s%s -o prog.c' % (q(os.path.join(HERE, 'gen_program.py')), seed,
                                                                  (' --accumulators' if self.args.accumulators else '') +
                                                                  (' --layouts' if self.args.draw_layouts else '')),
                 '# Shrink it: %s prog.c --bin %s --mode %s --opt=%s --buffer %s%s%s' % (
                     q(os.path.join(HERE, 'reduce.py')), q(self.args.bin), mode, opt, buffer,
                     ''.join(' --run-env ' + q(kv) for kv in self.args.run_env),
                     ' --cflags ' + q(' '.join(self.args.cflags)) if self.args.cflags else ''),
                 'set -e', 'cd "$(dirname "$0")"']
        helper = ''
        if os.path.isfile(os.path.join(work, 'helper.c')):  # built without the plugin
            lines.append('%s %s -c helper.c -o helper.o' % (q(PLAIN_CC), opt))
            helper = ' helper.o'
        # --draw-layouts: the layouts the failing build asked for.
        layouts = ''
        tag = mode.replace('+', '_').replace('=', '-')
        if os.path.isfile(os.path.join(work, tag + '.layouts')):
            with open(os.path.join(work, tag + '.layouts')) as f:
                layouts = ' ' + q(f.read().strip())
        lines += ['%s %s -fplugin-arg-iopoly-mode=off -DIOPOLY_RANDOM_REFERENCE prog.c%s -o ref' % (
                      q(self.clang), ' '.join(map(q, common)), helper),
                 './ref > ref.out']
        if mode != 'off':
            lines += ['%s %s %s%s prog.c%s -o prog.%s' % (q(self.clang), ' '.join(map(q, common)),
                                                          ' '.join(mode_flags(mode)), layouts, helper,
                                                          mode.replace('+', '_')),
                      'rm -rf data && mkdir data',
                      'env IOPOLY_DIR=$PWD/data IOPOLY_DISKS=%s IOPOLY_STRIPE=%s IOPOLY_BUFFER=%s '
                      'IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off IOPOLY_STATS=$PWD/stats.json %s./prog.%s > mode.out'
                      % (DISKS, STRIPE, buffer,
                         ''.join(q(kv) + ' ' for kv in list(prog_env) + list(self.args.run_env)),
                         mode.replace('+', '_')),
                      'cmp ref.out mode.out && echo identical']
        with open(os.path.join(dest, 'repro.sh'), 'w') as f:
            f.write('\n'.join(lines) + '\n')
        os.chmod(os.path.join(dest, 'repro.sh'), 0o755)

    def record(self, res):
        with self.lock:
            self.done += 1
            for mode, m in res['modes'].items():
                c = self.counter(mode, res['opt'])
                c['compiled'] += bool(m.get('compiled'))
                c['identical'] += bool(m.get('identical'))
                c['transformed'] += bool(m.get('transformed'))
                c['code_differs'] += bool(m.get('code_differs'))
                c['scheduled'] += bool(m.get('scheduled'))
                c['bigger_buffer'] += bool(m.get('bigger_buffer'))
                c['compile_cpu'] += m.get('compile_cpu', 0.0)
                c['compile_failures'] += 'compile_cpu' in m and not m.get('compiled')
                c['fetches'] += m.get('fetches', 0)
                c['permuted'] += len(m.get('permuted', ())) if m.get('identical') else 0
            self.ref_cpu += res.get('cpu', {}).get('off', 0.0)
            for mode, what in res['failures']:
                self.counter(mode, res['opt'])['failures'] += 1
                self.failures.append((res['seed'], res['opt'], mode, what))
            self.slowest.append((res.get('seconds', 0), res['seed'], res['opt']))
            status = 'FAIL' if res['failures'] else 'ok'
            tags = ' '.join('%s%s' % (mode, '*' if m.get('transformed') else '')
                            for mode, m in sorted(res['modes'].items()))
            if res['failures'] or not self.args.quiet or self.done % 25 == 0 or self.done == self.total:
                print('[%*d/%d] seed %d %s: %s %s (%.1fs)' % (len(str(self.total)), self.done, self.total, res['seed'],
                                                            res['opt'], status, tags, res.get('seconds', 0)),
                      flush=True)
                for mode, what in res['failures']:
                    print('    %s' % what, flush=True)

    def check_schedule_shares(self):
        """A Polly mode that reschedules fewer programs than its minimum share
        fails the run (a mode that stopped transforming would pass the
        output comparison)."""
        for mode, minimum in sorted(self.args.min_scheduled.items()):
            counts = [c for (m, o), c in self.stats.items() if m == mode and o != '-O0']
            n = sum(c['compiled'] for c in counts)
            k = sum(c['scheduled'] for c in counts)
            if n < MIN_PROGRAMS_FOR_SHARE:
                if n:
                    print('note: mode=%s rescheduled %d of %d programs; the minimum share (%.0f%%) is checked from '
                          '%d programs on' % (mode, k, n, 100 * minimum, MIN_PROGRAMS_FOR_SHARE))
                continue
            print('mode=%s rescheduled %d of %d programs built at -O1 or above (%.1f%%; minimum %.0f%%)' % (
                mode, k, n, 100.0 * k / n, 100 * minimum))
            if k < minimum * n:
                self.failures.append((-1, 'all', mode, 'mode=%s rescheduled only %d of %d programs (%.1f%%), below its '
                                      'minimum of %.0f%%: did it stop transforming?' % (
                                          mode, k, n, 100.0 * k / n, 100 * minimum)))

    def report(self, elapsed):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        print()
        print('random differential test: %d programs in %.0f s wall, %.0f s CPU in compilers and programs '
              '(%d workers)' % (self.done, elapsed, ru.ru_utime + ru.ru_stime, self.args.jobs))
        print('%-22s %-5s %9s %10s %13s %12s %13s %9s %9s %11s' % (
            'mode', 'opt', 'compiled', 'identical', 'transformed', 'code!=lower', 'scheduled', 'limit',
            'failures', 'compile-s'))
        rows = sorted(self.stats.items())
        for mode in sorted({m for m, _ in self.stats}):
            per = [c for (m, _), c in rows if m == mode]
            if len(per) > 1:
                rows.append(((mode, 'all'), {k: sum(c[k] for c in per) for k in per[0]}))
        rows.sort(key=lambda r: (r[0][0], r[0][1] == 'all', r[0][1]))
        for (mode, opt), c in rows:
            share = 100.0 * c['transformed'] / c['compiled'] if c['compiled'] else 0.0
            n = c['compiled'] + c['compile_failures']
            polly = mode.split('+')[0] != 'lower'
            sched = '-' if not polly else '%d (%3.0f%%)' % (
                c['scheduled'], 100.0 * c['scheduled'] / c['compiled'] if c['compiled'] else 0.0)
            print('%-22s %-5s %9d %10d %6d (%3.0f%%) %12s %13s %9d %9d %11.2f' % (
                mode, opt, c['compiled'], c['identical'], c['transformed'], share,
                c['code_differs'] if polly else '-', sched, c['bigger_buffer'], c['failures'],
                c['compile_cpu'] / n if n else 0.0))
        print('transformed: mode=lower strip-mined a loop; other modes: a schedule remark or machine code '
              'different from mode=lower\'s')
        print('scheduled: a remark says the SCoP was rescheduled (-O0 builds never count)')
        print('limit: stopped with "stripe buffer full" at %s, a case buffer_limits.txt lists (the documented '
              'limitation), and passed in a buffer of one stripe per access site and loop%s' % (
                  self.args.buffer, '' if not self.args.buffer_rule else '; with --buffer-rule: given that buffer '
                  'from the start'))
        print('compile-s: mean CPU seconds of one build (mode=off: %.2f)' % (
            self.ref_cpu / max(1, self.done)))
        self.slowest.sort(reverse=True)
        print('slowest programs (wall): ' + ', '.join('seed %d %s %.1fs' % (s, o, t) for t, s, o in self.slowest[:3]))
        self.compiles.sort(reverse=True)
        print('slowest builds (CPU): ' + ', '.join('seed %d %s mode=%s %.1fs' % (s, o, m, t)
                                                   for t, s, o, m in self.compiles[:3]))
        summary = {'programs': self.done, 'seconds': elapsed,
                   'per_mode': [dict(mode=m, opt=o, **c) for (m, o), c in sorted(self.stats.items())],
                   'failures': [dict(seed=s, opt=o, mode=m, what=w) for s, o, m, w in self.failures]}
        with open(os.path.join(self.args.results, 'summary.json'), 'w') as f:
            json.dump(summary, f, indent=1)
        self.check_schedule_shares()
        if self.args.draw_layouts:
            n = sum(c['permuted'] for c in self.stats.values())
            print('--draw-layouts: %d arrays stored permuted in builds whose output was identical (%s)' % (
                n, ', '.join('%s %s: %d' % (m, o, c['permuted']) for (m, o), c in sorted(self.stats.items()))))
            if n == 0 and self.done:
                self.failures.append((-1, 'all', 'any', '--draw-layouts: no array was stored permuted in any build: '
                                      'the test checked nothing of the layouts'))
        if self.args.record_limits:
            with open(self.args.record_limits, 'w') as f:
                for name, opt, mode in sorted(self.stopped, key=lambda c: (int(c[0]) if c[0].isdigit() else 0, c)):
                    f.write('%s %s %s\n' % (name, opt, mode))
            print('%d cases that stopped with "stripe buffer full" written to %s' % (
                len(self.stopped), self.args.record_limits))
        if self.failures:
            print('%d FAILURES (kept under %s):' % (len(self.failures), os.path.join(self.args.results, 'failures')))
            for s, o, m, w in self.failures:
                print('  seed %d %s mode=%s: %s' % (s, o, m, w))
            # The same failure in many programs: counted once per cause.
            causes = {}
            for s, o, m, w in self.failures:
                key = re.sub(r"'[^']*'|\(.*|\d+", '#', w)[:150]
                causes.setdefault(key, []).append('%d%s' % (s, o))
            print('failures by cause:')
            for key, which in sorted(causes.items(), key=lambda kv: -len(kv[1])):
                print('  %4d x %s (seeds %s%s)' % (len(which), key, ' '.join(which[:8]),
                                                   ' ...' if len(which) > 8 else ''))
            return 1
        print('all outputs identical to mode=off')
        return 0


def load_limits(path):
    """The cases of buffer_limits.txt: 'NAME OPT MODE' per line, # comments."""
    cases = set()
    if path and os.path.exists(path):
        with open(path) as f:
            for ln in f:
                ln = ln.split('#')[0].split()
                if len(ln) == 3:
                    cases.add(tuple(ln))
    return cases


def accepted_modes(clang, tmp, notes=True):
    src = os.path.join(tmp, 'probe.c')
    with open(src, 'w') as f:
        f.write('double A[1024];\n#pragma iopoly disk_resident(A)\nint main(void) { return (int)A[3]; }\n')
    modes = []
    for m in CANDIDATE_MODES:
        p = subprocess.run([clang, '-O2', '-S', '-fplugin-arg-iopoly-mode=' + m, src, '-o', os.devnull],
                           capture_output=True, text=True)
        if p.returncode == 0:
            modes.append(m)
        elif notes:
            why = [ln for ln in p.stderr.splitlines() if 'error:' in ln] or p.stderr.strip().splitlines() or ['?']
            if os.environ.get('CI') == 'true':
                # In CI every skip is a failure: the suite must not shrink silently.
                print('run_random.py: mode=%s is not accepted by the plugin (%s); with CI=true that is an error'
                      % (m, why[0].strip()), file=sys.stderr)
                sys.exit(2)
            print('note: mode=%s is not accepted by the plugin; skipped (%s)' % (m, why[0].strip()))
    return modes


def opt_levels_for(args, seed):
    if args.opt_levels:
        return args.opt_levels
    if args.programs:
        return ['-O2']
    return ['-O0' if seed % 10 == 0 else '-O3' if seed % 10 == 5 else '-O2']


def main():
    root = os.path.dirname(os.path.dirname(HERE))
    ap = argparse.ArgumentParser(description='Random differential test of the iopoly plugin modes against mode=off.')
    ap.add_argument('--count', type=int, default=200, help='programs (default 200)')
    ap.add_argument('--seed-start', type=int, default=0, help='first seed (default 0)')
    ap.add_argument('--seeds', help='explicit comma-separated seeds (instead of --count/--seed-start)')
    ap.add_argument('--modes', help='comma-separated modes (default: those of %s the plugin accepts)'
                    % ','.join(CANDIDATE_MODES))
    ap.add_argument('--opt-levels', help='comma-separated levels for every program, e.g. O0,O2,O3 (default: -O2, '
                    'and -O0/-O3 for one seed in ten each)')
    ap.add_argument('--jobs', type=int, default=2, help='programs in parallel (default 2)')
    ap.add_argument('--bin', default=os.environ.get('IOPOLY_BIN', os.path.join(root, 'build', 'bin')),
                    help='directory of iopoly-clang (default $IOPOLY_BIN or build/bin)')
    ap.add_argument('--results', help='results directory (default: a new temporary directory)')
    ap.add_argument('--keep', action='store_true', help='keep every work directory')
    ap.add_argument('--quiet', action='store_true', help='a progress line every 25 programs and on failures')
    ap.add_argument('--buffer', default=BUFFER, help='IOPOLY_BUFFER of the lowered runs (default %s)' % BUFFER)
    ap.add_argument('--buffer-rule', action='store_true',
                    help='give a program one stripe per access site and loop from the start when its remarks say '
                    'it needs more than --buffer (instead of the list of documented cases)')
    ap.add_argument('--accumulators', action='store_true',
                    help='programs with loop-local accumulators too (gen_program.py --accumulators): what the dro '
                         'modes\' scalar expansion gives a copy per iteration')
    ap.add_argument('--draw-geometry', action='store_true',
                    help='draw each program\'s IOPOLY_STRIPE (4K-16K) and IOPOLY_BUFFER (1/64 to 1/2 of its data) from '
                         'its seed; buffers then follow the documented per-site rule instead of buffer_limits.txt')
    ap.add_argument('--draw-layouts', action='store_true',
                    help='programs whose arrays the layout pass can rewrite (gen_program.py --layouts), and every mode '
                         'but off asked for file layouts drawn from each program\'s seed for its arrays of two or '
                         'three dimensions (arrays the pass cannot rewrite are dropped from the request)')
    ap.add_argument('--limits', default=os.path.join(HERE, 'buffer_limits.txt'),
                    help='the documented buffer limitations, by name (default %(default)s)')
    ap.add_argument('--record-limits', metavar='FILE', help='write the cases that stopped with "stripe buffer full"')
    ap.add_argument('--min-scheduled', default=','.join('%s=%g' % kv for kv in sorted(MIN_SCHEDULED.items())),
                    help='MODE=SHARE,...: minimum share of programs (-O1 and above) each Polly mode must reschedule '
                    '(default %%(default)s; checked from %d programs on; "none" turns it off)'
                    % MIN_PROGRAMS_FOR_SHARE)
    ap.add_argument('--programs', nargs='+', metavar='FILE.c',
                    help='run these C files (e.g. test/random/regressions/*.c) instead of generated programs')
    ap.add_argument('--run-env', action='append', default=[], metavar='VAR=VALUE',
                    help='more environment for the lowered runs (repeatable), e.g. IOPOLY_STRIPE=8K')
    ap.add_argument('--cflags', default='', help='more compiler flags for every build (one string)')
    ap.add_argument('--twice', action='store_true',
                    help='compile every mode twice and require the same machine code (reproducible builds)')
    ap.add_argument('--sabotage', metavar='MODE', help='compile MODE with -DIOPOLY_RANDOM_SABOTAGE (must fail)')
    args = ap.parse_args()
    args.cflags = shlex.split(args.cflags)
    args.min_scheduled = {} if args.min_scheduled in ('', 'none') else {
        kv.split('=')[0]: float(kv.split('=')[1]) for kv in args.min_scheduled.split(',')}
    if args.opt_levels:
        # O2, 2 and -O2 all mean -O2 (argparse takes "-O2,..." for an option unless written with '=').
        args.opt_levels = ['-O' + o.strip().lstrip('-').lstrip('O') for o in args.opt_levels.split(',') if o.strip()]
    clang = os.path.join(args.bin, 'iopoly-clang')
    if not os.access(clang, os.X_OK):
        print('run_random.py: %s not found (build first, or pass --bin)' % clang, file=sys.stderr)
        return 2
    if not args.results:
        args.results = tempfile.mkdtemp(prefix='iopoly-random-')
    os.makedirs(args.results, exist_ok=True)
    shutil.rmtree(os.path.join(args.results, 'failures'), ignore_errors=True)
    shutil.rmtree(os.path.join(args.results, 'work'), ignore_errors=True)
    if args.modes:
        modes = [m.strip() for m in args.modes.split(',') if m.strip()]
        with tempfile.TemporaryDirectory() as tmp:
            ok = accepted_modes(clang, tmp, notes=False) if any(m.split('+')[0] in CANDIDATE_MODES for m in modes) else []
        bad = [m for m in modes if m.split('+')[0] not in ok and m.split('+')[0] != 'off']
        if bad:
            print('run_random.py: the plugin does not accept mode(s) %s' % ', '.join(bad), file=sys.stderr)
            return 2
    else:
        with tempfile.TemporaryDirectory() as tmp:
            modes = accepted_modes(clang, tmp)
    if not modes:
        print('run_random.py: no mode to test', file=sys.stderr)
        return 2
    if args.programs:
        # A "seed" is then the index of the file in --programs.
        seeds = list(range(len(args.programs)))
    else:
        seeds = ([int(s) for s in args.seeds.split(',')] if args.seeds
                 else list(range(args.seed_start, args.seed_start + args.count)))
    jobs = [(s, o) for s in seeds for o in opt_levels_for(args, s)]
    t = Tester(args, modes)
    t.total = len(jobs)
    print('random differential test: %d programs (seeds %d..%d), modes %s vs off, %d workers, results in %s' % (
        len(jobs), min(seeds), max(seeds), ','.join(modes), args.jobs, args.results), flush=True)
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futures = {ex.submit(t.job, s, o): (s, o) for s, o in jobs}
        for fut in concurrent.futures.as_completed(futures):
            try:
                res = fut.result()
            except Exception as e:  # a harness error (e.g. a compile timeout) must not pass silently
                s, o = futures[fut]
                res = {'seed': s, 'opt': o, 'modes': {}, 'failures': [('harness', 'error: %r' % e)]}
            t.record(res)
    rc = t.report(time.monotonic() - t0)
    if not args.keep and not t.failures:
        shutil.rmtree(os.path.join(args.results, 'work'), ignore_errors=True)
    return rc


if __name__ == '__main__':
    sys.exit(main())
