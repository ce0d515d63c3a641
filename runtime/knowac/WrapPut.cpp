//===- WrapPut.cpp - ncmpi_put_*, ncmpi_iput_*, ncmpi_bput_* -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every blocking put (independent and _all) and nonblocking iput and bput
// of the var, var1, vara, vars and varm kinds, typed and flexible:
// recorded, and each drops the cached copies of what it writes before it
// writes (a nonblocking one keeps the file's read-ahead off until its wait).
//
//===----------------------------------------------------------------------===//
#include "Wrappers.h"

using iopoly::knowac::Session;

#define KNOWAC_PUT_TYPED(K, TN, CT, NCT)                                                                             \
  extern "C" int ncmpi_put_##K##_##TN(int ncid, int varid, KNOWAC_P_##K const CT *op) {                              \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_##K##_##TN)(ncid, varid, KNOWAC_A_##K op); };                     \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().put(ncid, varid, KNOWAC_R_##K, Real);                                                 \
  }                                                                                                                  \
  extern "C" int ncmpi_put_##K##_##TN##_all(int ncid, int varid, KNOWAC_P_##K const CT *op) {                        \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_##K##_##TN##_all)(ncid, varid, KNOWAC_A_##K op); };               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().put(ncid, varid, KNOWAC_R_##K, Real);                                                 \
  }                                                                                                                  \
  extern "C" int ncmpi_iput_##K##_##TN(int ncid, int varid, KNOWAC_P_##K const CT *op, int *req) {                   \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_iput_##K##_##TN)(ncid, varid, KNOWAC_A_##K op, req); };               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iput(ncid, varid, KNOWAC_R_##K, req, Real);                                           \
  }                                                                                                                  \
  extern "C" int ncmpi_bput_##K##_##TN(int ncid, int varid, KNOWAC_P_##K const CT *op, int *req) {                   \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_bput_##K##_##TN)(ncid, varid, KNOWAC_A_##K op, req); };               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iput(ncid, varid, KNOWAC_R_##K, req, Real);                                           \
  }

#define KNOWAC_PUT_FLEX(K)                                                                                           \
  extern "C" int ncmpi_put_##K(int ncid, int varid, KNOWAC_P_##K const void *buf, MPI_Offset bufcount,               \
                               MPI_Datatype buftype) {                                                               \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_##K)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype); };        \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().put(ncid, varid, KNOWAC_R_##K, Real);                                                 \
  }                                                                                                                  \
  extern "C" int ncmpi_put_##K##_all(int ncid, int varid, KNOWAC_P_##K const void *buf, MPI_Offset bufcount,         \
                                     MPI_Datatype buftype) {                                                         \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_##K##_all)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype); };  \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().put(ncid, varid, KNOWAC_R_##K, Real);                                                 \
  }                                                                                                                  \
  extern "C" int ncmpi_iput_##K(int ncid, int varid, KNOWAC_P_##K const void *buf, MPI_Offset bufcount,              \
                                MPI_Datatype buftype, int *req) {                                                    \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_iput_##K)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype, req); };  \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iput(ncid, varid, KNOWAC_R_##K, req, Real);                                           \
  }                                                                                                                  \
  extern "C" int ncmpi_bput_##K(int ncid, int varid, KNOWAC_P_##K const void *buf, MPI_Offset bufcount,              \
                                MPI_Datatype buftype, int *req) {                                                    \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_bput_##K)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype, req); };  \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iput(ncid, varid, KNOWAC_R_##K, req, Real);                                           \
  }

#define KNOWAC_PUT_KIND(K) KNOWAC_FOR_TYPES(KNOWAC_PUT_TYPED, K) KNOWAC_PUT_FLEX(K)
KNOWAC_FOR_KINDS(KNOWAC_PUT_KIND)
