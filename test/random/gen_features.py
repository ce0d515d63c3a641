# ===- test/random/gen_features.py - More C for the random programs -------===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Program features added on top of gen_program.py's loop nests.

Each feature draws from a random stream of its own (Features.rng, seeded
from the program's seed), so adding one here does not change what the base
generator draws: the programs of other seeds, and the parts of a program a
feature does not touch, stay the same. gen_program.py calls the hooks; each
hook is one concern:

  control_flow(loop)      if statements around loop-body statements (affine
                          or data-dependent conditions) and an early break
  choose_alloc_arrays()   a disk-resident array allocated with iopoly_alloc
                          (a local pointer of main with a pragma), instead of
                          a global
  between_nests()         memcpy / memmove / memset on disk-resident arrays
  function_params(...)    functions that take arrays as pointer or VLA
                          parameters, with function-scope pragmas
  run_env()               another disk count for the run (the compiler keeps
                          assuming 4)

Every feature keeps the generator's promises: accesses in bounds, no
undefined behaviour, floating-point values within [-BOUND, BOUND] (copies
only between arrays of one kind; memset writes zeros).
"""

import random


class Features:
    def __init__(self, gen, seed):
        self.gen = gen
        # Its own stream: gen_program's draws stay as they were.
        self.rng = random.Random(seed * 7919 + 104729)
        self.alloc = []  # arrays allocated with iopoly_alloc

    def chance(self, p):
        return self.rng.random() < p

    # ---- if / break in loop bodies -----------------------------------
    def control_flow(self, loop, outer=()):
        """Wraps some statements of \\p loop's body in conditions and may
        add an early break (recursively; \\p outer are enclosing Vars)."""
        scope = list(outer) + ([loop.range] if getattr(loop, 'range', None) else [])
        body = []
        for item in loop.body:
            if not isinstance(item, str):
                self.control_flow(item, scope)
                body.append(item)
            elif scope and not item.startswith('double ') and self.chance(0.12):
                # (a declaration stays unconditional: later statements use it)
                body.append('if (%s) { %s }' % (self.condition(scope), item))
            else:
                body.append(item)
        innermost = not any(not isinstance(i, str) for i in loop.body)
        if innermost and scope and self.chance(0.06):
            v = self.rng.choice(scope)
            stop = self.rng.randint(v.lo, max(v.lo, v.hi))
            body.append('if (%s == %d) break;' % (v.name, stop))
        loop.body = body

    def condition(self, scope):
        r = self.rng
        v = r.choice(scope)
        kind = r.choice(['mod', 'mod', 'cmp', 'pair', 'data'])
        if kind == 'mod':
            return '%s %% %d != %d' % (v.name, r.randint(2, 4), r.randint(0, 1))
        if kind == 'cmp':
            return '%s %s %d' % (v.name, r.choice(['<', '>=']), r.randint(v.lo, max(v.lo, v.hi)))
        if kind == 'pair' and len(scope) > 1:
            w = r.choice([x for x in scope if x is not v])
            return '%s %s %s' % (v.name, r.choice(['<', '<=', '!=']), w.name)
        arrays = [a for a in self.gen.arrays if a.disk]
        a = r.choice(arrays)
        ref = a.name + self.in_bounds(a, scope) + ('.' + a.fields[0] if a.fields else '')
        if a.is_float:
            return '%s > %s' % (ref, r.choice(['0.0', '-1.0', '0.5']))
        return '(%s & 1) == 0' % ref

    def in_bounds(self, a, scope):
        """Subscripts of \\p a in bounds for the iterators in \\p scope."""
        out = ''
        for dim in a.dims:
            cands = [v for v in scope if v.lo >= 0 and v.hi <= dim - 1]
            if cands and self.chance(0.8):
                out += '[%s]' % self.rng.choice(cands).name
            else:
                out += '[%d]' % self.rng.randrange(dim)
        return out

    # ---- iopoly_alloc arrays -----------------------------------------
    def choose_alloc_arrays(self):
        """Marks at most one disk-resident array (no initializer) to be
        allocated with iopoly_alloc in main."""
        cands = [a for a in self.gen.arrays if a.disk and not a.init]
        if cands and self.chance(0.2 if not self.gen.layouts else 0.6):
            a = self.rng.choice(cands)
            a.alloc = True
            self.alloc.append(a)

    def pointer_type(self, a, name):
        """'double (*X)[7][9]' for a of dims [D0, 7, 9]."""
        return '%s (*%s)%s' % (a.ctype, name, ''.join('[%d]' % d for d in a.dims[1:])) if len(a.dims) > 1 else \
            '%s *%s' % (a.ctype, name)

    def alloc_lines(self):
        """Declarations at the start of main (mode=off: calloc, the
        reference build has no runtime to reach such memory)."""
        out = []
        for a in self.alloc:
            size = 'sizeof(%s%s)' % (a.ctype, ''.join('[%d]' % d for d in a.dims))
            out += ['#ifdef IOPOLY_RANDOM_REFERENCE',
                    '  %s = calloc(1, %s);' % (self.pointer_type(a, a.name), size),
                    '#else',
                    '  %s = iopoly_alloc_flags("%s", %s, IOPOLY_CREATE | IOPOLY_TRUNC);' % (
                        self.pointer_type(a, a.name), a.name, size),
                    '#endif',
                    '#pragma iopoly disk_resident(%s)' % a.name,
                    '  if (!%s) return 1;' % a.name]
        return out

    def free_lines(self):
        """The end of main: allocated arrays are given back (LeakSanitizer
        checks the reference build too)."""
        out = []
        for a in self.alloc:
            out += ['#ifdef IOPOLY_RANDOM_REFERENCE', '  free(%s);' % a.name, '#else',
                    '  iopoly_free(%s);' % a.name, '#endif']
        return out

    @staticmethod
    def fix_sizeof(lines, arrays):
        """'sizeof A' of an allocated A means the array, not the pointer."""
        out = []
        for ln in lines:
            for a in arrays:
                ln = ln.replace('sizeof %s)' % a.name, 'sizeof(%s%s))' % (a.ctype, ''.join('[%d]' % d for d in a.dims)))
                ln = ln.replace('sizeof %s;' % a.name, 'sizeof(%s%s);' % (a.ctype, ''.join('[%d]' % d for d in a.dims)))
            out.append(ln)
        return out

    # ---- parameters and function-scope pragmas -----------------------
    def uses(self, lines, a):
        import re
        pat = re.compile(r'(?<![\w.])%s\b' % a.name)
        return any(pat.search(ln) for ln in lines)

    def function_params(self, lines, force=()):
        """For a function whose body is \\p lines: the arrays it takes as
        parameters (the allocated ones it uses, always; sometimes another
        disk-resident one), as (parameter list, argument list, pragma
        lines). A parameter has the global's name, so the body is unchanged."""
        take = [a for a in self.alloc if self.uses(lines, a)]
        others = [a for a in self.gen.arrays if a.disk and a not in take and self.uses(lines, a)]
        if others and not self.gen.layouts and self.chance(0.5):
            take.append(self.rng.choice(others))
        params, args, pragmas = [], [], []
        for a in take:
            if len(a.dims) > 1 and not self.gen.layouts and self.chance(0.4):
                # A VLA parameter: the extents are parameters too.
                ns = ['%s_n%d' % (a.name, k) for k in range(1, len(a.dims))]
                params += ['int %s' % n for n in ns]
                args += [str(d) for d in a.dims[1:]]
                params.append('%s %s[]%s' % (a.ctype, a.name, ''.join('[%s]' % n for n in ns)))
            else:
                params.append(self.pointer_type(a, a.name))
            args.append(a.name)
        named = [a.name for a in take if a in self.alloc or self.chance(0.7)]
        if named:
            pragmas.append('#pragma iopoly disk_resident(%s)' % ', '.join(named))
        return ', '.join(params) or 'void', ', '.join(args), pragmas, self.fix_sizeof(lines, take)

    # ---- memcpy / memset between nests -------------------------------
    def between_nests(self):
        """A few lines of memcpy/memmove/memset, or none."""
        if self.gen.layouts or not self.chance(0.3):
            return []
        r = self.rng
        disk = [a for a in self.gen.arrays if a.disk]
        a = r.choice(disk)
        size = a.size
        n_elems = a.nbytes // size
        kind = r.choice(['memset', 'memcpy', 'memmove'])
        count = r.randint(1, max(1, min(n_elems, 40000 // size)))
        off = r.randrange(0, n_elems - count + 1) * size
        base = '(char *)%s' % a.name
        if kind == 'memset':
            return ['  memset(%s + %d, 0, %d);' % (base, off, count * size)]
        if kind == 'memmove':
            off2 = r.randrange(0, n_elems - count + 1) * size
            return ['  memmove(%s + %d, %s + %d, %d);' % (base, off2, base, off, count * size)]
        same = [b for b in self.gen.arrays if b.kind == a.kind and b is not a]
        if not same:
            return ['  memset(%s + %d, 0, %d);' % (base, off, count * size)]
        b = r.choice(same)
        n_b = b.nbytes // size
        count = min(count, n_b)
        off = min(off, (n_elems - count) * size)
        off_b = r.randrange(0, n_b - count + 1) * size
        return ['  memcpy((char *)%s + %d, (char *)%s + %d, %d);' % (b.name, off_b, a.name, off, count * size)]

    # ---- run configuration -------------------------------------------
    def run_env(self):
        """Environment of the lowered runs that differs from the defaults
        (the compiler assumes 4 disks; results must not depend on it)."""
        env = {}
        if self.chance(0.25):
            env['IOPOLY_DISKS'] = str(self.rng.choice([1, 2, 3, 5, 8]))
        return env
