#!/usr/bin/env python3
# ===- test/random/reduce.py - Shrink a failing random program ------------===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Shrinks a program that run_random.py reported, keeping the failure.

    reduce.py prog.c --mode lower --opt -O2 [--buffer 64K] [-o small.c]

The failure is what the program shows at the start: the mode's output
differs from mode=off's, or the mode's build stops with an error (the same
first error line must come back, numbers aside), or it does not compile;
with --slower-than SECONDS, that the mode's build takes longer than that.
Then, until nothing more can go: whole loops, single statements, array
printing blocks and lines between are removed (one at a time, keeping the
braces balanced), and a loop whose body is a single loop or statement is
replaced by its body with the iterator fixed to its first value when that
keeps the failure. Each try compiles both builds and runs them, about a
second; a generated program shrinks in a few minutes.
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_random  # noqa: E402


class Oracle:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.clang = os.path.join(args.bin, 'iopoly-clang')
        self.tries = 0

    def build(self, src, mode, exe):
        cmd = [self.clang, self.args.opt] + run_random.mode_flags(mode) + [
            '-fplugin-arg-iopoly-stripe=' + run_random.STRIPE, '-fplugin-arg-iopoly-disks=' + run_random.DISKS,
            '-w'] + run_random.BASE_CFLAGS + self.args.cflags + (
                ['-DIOPOLY_RANDOM_REFERENCE'] if mode == 'off' else []) + [src, '-o', exe]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=run_random.COMPILE_TIMEOUT)
        return p.returncode, p.stderr

    def run(self, exe, lowered):
        env = None
        if lowered:
            data = os.path.join(self.work, 'data')
            shutil.rmtree(data, ignore_errors=True)
            os.makedirs(data)
            env = run_random.run_env(data, os.path.join(self.work, 'stats.json'), self.args.buffer,
                                     self.args.run_env)
        try:
            p = subprocess.run([exe], capture_output=True, env=env, timeout=run_random.RUN_TIMEOUT)
            return p.returncode, p.stdout, p.stderr.decode(errors='replace')
        except subprocess.TimeoutExpired:
            return 'timeout', b'', 'timeout'

    def failure(self, text):
        """What goes wrong with program text: None (nothing) or a key."""
        self.tries += 1
        src = os.path.join(self.work, 'try.c')
        with open(src, 'w') as f:
            f.write(text)
        ref, exe = os.path.join(self.work, 'ref'), os.path.join(self.work, 'mode')
        rc, err = self.build(src, 'off', ref)
        if rc:
            return None  # not a valid program any more
        rrc, rout, _ = self.run(ref, False)
        if rrc != 0:
            return None
        cpu = cpu_seconds()
        rc, err = self.build(src, self.args.mode, exe)
        if self.args.slower_than is not None:
            return 'slow' if rc == 0 and cpu_seconds() - cpu > self.args.slower_than else None
        if rc:
            return 'compile: ' + normalize(run_random.first_error(err))
        mrc, mout, merr = self.run(exe, True)
        if mrc != 0:
            return 'run: ' + normalize(run_random.first_error(merr))
        if mout != rout:
            return 'differs'
        return None


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def normalize(line):
    return re.sub(r"0x[0-9a-f]+|\d+|'[^']*'|/\S+", '#', line)


def program_start(lines):
    """The first line of the generated functions (the output helpers before
    it are left alone)."""
    for k, ln in enumerate(lines):
        if re.match(r'(__attribute__\S* )?static void (nest|init|emit)|int main', ln):
            return k
    return 0


def blocks(lines):
    """Candidate removals: (first, last) line ranges, largest first."""
    out = []
    stack = []
    for k, ln in enumerate(lines):
        if k < program_start(lines):
            continue
        s = ln.strip()
        if s.endswith('{'):
            stack.append(k)
        if s.startswith('}') and stack:
            first = stack.pop()
            head = lines[first].strip()
            if head.startswith(('for ', 'for(', '{')):
                out.append((first, k))
        elif s.endswith(';') and not s.startswith(('return', '#')) and stack:
            out.append((k, k))
        elif s.startswith('for ') and not s.endswith('{') and stack:
            # An unbraced loop (init and print loops): up to its statement.
            end = k
            while end + 1 < len(lines) and not lines[end].strip().endswith(';'):
                end += 1
            out.append((k, end))
    out.sort(key=lambda r: r[0] - r[1])
    return out


def unwrap(lines):
    """Candidates that replace a braced loop by its body with the iterator
    fixed: (first, last, new lines)."""
    out = []
    stack = []
    for k, ln in enumerate(lines):
        s = ln.strip()
        if s.endswith('{'):
            stack.append(k)
        if s.startswith('}') and stack:
            first = stack.pop()
            m = re.match(r'\s*for \(int (\w+) = ([^;]+);', lines[first])
            if m:
                var, init = m.group(1), m.group(2)
                body = lines[first + 1:k]
                out.append((first, k, ['%s{ const int %s = %s;' % (lines[first][:len(lines[first]) -
                                                                        len(lines[first].lstrip())], var, init)]
                            + body + [lines[k]]))
    return out


def main():
    root = os.path.dirname(os.path.dirname(HERE))
    ap = argparse.ArgumentParser(description='Shrink a failing random program, keeping the failure.')
    ap.add_argument('program')
    ap.add_argument('--mode', default='lower', help='the failing mode (default lower; may carry +opt=val)')
    ap.add_argument('--opt', default='-O2', help='optimization level (default -O2; write --opt=-O0)')
    ap.add_argument('--buffer', default=run_random.BUFFER)
    ap.add_argument('--run-env', action='append', default=[], metavar='VAR=VALUE')
    ap.add_argument('--cflags', default='')
    ap.add_argument('--bin', default=os.environ.get('IOPOLY_BIN', os.path.join(root, 'build', 'bin')))
    ap.add_argument('--slower-than', type=float, metavar='SECONDS',
                    help='the failure to keep: the mode\'s build takes more CPU time than this')
    ap.add_argument('-o', '--output', help='result (default: PROGRAM with .reduced.c)')
    args = ap.parse_args()
    args.cflags = args.cflags.split()
    if not args.opt.startswith('-'):
        args.opt = '-' + args.opt
    out_path = args.output or re.sub(r'\.c$', '', args.program) + '.reduced.c'
    with open(args.program) as f:
        lines = f.read().split('\n')
    with tempfile.TemporaryDirectory(prefix='iopoly-reduce-') as work:
        oracle = Oracle(args, work)
        key = oracle.failure('\n'.join(lines))
        if key is None:
            print('reduce.py: %s does not fail with mode=%s %s' % (args.program, args.mode, args.opt))
            return 1
        print('reduce.py: keeping the failure "%s" (%d lines)' % (key, len(lines)), flush=True)
        changed = True
        while changed:
            changed = False
            for first, last in blocks(lines):
                if last >= len(lines):
                    continue
                trial = lines[:first] + lines[last + 1:]
                if oracle.failure('\n'.join(trial)) == key:
                    lines, changed = trial, True
                    print('  removed lines %d-%d: %d lines left' % (first + 1, last + 1, len(lines)), flush=True)
                    break
            if changed:
                continue
            for first, last, new in unwrap(lines):
                trial = lines[:first] + new + lines[last + 1:]
                if oracle.failure('\n'.join(trial)) == key:
                    lines, changed = trial, True
                    print('  unwrapped the loop at line %d' % (first + 1), flush=True)
                    break
        with open(out_path, 'w') as f:
            f.write('\n'.join(lines))
        print('reduce.py: %d lines in %s after %d tries' % (len(lines), out_path, oracle.tries))
    return 0


if __name__ == '__main__':
    sys.exit(main())
