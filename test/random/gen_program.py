#!/usr/bin/env python3
# ===- test/random/gen_program.py - Random affine loop programs -----------===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Generates a random C loop program from a seed, for differential testing.

    gen_program.py SEED [-o prog.c] [--helper helper.c]
                                        one program (stdout by default) and,
                                        for some seeds, the helper file it
                                        calls (build that without the plugin)
    gen_program.py --self-test          determinism and bounds self-check

The same seed gives the same program (the generator uses only its own
random.Random(seed)). A program has 2-4 global disk-resident arrays (1-D, 2-D
or 3-D; double, float, int32_t, int64_t; several larger than a 64 KiB buffer
and crossing 4 KiB stripes), sometimes an ordinary global array, and 1-5 loop
nests of depth 1-3:

  - affine bounds: constants, outer iterators (triangular, min(), E - i),
    globals read at run time (parameters), steps of 2 and 3, reversed loops;
  - affine subscripts: permuted and transposed dimensions, shifts i+c,
    reversal D-1-i, scaling 2*i, i+j, i/2 and i%m (quasi-affine), constants;
    occasionally non-affine but in-bounds ones ((i*i+c) % D, X[...] % D);
  - statements that read what others write (flow, anti and output
    dependences within and across nests), reductions into scalars and into
    array elements, loop-local accumulators (reset around the innermost
    loop, summed in it, stored after it: what the dro modes expand), statements between loops (imperfect nests), time loops
    around nests, nests in separate static functions.

Every subscript is checked against the array bounds by interval arithmetic
over the iterators' ranges, so every access is in bounds by construction.
No undefined behaviour: integer arithmetic is done in unsigned types
(wrapping) and converted back (implementation-defined, modular in clang);
no division by anything but positive constants or 1.5 + |x|. Floating-point
elements stay within [-1024, 1024] by construction (each statement is a
weighted sum whose weights add up to less than 1, or is clamped), so there
is no overflow, no NaN, and float-to-int conversions are in range.

Every program prints every array byte for byte (copied element by element
in a loop, never by handing the array to libc) and every scalar (%a for
floating point), and returns 0. Compiled with -DIOPOLY_RANDOM_SABOTAGE it
changes one element before printing (to check that the tester notices).
"""

import argparse
import random
import sys

import gen_features

BOUND = 1024.0          # |float element| <= BOUND, always
BUDGET = 400_000        # statement instances per program (approximate)
BIG = 64 * 1024         # the test buffer: several arrays must exceed it

KINDS = {
    # kind: (C type, unsigned type, size, is_float, unsigned literal suffix)
    'double': ('double', None, 8, True, ''),
    'float': ('float', None, 4, True, ''),
    'int32': ('int32_t', 'uint32_t', 4, False, 'u'),
    'int64': ('int64_t', 'uint64_t', 8, False, 'ull'),
    # A 12-byte record of floats: elements straddle stripe boundaries.
    'rec': ('struct rec', None, 12, True, ''),
}
REC_FIELDS = ['a', 'b', 'c']


class Array:
    def __init__(self, name, kind, dims, disk):
        self.name, self.kind, self.dims, self.disk = name, kind, dims, disk
        self.ctype, self.utype, self.size, self.is_float, self.usuf = KINDS[kind]
        self.init = None  # optional initializer text
        self.fields = REC_FIELDS if kind == 'rec' else None
        self.alloc = False  # allocated with iopoly_alloc in main (gen_features)

    @property
    def nbytes(self):
        n = self.size
        for d in self.dims:
            n *= d
        return n

    def decl(self):
        dims = ''.join('[%d]' % d for d in self.dims)
        init = ' = %s' % self.init if self.init else ''
        return '%s %s%s%s;' % (self.ctype, self.name, dims, init)


class Var:
    """A loop iterator (or the time iterator) and its range [lo, hi]."""

    def __init__(self, name, lo, hi):
        self.name, self.lo, self.hi = name, lo, hi


class Loop:
    """for (int var = ...; ...) with bounds rendered from a small spec."""

    def __init__(self, var, text, trips):
        self.var, self.text, self.trips = var, text, trips
        self.body = []  # Loop or str


class Scalar:
    def __init__(self, name, is_float, ctype):
        self.name, self.is_float, self.ctype = name, is_float, ctype


def fmt_float(x):
    r = repr(float(x))
    return r if ('e' in r or '.' in r) else r + '.0'


class Generator:
    def __init__(self, seed, accumulators=False, layouts=False):
        self.seed = seed
        self.accumulators = accumulators  # loop-local accumulators (--accumulators); off: the programs of before
        # --layouts: arrays the file layout pass can rewrite (no byte views,
        # memset/memcpy, helper file or VLA/global parameters); off: the
        # programs of before
        self.layouts = layouts
        self.rng = random.Random(seed)
        self.params = []      # (name, value) of run-time bound parameters
        self.scalars = []
        self.locals = 0       # loop-local accumulators made so far (names acc0, acc1, ...)
        self.cost = 0
        self.helper = None    # text of the helper file, built without the plugin

    # ---- helpers ------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq, weights=None):
        if weights:
            return self.rng.choices(seq, weights=weights, k=1)[0]
        return self.rng.choice(seq)

    # ---- arrays -------------------------------------------------------
    def make_array(self, name, disk, big):
        r = self.rng
        kind = self.pick(['double', 'float', 'int32', 'int64', 'rec'], [6, 5, 5, 5, 1])
        rank = self.pick([1, 2, 3], [3, 5, 3])
        size = KINDS[kind][2]
        nbytes = r.randint(BIG + 4096, 320 * 1024) if big else r.randint(12 * 1024, 60 * 1024)
        n = nbytes // size
        if rank == 1:
            dims = [n + r.randint(0, 9)]
        elif rank == 2:
            d0 = r.randint(12, min(400, n // 12))
            dims = [d0, max(12, n // d0 + r.randint(-3, 7))]
        else:
            d0, d1 = r.randint(4, 40), r.randint(6, 48)
            dims = [d0, d1, max(6, n // (d0 * d1) + r.randint(-2, 5))]
        return Array(name, kind, dims, disk)

    def make_arrays(self):
        n_disk = self.rng.randint(2, 4)
        names = ['A', 'B', 'C', 'D']
        arrays = []
        n_big = max(2, sum(self.chance(0.7) for _ in range(n_disk)))
        for k in range(n_disk):
            arrays.append(self.make_array(names[k], True, k < n_big))
        self.rng.shuffle(arrays)
        for a, nm in zip(arrays, names):
            a.name = nm
        if self.chance(0.35):
            arrays.append(self.make_array('M', False, self.chance(0.3)))
        for a in arrays:
            if self.chance(0.12) and not a.fields:
                vals = [self.init_value(a) for _ in range(self.rng.randint(1, 6))]
                a.init = '{' + ', '.join(vals) + '}' if len(a.dims) == 1 else \
                    '{' * len(a.dims) + ', '.join(vals) + '}' * len(a.dims)
        self.arrays = arrays

    def init_value(self, a):
        if a.is_float:
            return fmt_float(self.rng.randint(-4000, 4000) / 8.0)
        return str(self.rng.randint(-100000, 100000))

    # ---- subscripts ---------------------------------------------------
    def subscript(self, dim, vars_, prefer=None, allow_nonaffine=True):
        """An in-bounds subscript for a dimension of size dim over vars_."""
        r = self.rng
        if prefer is not None:
            for _ in range(4):
                c = self.pick([0, 0, 0, 1, -1, 2, -2])
                if prefer.lo + c >= 0 and prefer.hi + c <= dim - 1:
                    return self.aff({prefer.name: 1}, c)
        loopvars = [v for v in vars_ if v.hi >= v.lo]
        for _ in range(12):
            kind = self.pick(['id', 'rev', 'scale', 'sum', 'diff', 'div', 'mod', 'const', 'nonaffine', 'indirect'],
                             [10, 2, 2, 2, 1, 1, 1, 1, 1 if allow_nonaffine else 0, 1 if allow_nonaffine else 0])
            if kind == 'const' or not loopvars:
                return str(r.randrange(dim))
            v = r.choice(loopvars)
            if kind == 'id':
                c = self.pick([0, 0, 0, 1, -1, 2, -2, 3])
                if v.lo + c >= 0 and v.hi + c <= dim - 1:
                    return self.aff({v.name: 1}, c)
            elif kind == 'rev':
                c = r.randint(0, 2)
                if dim - 1 - c - v.hi >= 0 and dim - 1 - c - v.lo <= dim - 1:
                    return self.aff({v.name: -1}, dim - 1 - c)
            elif kind == 'scale':
                s, c = self.pick([2, 3]), r.randint(0, 2)
                if s * v.hi + c <= dim - 1 and s * v.lo + c >= 0:
                    return self.aff({v.name: s}, c)
            elif kind in ('sum', 'diff') and len(loopvars) > 1:
                w = r.choice([x for x in loopvars if x is not v])
                sgn = 1 if kind == 'sum' else -1
                c = r.randint(0, 3) if kind == 'sum' else w.hi - v.lo + r.randint(0, 1)
                lo = v.lo + (sgn * w.lo if sgn > 0 else -w.hi) + c
                hi = v.hi + (sgn * w.hi if sgn > 0 else -w.lo) + c
                if lo >= 0 and hi <= dim - 1:
                    return self.aff({v.name: 1, w.name: sgn}, c)
            elif kind == 'div':
                q = self.pick([2, 3, 4])
                if v.lo >= 0 and v.hi // q <= dim - 1:
                    return '%s / %d' % (v.name, q)
            elif kind == 'mod':
                m = r.randint(2, max(2, min(dim, 17)))
                if v.lo >= 0 and m <= dim:
                    return '%s %% %d' % (v.name, m)
            elif kind == 'nonaffine':
                if v.lo >= 0 and v.hi < 40000:
                    c = r.randint(0, 9)
                    if self.chance(0.5) or len(loopvars) < 2:
                        return '(int)(((unsigned)%s * (unsigned)%s + %du) %% %du)' % (v.name, v.name, c, dim)
                    w = r.choice(loopvars)
                    return '(int)(((unsigned)%s * %du + (unsigned)%s * (unsigned)%s) %% %du)' % (
                        v.name, r.randint(2, 9), v.name, w.name, dim)
            elif kind == 'indirect':
                ints = [a for a in self.arrays if not a.is_float]
                if ints:
                    x = r.choice(ints)
                    subs = self.subscripts(x, vars_, allow_nonaffine=False)
                    return '(int)((%s)%s%s %% %du)' % (x.utype, x.name, subs, dim)
        return str(r.randrange(dim))

    @staticmethod
    def aff(coefs, c):
        out = ''
        if all(k < 0 for k in coefs.values()) and c > 0:
            # D - 1 - i rather than -i + D - 1.
            return '%d - ' % c + Generator.aff({n: -k for n, k in coefs.items()}, 0).replace(' + ', ' - ')
        for name, k in coefs.items():
            if k == 0:
                continue
            term = name if abs(k) == 1 else '%d * %s' % (abs(k), name)
            if not out:
                out = ('-' if k < 0 else '') + term
            else:
                out += (' - ' if k < 0 else ' + ') + term
        if not out:
            return str(c)
        if c:
            out += (' - %d' % -c) if c < 0 else (' + %d' % c)
        return out

    def field(self, arr):
        """'.f' for a random field of a record array, '' otherwise."""
        return '.' + self.rng.choice(arr.fields) if arr.fields else ''

    def ref(self, arr, vars_):
        """A read of an element (or field) of arr."""
        return arr.name + self.subscripts(arr, vars_) + self.field(arr)

    def subscripts(self, arr, vars_, prefer=None, allow_nonaffine=True):
        out = ''
        for d, dim in enumerate(arr.dims):
            p = prefer[d] if prefer and d < len(prefer) else None
            out += '[%s]' % self.subscript(dim, vars_, p, allow_nonaffine)
        return out

    def shifted(self, arr, write_subs_vars, vars_):
        """A read of arr near the written element: one dimension shifted."""
        prefer = list(write_subs_vars)
        out = ''
        shift_dim = self.rng.randrange(len(arr.dims))
        for d, dim in enumerate(arr.dims):
            v = prefer[d] if d < len(prefer) else None
            if v is not None and d == shift_dim:
                c = self.pick([-1, 1, -2, 2, -1])
                if v.lo + c >= 0 and v.hi + c <= dim - 1:
                    out += '[%s]' % self.aff({v.name: 1}, c)
                    continue
            out += '[%s]' % self.subscript(dim, vars_, v)
        return out

    # ---- expressions --------------------------------------------------
    def weights(self, n, total):
        raw = [self.rng.random() + 0.2 for _ in range(n)]
        s = sum(raw)
        return [total * x / s for x in raw]

    def coef(self, w):
        """A coefficient of magnitude at most w, random sign."""
        c = int(w * 64) / 64.0 or (int(w * 1024) or 1) / 1024.0
        if self.chance(0.4):
            c = c * self.pick([0.9, 0.7, 0.3, 0.1])
        return -c if self.chance(0.35) else c

    def float_expr(self, vars_, total):
        """A floating-point expression whose magnitude is at most total*BOUND."""
        r = self.rng
        n = self.pick([1, 2, 3, 4], [3, 4, 3, 1])
        terms = []
        for w in self.weights(n, total):
            kind = self.pick(['read', 'read', 'read', 'prod', 'div', 'iter', 'const', 'int'])
            x = r.choice(self.arrays)
            if kind == 'const':
                terms.append(fmt_float(self.coef(w) * BOUND))
            elif kind == 'iter' and vars_:
                v = r.choice(vars_)
                terms.append('%s * (double)(%s %% 61)' % (fmt_float(self.coef(w) * BOUND / 64.0), v.name))
            elif kind == 'prod':
                fl = [a for a in self.arrays if a.is_float]
                if not fl:
                    terms.append(fmt_float(self.coef(w) * BOUND))
                    continue
                a, b = r.choice(fl), r.choice(fl)
                terms.append('%s * %s * %s' % (fmt_float(self.coef(w) / BOUND), self.ref(a, vars_),
                                               self.ref(b, vars_)))
            elif kind == 'div' and x.is_float:
                y = r.choice([a for a in self.arrays if a.is_float])
                terms.append('%s * %s / (1.5 + __builtin_fabs(%s))' % (
                    fmt_float(self.coef(w)), self.ref(x, vars_), self.ref(y, vars_)))
            elif x.is_float:
                terms.append('%s * %s' % (fmt_float(self.coef(w)), self.ref(x, vars_)))
            else:
                terms.append('%s * (double)((%s)%s & 1023u)' % (fmt_float(self.coef(w)), x.utype, self.ref(x, vars_)))
        return self.join_terms(terms)

    @staticmethod
    def join_terms(terms):
        out = terms[0]
        for t in terms[1:]:
            out += (' - ' + t[1:]) if t.startswith('-') else (' + ' + t)
        return out

    def int_expr(self, ut, suf, vars_):
        """An expression of unsigned type ut (wrapping arithmetic)."""
        r = self.rng
        n = self.pick([1, 2, 3, 4], [3, 4, 3, 1])
        terms = []
        for _ in range(n):
            kind = self.pick(['read', 'read', 'read', 'shift', 'xor', 'float', 'iter', 'const', 'scalar'])
            x = r.choice(self.arrays)
            if kind == 'const':
                terms.append('%d%s' % (r.randint(0, 100000), suf))
            elif kind == 'iter' and vars_:
                terms.append('(%s)%s * %d%s' % (ut, r.choice(vars_).name, r.randint(1, 40000), suf))
            elif kind == 'scalar':
                ints = [s for s in self.scalars if not s.is_float]
                if ints:
                    terms.append('(%s)%s' % (ut, r.choice(ints).name))
                else:
                    terms.append('%d%s' % (r.randint(0, 100), suf))
            elif x.is_float:
                terms.append('(%s)(int32_t)(%s * %s)' % (ut, self.ref(x, vars_),
                                                       self.pick(['64.0', '3.0', '1000.0', '0.5'])))
            elif kind == 'shift':
                terms.append('((%s)%s >> %d)' % (ut, self.ref(x, vars_), r.randint(1, 9)))
            elif kind == 'xor':
                y = r.choice([a for a in self.arrays if not a.is_float])
                terms.append('((%s)%s ^ (%s)%s)' % (ut, self.ref(x, vars_), ut, self.ref(y, vars_)))
            else:
                k = self.pick([1, 3, 5, 7, 2654435761, 40503])
                terms.append('(%s)%s * %d%s' % (ut, self.ref(x, vars_), k, suf) if k != 1
                             else '(%s)%s' % (ut, self.ref(x, vars_)))
        out = terms[0]
        for t in terms[1:]:
            out = '%s %s %s' % (out, self.pick(['+', '+', '-', '^']), t)
        return out

    # ---- statements ---------------------------------------------------
    def statement(self, vars_, loop_vars, primary=None, prefer=None):
        """One assignment inside loops whose iterators are loop_vars."""
        r = self.rng
        if self.scalars and self.chance(0.18):
            return self.scalar_statement(vars_)
        target = primary if primary is not None and self.chance(0.75) else r.choice(self.arrays)
        if target is not primary:
            prefer = None
            # A permutation of the iterators (transposed writes).
            lv = list(loop_vars)
            r.shuffle(lv)
            prefer = lv
        subs_vars = []
        out = ''
        for d, dim in enumerate(target.dims):
            p = prefer[d] if prefer and d < len(prefer) else None
            s = self.subscript(dim, vars_, p, allow_nonaffine=self.chance(0.3))
            out += '[%s]' % s
            subs_vars.append(p if p is not None and s.startswith(p.name) else None)
        lhs = target.name + out + self.field(target)
        used = set(x for x in out.replace('[', ' ').replace(']', ' ').replace('+', ' ').replace('-', ' ').split())
        reduction = any(v.name not in used for v in loop_vars) and self.chance(0.7)
        # A read of the target near the written element (a dependence).
        self_read = None
        if self.chance(0.55):
            self_read = target.name + (self.shifted(target, subs_vars, vars_) if any(subs_vars)
                                       else self.subscripts(target, vars_)) + self.field(target)
        if target.is_float:
            cast = '(float)' if target.kind in ('float', 'rec') else ''
            if reduction:
                if self.chance(0.5):
                    return '%s = %s(__builtin_fmin(__builtin_fmax(%s + %s, %s), %s));' % (
                        lhs, cast, lhs, self.float_expr(vars_, 0.9 * self.pick([1, 1 / 16.0, 1 / 256.0])),
                        fmt_float(-BOUND), fmt_float(BOUND))
                return '%s = %s(0.5 * %s + %s);' % (lhs, cast, lhs, self.float_expr(vars_, 0.45))
            if self_read:
                w = self.pick([0.25, 0.5, 0.75])
                return '%s = %s(%s * %s + %s);' % (lhs, cast, fmt_float(self.coef(w) or w), self_read,
                                                  self.float_expr(vars_, 0.94 - w))
            return '%s = %s(%s);' % (lhs, cast, self.float_expr(vars_, 0.94))
        ut, suf = target.utype, target.usuf
        if reduction:
            op = self.pick(['+', '+', '^', '-'])
            return '%s = (%s)((%s)%s %s (%s));' % (lhs, target.ctype, ut, lhs, op, self.int_expr(ut, suf, vars_))
        rhs = self.int_expr(ut, suf, vars_)
        if self_read:
            rhs = '(%s)%s * %d%s + %s' % (ut, self_read, self.pick([1, 3, 31]), suf, rhs)
        return '%s = (%s)(%s);' % (lhs, target.ctype, rhs)

    def scalar_statement(self, vars_):
        s = self.rng.choice(self.scalars)
        if s.is_float:
            e = self.float_expr(vars_, 0.9)
            if self.chance(0.15):
                fl = [a for a in self.arrays if a.is_float]
                if fl:
                    a = self.rng.choice(fl)
                    return '%s = __builtin_fmax(%s, %s);' % (s.name, s.name, self.ref(a, vars_))
            return '%s += %s(%s);' % (s.name, '(float)' if s.ctype == 'float' else '', e)
        e = self.int_expr('uint64_t', 'ull', vars_)
        op = self.pick(['+=', '+=', '^=', 'rec'])
        if op == 'rec':
            return '%s = %s * 31ull + (%s);' % (s.name, s.name, e)
        return '%s %s %s;' % (s.name, op, e)

    # ---- loops --------------------------------------------------------
    def make_loop(self, name, extent, outer):
        """A loop over about [0, extent) of iterator name; returns (Loop, Var)."""
        r = self.rng
        m0, m1 = self.pick([0, 0, 1, 2]), self.pick([0, 0, 1, 2])
        if extent - m1 - 1 < m0 + 1:
            m0 = m1 = 0
        E = extent - m1               # exclusive upper bound for the basic form
        step = self.pick([1, 1, 1, 1, 1, 1, 2, 3])
        form = 'rect'
        if outer and self.chance(0.35):
            form = self.pick(['tri_lo', 'tri_hi', 'tri_neg'])
        u = outer[-1] if outer else None
        rev = self.chance(0.15)
        if form == 'tri_lo' and u.lo + 1 <= E - 1:
            c = self.pick([0, 1])
            lo, hi, trips = u.lo + c, E - 1, max(1, (E - u.lo) // 2)
            lb, ub = self.aff({u.name: 1}, c), str(E)
        elif form == 'tri_hi' and u.lo >= m0:
            lo, hi = m0, min(u.hi, E - 1)
            trips = max(1, (hi - lo + 1) // 2)
            lb = str(m0)
            ub = '(%s + 1 < %d ? %s + 1 : %d)' % (u.name, E, u.name, E) if u.hi > E - 1 else '%s + 1' % u.name
        elif form == 'tri_neg' and E - u.hi >= m0 + 1 and u.lo >= 0:
            lo, hi = m0, E - 1 - u.lo
            trips = max(1, (E - u.lo - m0) // 2)
            lb, ub = str(m0), '%d - %s' % (E, u.name)
        else:
            lo, hi, trips = m0, E - 1, E - m0
            lb, ub = str(m0), str(E)
            if self.chance(0.12):
                p = 'n%d' % len(self.params)
                self.params.append((p, E))
                ub = p
        if step > 1:
            trips = max(1, trips // step)
            text = 'for (int %s = %s; %s < %s; %s += %d)' % (name, lb, name, ub, name, step)
            hi = hi  # conservative: the last iteration is at most hi
        elif rev and not ub.startswith('('):
            text = 'for (int %s = %s - 1; %s >= %s; --%s)' % (name, ub, name, lb, name)
        else:
            text = 'for (int %s = %s; %s < %s; ++%s)' % (name, lb, name, ub, name)
        return Loop(name, text, trips), Var(name, lo, hi)

    def nest(self, budget, timevar):
        """One loop nest (list of lines) and its cost in statement instances."""
        r = self.rng
        depth = self.pick([1, 2, 3], [2, 5, 3])
        primary = r.choice(self.arrays)
        dimorder = list(range(len(primary.dims)))
        if self.chance(0.4):
            r.shuffle(dimorder)
        extents = []
        for k in range(depth):
            if k < len(dimorder):
                extents.append(primary.dims[dimorder[k]])
            else:
                other = r.choice(self.arrays)
                extents.append(min(r.choice(other.dims), r.randint(4, 48)))
        # Keep the nest within its budget: shrink the largest extents.
        nstmt = 2.5
        while True:
            prod = nstmt
            for e in extents:
                prod *= e
            if prod <= budget:
                break
            k = extents.index(max(extents))
            extents[k] = max(3, int(extents[k] * 0.7))
            if max(extents) <= 3:
                break
        vars_ = [timevar] if timevar else []
        loops, loopvars = [], []
        for k in range(depth):
            loop, var = self.make_loop('ijk'[k], extents[k], loopvars)
            loop.range = var
            loops.append(loop)
            loopvars.append(var)
        # The primary statement writes primary[dim d] with the loop of dim d.
        prefer = [None] * len(primary.dims)
        for k, d in enumerate(dimorder[:depth]):
            prefer[d] = loopvars[k]
        cost = 0
        # Innermost body.
        trips = [1]
        for lp in loops:
            trips.append(trips[-1] * lp.trips)
        for k in range(depth - 1, -1, -1):
            lp = loops[k]
            scope = vars_ + loopvars[:k + 1]
            if k == depth - 1:
                n = self.pick([1, 2, 3], [4, 4, 2])
                for s in range(n):
                    lp.body.append(self.statement(scope, loopvars[:k + 1], primary if s == 0 else None,
                                                  prefer if s == 0 else None))
                cost += n * trips[k + 1]
            else:
                inner = loops[k + 1]
                if self.chance(0.3):
                    lp.body.append(self.statement(scope, loopvars[:k + 1]))
                    cost += trips[k + 1]
                lp.body.append(inner)
                if self.chance(0.15) and k == depth - 2:
                    # A sibling loop after the inner one.
                    sib, sv = self.make_loop(inner.var + '2', min(extents[k + 1], 64), loopvars[:k + 1])
                    sib.range = sv
                    sib.body.append(self.statement(scope + [sv], loopvars[:k + 1] + [sv]))
                    lp.body.append(sib)
                    cost += trips[k + 1] * sib.trips
                if self.chance(0.25):
                    lp.body.append(self.statement(scope, loopvars[:k + 1]))
                    cost += trips[k + 1]
        floats = [a for a in self.arrays if a.is_float]
        if self.accumulators and depth >= 2 and floats and self.chance(0.3):
            cost += self.local_accumulator(loops, vars_ + loopvars, floats)
        return loops[0], cost

    def local_accumulator(self, loops, vars_, floats):
        """A scalar reset in every iteration of the loop around the innermost,
        summed in the innermost and stored after it (PolyBench symm's temp2):
        what the dro modes' scalar expansion gives one copy per iteration."""
        name = 'acc%d' % self.locals
        self.locals += 1
        outer, inner = loops[-2], loops[-1]
        outer_vars = vars_[:len(vars_) - 1]
        outer.body.insert(0, 'double %s = 0;' % name)
        inner.body.append('%s = __builtin_fmin(__builtin_fmax(%s + %s, %s), %s);' % (
            name, name, self.float_expr(vars_, 0.9), fmt_float(-BOUND), fmt_float(BOUND)))
        target = self.rng.choice(floats)
        lhs = target.name + self.subscripts(target, outer_vars) + self.field(target)
        cast = '(float)' if target.kind in ('float', 'rec') else ''
        outer.body.append('%s = %s(0.5 * %s + 0.25 * %s);' % (lhs, cast, lhs, name))
        around = 1
        for lp in loops[:-1]:
            around *= lp.trips
        return around * inner.trips + around

    # ---- the program --------------------------------------------------
    def render_loop(self, lp, indent, out):
        out.append('  ' * indent + lp.text + ' {')
        for item in lp.body:
            if isinstance(item, Loop):
                self.render_loop(item, indent + 1, out)
            else:
                out.append('  ' * (indent + 1) + item)
        out.append('  ' * indent + '}')

    def init_nest(self, a, out, full=False):
        """Initializes (all or part of) a by a formula of its indices."""
        r = self.rng
        names = 'pqr'[:len(a.dims)]
        part = self.chance(0.15) and not full
        ind = '  '
        for d, (v, dim) in enumerate(zip(names, a.dims)):
            hi = dim if not (part and d == 0) else max(1, dim // r.randint(2, 4))
            out.append(ind + 'for (int %s = 0; %s < %d; ++%s)' % (v, v, hi, v))
            ind += '  '
        ks = [r.randint(1, 97) for _ in names]
        lin = ' + '.join('%d * %s' % (k, v) for k, v in zip(ks, names))
        ref = a.name + ''.join('[%s]' % v for v in names)
        if a.is_float:
            stmts = []
            for f in (['.' + x for x in a.fields] if a.fields else ['']):
                m = r.choice([101, 97, 251, 1000])
                expr = '(double)((unsigned)(%s + %d) %% %du) * %s - %s' % (
                    lin, r.randint(0, 999), m, fmt_float(self.pick([0.125, 0.3, 1.0, 0.7]) * min(1.0, 1000.0 / m)),
                    fmt_float(r.randint(0, 100) / 4.0))
                stmts.append('%s%s = (%s)(%s);' % (ref, f, 'float' if a.fields else a.ctype, expr))
            out.append(ind + (stmts[0] if len(stmts) == 1 else '{ ' + ' '.join(stmts) + ' }'))
        else:
            out.append(ind + '%s = (%s)((%s)(%s) * %d%s + %d%s);' % (
                ref, a.ctype, a.utype, lin, self.pick([2654435761, 7, 40503, 1]), a.usuf,
                r.randint(0, 1 << 20), a.usuf))

    def emit_array(self, a, out):
        out.append('  printf("%s %%zu\\n", sizeof %s);' % (a.name, a.name))
        if not self.layouts and self.chance(0.5):
            # Byte by byte through a char pointer (like test/e2e/kernels/emit.h).
            out.append('  { const unsigned char *p = (const unsigned char *)%s;' % a.name)
            out.append('    for (size_t q = 0; q < sizeof %s; ++q) out_byte(p[q]); }' % a.name)
        else:
            # Element by element through a typed copy.
            names = 'pqr'[:len(a.dims)]
            ind = '  '
            for v, dim in zip(names, a.dims):
                out.append(ind + 'for (int %s = 0; %s < %d; ++%s)' % (v, v, dim, v))
                ind += '  '
            out.append(ind + '{ %s v = %s%s; out_bytes(&v, sizeof v); }' % (
                a.ctype, a.name, ''.join('[%s]' % v for v in names)))
        out.append('  out_flush();')
        out.append('  printf("\\n");')

    def generate(self):
        r = self.rng
        for _ in range(20):
            self.make_arrays()
            if sum(a.nbytes for a in self.arrays) <= 1_300_000:
                break
        feats = self.features = gen_features.Features(self, self.seed)
        feats.choose_alloc_arrays()
        main_only = set()  # blocks that stay in main (they may use allocated arrays)
        n_nests = self.pick([1, 2, 3, 4, 5], [1, 3, 3, 2, 1])
        use_funcs = self.chance(0.25)
        scalar_globals = use_funcs or self.chance(0.3)
        for k in range(self.pick([0, 1, 2, 3, 4], [1, 3, 3, 2, 1])):
            kind = self.pick(['double', 'double', 'float', 'uint64_t'])
            self.scalars.append(Scalar('s%d' % k, kind != 'uint64_t', kind))
        # Nests, some inside time loops.
        blocks = []   # (text lines, in function?)
        remaining = BUDGET
        k = 0
        while k < n_nests:
            T = self.pick([2, 3, 4]) if self.chance(0.25) else 0
            count = 2 if T and k + 1 < n_nests and self.chance(0.4) else 1
            per = remaining / max(1, (n_nests - k)) / max(1, T) / 1.0
            timevar = Var('t', 0, T - 1) if T else None
            lines = []
            ind = 1
            if T:
                lines.append('  for (int t = 0; t < %d; ++t) {' % T)
                ind = 2
            for _ in range(count):
                lp, cost = self.nest(per, timevar)
                feats.control_flow(lp, [timevar] if timevar else [])
                self.cost += cost * max(1, T)
                remaining -= cost * max(1, T)
                if self.scalars and self.chance(0.2):
                    lines.append('  ' * ind + self.scalar_statement([timevar] if timevar else []))
                out = []
                self.render_loop(lp, ind, out)
                lines += out
            if T:
                lines.append('  }')
            blocks.append(lines)
            k += count
            extra = feats.between_nests()
            if extra:
                main_only.add(len(blocks))
                blocks.append(extra)
        # The program text.
        out = ['/* Random iopoly differential test program, seed %d (test/random/gen_program.py). */' % self.seed,
               '#include <stddef.h>', '#include <stdint.h>', '#include <stdio.h>', '#include <stdlib.h>',
               '#include <string.h>'] + (['#include <iopoly.h>'] if feats.alloc else []) + ['']
        if any(a.fields for a in self.arrays):
            out.append('struct rec { float %s; };' % ', '.join(REC_FIELDS))
        for a in self.arrays:
            if not a.alloc:
                out.append(a.decl())
        disk = [a.name for a in self.arrays if a.disk and not a.alloc]
        out.append('#pragma iopoly disk_resident(%s)' % ', '.join(disk))
        for p, v in self.params:
            out.append('int %s = %d;' % (p, v))
        if scalar_globals:
            for s in self.scalars:
                out.append('static %s %s;' % (s.ctype, s.name))
        out += ['',
                'static unsigned char outbuf[4096];',
                'static size_t outlen;',
                'static void out_flush(void) {',
                '  fwrite(outbuf, 1, outlen, stdout);',
                '  outlen = 0;',
                '}',
                'static void out_byte(unsigned char b) {',
                '  outbuf[outlen++] = b;',
                '  if (outlen == sizeof outbuf)',
                '    out_flush();',
                '}',
                'static void out_bytes(const void *v, size_t n) {',
                '  for (size_t q = 0; q < n; ++q)',
                '    out_byte(((const unsigned char *)v)[q]);',
                '}', '']
        main = []
        if not scalar_globals:
            for s in self.scalars:
                main.append('  %s %s = 0;' % (s.ctype, s.name))
        # The largest disk-resident array is always initialized in full, so
        # that stripes are written, evicted and fetched again.
        # Initialization and printing are often in functions of their own
        # (their lowered accesses then keep no stripe attached in main).
        largest = max((a for a in self.arrays if a.disk), key=lambda a: a.nbytes)
        init = []
        for a in self.arrays:
            if a is largest or self.chance(0.85):
                self.init_nest(a, init, full=a is largest)
        if self.chance(0.5):
            params, args, pragmas, body = feats.function_params(init)
            out += ['__attribute__((noinline)) static void init(%s) {' % params] + pragmas + body + ['}', '']
            main.append('  init(%s);' % args)
        else:
            main += init
        for n, lines in enumerate(blocks):
            if n not in main_only and use_funcs and self.chance(0.7):
                attr = '__attribute__((noinline)) ' if self.chance(0.4) else ''
                params, args, pragmas, body = feats.function_params(lines)
                out.append('%sstatic void nest%d(%s) {' % (attr, n, params))
                out += pragmas + body
                out.append('}')
                out.append('')
                main.append('  nest%d(%s);' % (n, args))
            else:
                main += lines
        # Issue 9: calls into a separately compiled file and pointers kept in
        # structs (drawn from a random stream of their own, so that the rest
        # of a seed's program does not change).
        ext_decls, ext_main, self.helper = self.extras() if not self.layouts else ([], [], None)
        out += ext_decls
        main += ext_main
        victim = r.choice([a for a in self.arrays if a.disk])
        vref = victim.name + '[0]' * len(victim.dims) + ('.a' if victim.fields else '')
        main += ['#ifdef IOPOLY_RANDOM_SABOTAGE',
                 '  %s = %s + 1;' % (vref, vref),
                 '#endif']
        emit = []
        for a in self.arrays:
            self.emit_array(a, emit)
        emit = feats.fix_sizeof(emit, feats.alloc)
        if self.chance(0.7):
            params, args, pragmas, body = feats.function_params(emit)
            out += ['__attribute__((noinline)) static void emit(%s) {' % params] + pragmas + body + ['}', '']
            main.append('  emit(%s);' % args)
        else:
            main += emit
        for s in self.scalars:
            if s.is_float:
                main.append('  printf("%s %%a\\n", (double)%s);' % (s.name, s.name))
            else:
                main.append('  printf("%s %%llu\\n", (unsigned long long)%s);' % (s.name, s.name))
        out.append('int main(void) {')
        out += feats.alloc_lines()
        out += main
        out += feats.free_lines()
        out.append('  return 0;')
        out.append('}')
        return '\n'.join(out) + '\n'


def _extras(self):
    """Code that reaches disk-resident arrays the plugin cannot follow:
    (declarations for the program, statements for main, the text of a
    helper file to build without the plugin, or None). The helper updates
    and sums an array through plain pointers (page faults in lowered
    builds); a struct holds a pointer to an array that a function of the
    program walks through (a run-time checked pointer) and that the helper
    sums through the struct. Values stay within the generator's bounds:
    floats are halved and shifted, integers wrap in unsigned arithmetic."""
    rx = random.Random(self.seed * 7919 + 17)
    decls, stmts = [], []
    helper = ['/* Helper of the random program, seed %d: built without the plugin. */' % self.seed,
              '#include <stddef.h>', '#include <stdint.h>', '']
    plain = [a for a in self.arrays if a.disk and not a.fields]
    if not plain:
        return decls, stmts, None
    used = False
    if rx.random() < 0.35:
        a = rx.choice(plain)
        n = a.nbytes // a.size
        step = rx.choice([1, 1, 3, 7, 64])
        upd = 'p[i] = (%s)(p[i] * 0.5 + 0.25);' % a.ctype if a.is_float else \
            'p[i] = (%s)((%s)p[i] * 3%s + 1%s);' % (a.ctype, a.utype, a.usuf, a.usuf)
        helper += ['void ext_update_%s(%s *p, size_t n) {' % (a.name, a.ctype),
                   '  for (size_t i = 0; i < n; i += %d)' % step,
                   '    ' + upd,
                   '}',
                   'double ext_sum_%s(const %s *p, size_t n) {' % (a.name, a.ctype),
                   '  double s = 0;',
                   '  for (size_t i = 0; i < n; ++i)',
                   '    s += (double)p[i] * 0x1p-20;',
                   '  return s;',
                   '}', '']
        decls += ['void ext_update_%s(%s *p, size_t n);' % (a.name, a.ctype),
                  'double ext_sum_%s(const %s *p, size_t n);' % (a.name, a.ctype), '']
        stmts += ['  ext_update_%s((%s *)%s, %d);' % (a.name, a.ctype, a.name, n),
                  '  printf("ext %s %%a\\n", ext_sum_%s((const %s *)%s, %d));' % (a.name, a.name, a.ctype, a.name, n)]
        used = True
    if rx.random() < 0.35:
        a = rx.choice(plain)
        n = a.nbytes // a.size
        stride = rx.choice([1, 2, 5])
        upd = 'v->p[i] = (%s)(v->p[i] * 0.75 - 0.5);' % a.ctype if a.is_float else \
            'v->p[i] = (%s)((%s)v->p[i] + (%s)i);' % (a.ctype, a.utype, a.utype)
        decls += ['struct view_%s { %s *p; size_t n, stride; };' % (a.name, a.ctype),
                  'static struct view_%s view_%s;' % (a.name, a.name),
                  '__attribute__((noinline)) static void walk_view_%s(struct view_%s *v) {' % (a.name, a.name),
                  '  for (size_t i = 0; i < v->n; i += v->stride)',
                  '    ' + upd,
                  '}',
                  'double ext_view_sum_%s(const struct view_%s *v);' % (a.name, a.name), '']
        helper += ['struct view_%s { %s *p; size_t n, stride; };' % (a.name, a.ctype),
                   'double ext_view_sum_%s(const struct view_%s *v) {' % (a.name, a.name),
                   '  double s = 0;',
                   '  for (size_t i = 0; i < v->n; i += v->stride)',
                   '    s += (double)v->p[i] * 0x1p-20;',
                   '  return s;',
                   '}', '']
        stmts += ['  view_%s.p = (%s *)%s;' % (a.name, a.ctype, a.name),
                  '  view_%s.n = %d;' % (a.name, n),
                  '  view_%s.stride = %d;' % (a.name, stride),
                  '  walk_view_%s(&view_%s);' % (a.name, a.name),
                  '  printf("view %s %%a\\n", ext_view_sum_%s(&view_%s));' % (a.name, a.name, a.name)]
        used = True
    if not used:
        return decls, stmts, None
    if any(a.kind == 'rec' for a in self.arrays):
        pass  # records are never handed out (no struct rec in the helper)
    return decls, stmts, '\n'.join(helper) + '\n'


Generator.extras = _extras


def generate(seed, accumulators=False, layouts=False):
    """The program text for seed."""
    return Generator(seed, accumulators, layouts).generate()


def generate_with_info(seed, accumulators=False, layouts=False):
    """The program text for seed and facts about it (bytes of disk-resident
    data, estimated statement instances, the helper file's text or None)."""
    g = Generator(seed, accumulators, layouts)
    text = g.generate()
    return text, {'disk_bytes': sum(a.nbytes for a in g.arrays if a.disk), 'cost': g.cost,
                  'arrays': {a.name: a.kind for a in g.arrays}, 'helper': g.helper,
                  # Disk-resident arrays of scalars by rank (--draw-layouts).
                  'ranks': {a.name: len(a.dims) for a in g.arrays if a.disk and not a.fields},
                  # Settings of the lowered runs this program asks for (IOPOLY_* -> value).
                  'run_env': g.features.run_env()}


def check_output(out, kinds):
    """Checks what a program printed against the generator's promises: every
    array is there with its size, and every floating-point element and scalar
    is finite and within BOUND (scalars: finite). Returns '' or a complaint."""
    import math
    import struct
    fmt = {'double': 'd', 'float': 'f', 'rec': 'f'}
    at, seen = 0, set()
    while at < len(out):
        nl = out.find(b'\n', at)
        if nl < 0:
            return 'output ends without a newline'
        head = out[at:nl].split()
        name = head[0].decode() if head else ''
        if name in kinds and len(head) == 2:
            size = int(head[1])
            data = out[nl + 1:nl + 1 + size]
            if len(data) != size or out[nl + 1 + size:nl + 2 + size] != b'\n':
                return 'array %s: truncated' % name
            if kinds[name] in fmt:
                code = fmt[kinds[name]]
                for x in struct.iter_unpack('<' + code, data):
                    if not (abs(x[0]) <= BOUND * 1.01):
                        return 'array %s holds %r, outside [-%g, %g]' % (name, x[0], BOUND, BOUND)
            seen.add(name)
            at = nl + 2 + size
        else:
            if len(head) == 2 and head[0].startswith(b's'):
                try:
                    v = float.fromhex(head[1].decode()) if b'0x' in head[1] else float(int(head[1]))
                except ValueError:
                    return 'scalar line %r' % out[at:nl]
                if not math.isfinite(v):
                    return 'scalar %s is %r' % (name, v)
            at = nl + 1
    missing = set(kinds) - seen
    return 'arrays %s not printed' % ', '.join(sorted(missing)) if missing else ''


def self_test(count):
    import re
    for seed in range(count):
        a, b = generate(seed), generate(seed)
        if a != b:
            print('seed %d: not deterministic' % seed)
            return 1
        names = set()
        for m in re.finditer(r'#pragma iopoly disk_resident\(([\w, ]+)\)', a):
            names.update(n.strip() for n in m.group(1).split(','))
        if len(names) < 2:
            print('seed %d: fewer than two disk-resident arrays' % seed)
            return 1
    print('gen_program.py: %d programs, deterministic' % count)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('seed', nargs='?', type=int, default=0)
    ap.add_argument('-o', '--output')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--helper', help='write the helper file here (an empty file when the program has none)')
    ap.add_argument('--accumulators', action='store_true',
                    help='also loop-local accumulators (reset around the innermost loop, stored after it)')
    ap.add_argument('--layouts', action='store_true',
                    help='arrays the file layout pass can rewrite: no byte views, memset/memcpy, helper file, '
                         'VLA parameters or globals passed as parameters')
    args = ap.parse_args()
    if args.self_test:
        return self_test(200)
    text, info = generate_with_info(args.seed, args.accumulators, args.layouts)
    if args.helper:
        with open(args.helper, 'w') as f:
            f.write(info['helper'] or '')
    if args.output:
        with open(args.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
