/*===- iopoly/knowac_app.h - Compile-time application name for KNOWAC -----===*\
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * KNOWAC (libiopoly_knowac.so, paper 5) keeps one accumulation graph per
 * application. Compiling a program with -DIOPOLY_KNOWAC_APP=name names it:
 * `iopoly-mpicc -iopoly-knowac -DIOPOLY_KNOWAC_APP=pgea ...` includes this
 * header into every C/C++ file it compiles; without the wrapper, include it
 * in one file compiled with the macro. The name ends up in the symbol
 * iopoly_knowac_app_name, which the library reads at the first ncmpi_open.
 * IOPOLY_KNOWAC_APP in the environment overrides it at run time. Without a
 * macro this header defines nothing.
 *
\*===----------------------------------------------------------------------===*/
#ifndef IOPOLY_KNOWAC_APP_H
#define IOPOLY_KNOWAC_APP_H

#ifdef IOPOLY_KNOWAC_APP
#define IOPOLY_KNOWAC_STR2_(x) #x
#define IOPOLY_KNOWAC_STR_(x) IOPOLY_KNOWAC_STR2_(x)
#ifdef __cplusplus
extern "C"
#endif
    /* Weak: every translation unit may define it; the linker keeps one. */
    __attribute__((weak, used)) const char iopoly_knowac_app_name[] = IOPOLY_KNOWAC_STR_(IOPOLY_KNOWAC_APP);
#endif

#endif
