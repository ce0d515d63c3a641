//===- Wrappers.h - Tables that generate the ncmpi_ wrappers ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PnetCDF has no profiling layer: libiopoly_knowac.so defines the ncmpi_
// functions itself and finds the real ones with dlsym(RTLD_NEXT) (the
// library must come before libpnetcdf: LD_PRELOAD, or linked first, as
// iopoly-mpicc -iopoly-knowac does). The get/put families are hundreds of
// functions that differ in the access kind (var, var1, vara, vars, varm),
// the memory type (12 typed APIs and the flexible one) and collective or
// not; the macros below spell each signature once. The compiler checks
// every definition against pnetcdf.h (a C function with another signature
// is an error).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_WRAPPERS_H
#define IOPOLY_KNOWAC_WRAPPERS_H

#include "Session.h"

#include <dlfcn.h>

namespace iopoly {
namespace knowac {
/// Stops the program: a wrapper without the real function cannot go on.
[[noreturn]] void missingReal(const char *Name);

template <class Fn> Fn realSymbol(const char *Name) {
  void *P = ::dlsym(RTLD_NEXT, Name);
  if (!P)
    missingReal(Name);
  return reinterpret_cast<Fn>(P);
}
} // namespace knowac
} // namespace iopoly

/// The real PnetCDF function \p fn (looked up once; then a load).
#define KNOWAC_REAL(fn)                                                                                              \
  ([]() {                                                                                                            \
    static const auto Ptr = ::iopoly::knowac::realSymbol<decltype(&fn)>(#fn);                                        \
    return Ptr;                                                                                                      \
  }())

/// The opening of every wrapper: straight through when KNOWAC is off or the
/// call comes from inside PnetCDF (one load and a compare), else count depth.
#define KNOWAC_ENTER(RealCall)                                                                                       \
  if (::iopoly::knowac::Session::bypass())                                                                           \
    return RealCall;                                                                                                 \
  ::iopoly::knowac::DepthGuard DepthGuard_

// The 12 typed APIs: (name suffix, C type, NC_ type of that memory).
#define KNOWAC_NC_LONG (sizeof(long) == 8 ? NC_INT64 : NC_INT)
#define KNOWAC_FOR_TYPES(M, K)                                                                                       \
  M(K, text, char, NC_CHAR)                                                                                          \
  M(K, schar, signed char, NC_BYTE)                                                                                  \
  M(K, uchar, unsigned char, NC_UBYTE)                                                                               \
  M(K, short, short, NC_SHORT)                                                                                       \
  M(K, ushort, unsigned short, NC_USHORT)                                                                            \
  M(K, int, int, NC_INT)                                                                                             \
  M(K, uint, unsigned int, NC_UINT)                                                                                  \
  M(K, long, long, KNOWAC_NC_LONG)                                                                                   \
  M(K, float, float, NC_FLOAT)                                                                                       \
  M(K, double, double, NC_DOUBLE)                                                                                    \
  M(K, longlong, long long, NC_INT64)                                                                                \
  M(K, ulonglong, unsigned long long, NC_UINT64)

// Per access kind: its parameters, the same as arguments, and the Request.
#define KNOWAC_P_var
#define KNOWAC_P_var1 const MPI_Offset *start,
#define KNOWAC_P_vara const MPI_Offset *start, const MPI_Offset *count,
#define KNOWAC_P_vars const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,
#define KNOWAC_P_varm                                                                                                \
  const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, const MPI_Offset *imap,
#define KNOWAC_A_var
#define KNOWAC_A_var1 start,
#define KNOWAC_A_vara start, count,
#define KNOWAC_A_vars start, count, stride,
#define KNOWAC_A_varm start, count, stride, imap,
#define KNOWAC_R_var                                                                                                 \
  ::iopoly::knowac::Request { ::iopoly::knowac::Kind::Var, nullptr, nullptr, nullptr, nullptr }
#define KNOWAC_R_var1                                                                                                \
  ::iopoly::knowac::Request { ::iopoly::knowac::Kind::Var1, start, nullptr, nullptr, nullptr }
#define KNOWAC_R_vara                                                                                                \
  ::iopoly::knowac::Request { ::iopoly::knowac::Kind::Vara, start, count, nullptr, nullptr }
#define KNOWAC_R_vars                                                                                                \
  ::iopoly::knowac::Request { ::iopoly::knowac::Kind::Vars, start, count, stride, nullptr }
#define KNOWAC_R_varm                                                                                                \
  ::iopoly::knowac::Request { ::iopoly::knowac::Kind::Varm, start, count, stride, imap }

#define KNOWAC_FOR_KINDS(M) M(var) M(var1) M(vara) M(vars) M(varm)

#endif
