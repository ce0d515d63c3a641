//===- WrapOtherWrites.cpp - Writes KNOWAC forwards without learning ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// put_varn (many regions), mput (many variables), put_vard (an MPI file
// type) and fill_var_rec write data too. KNOWAC does not learn them, but
// each one drops every cached region of the variables it names before it
// writes, and holds the file's read-ahead off until it is written (for the
// nonblocking ones: until their wait), so that nothing is served stale.
// Reads of these kinds are not wrapped at all: they go to PnetCDF directly.
//
//===----------------------------------------------------------------------===//
#include "Wrappers.h"

#include <vector>

using iopoly::knowac::Session;

namespace {
std::vector<int> one(int V) { return {V}; }
std::vector<int> many(int Num, const int *Varids) {
  if (Num <= 0 || !Varids)
    return {};
  return std::vector<int>(Varids, Varids + Num);
}
} // namespace

// put_varn, iput_varn, bput_varn.
#define KNOWAC_VARN_P int ncid, int varid, int num, MPI_Offset *const *starts, MPI_Offset *const *counts
#define KNOWAC_VARN_A ncid, varid, num, starts, counts
#define KNOWAC_VARN_TYPED(K_, TN, CT, NCT)                                                                           \
  extern "C" int ncmpi_put_varn_##TN(KNOWAC_VARN_P, const CT *op) {                                                  \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_varn_##TN)(KNOWAC_VARN_A, op); };                                 \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, one(varid), nullptr, Real);                                            \
  }                                                                                                                  \
  extern "C" int ncmpi_put_varn_##TN##_all(KNOWAC_VARN_P, const CT *op) {                                            \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_put_varn_##TN##_all)(KNOWAC_VARN_A, op); };                           \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, one(varid), nullptr, Real);                                            \
  }                                                                                                                  \
  extern "C" int ncmpi_iput_varn_##TN(KNOWAC_VARN_P, const CT *op, int *req) {                                       \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_iput_varn_##TN)(KNOWAC_VARN_A, op, req); };                           \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, one(varid), req, Real);                                                \
  }                                                                                                                  \
  extern "C" int ncmpi_bput_varn_##TN(KNOWAC_VARN_P, const CT *op, int *req) {                                       \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_bput_varn_##TN)(KNOWAC_VARN_A, op, req); };                           \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, one(varid), req, Real);                                                \
  }
KNOWAC_FOR_TYPES(KNOWAC_VARN_TYPED, _)

extern "C" int ncmpi_put_varn(KNOWAC_VARN_P, const void *op, MPI_Offset bufcount, MPI_Datatype buftype) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_put_varn)(KNOWAC_VARN_A, op, bufcount, buftype); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), nullptr, Real);
}
extern "C" int ncmpi_put_varn_all(KNOWAC_VARN_P, const void *op, MPI_Offset bufcount, MPI_Datatype buftype) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_put_varn_all)(KNOWAC_VARN_A, op, bufcount, buftype); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), nullptr, Real);
}
extern "C" int ncmpi_iput_varn(KNOWAC_VARN_P, const void *op, MPI_Offset bufcount, MPI_Datatype buftype, int *req) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_iput_varn)(KNOWAC_VARN_A, op, bufcount, buftype, req); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), req, Real);
}
extern "C" int ncmpi_bput_varn(KNOWAC_VARN_P, const void *op, MPI_Offset bufcount, MPI_Datatype buftype, int *req) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_bput_varn)(KNOWAC_VARN_A, op, bufcount, buftype, req); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), req, Real);
}

// mput: several variables at once.
#define KNOWAC_MP_var
#define KNOWAC_MP_var1 MPI_Offset *const *starts,
#define KNOWAC_MP_vara MPI_Offset *const *starts, MPI_Offset *const *counts,
#define KNOWAC_MP_vars MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides,
#define KNOWAC_MP_varm                                                                                               \
  MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
#define KNOWAC_MA_var
#define KNOWAC_MA_var1 starts,
#define KNOWAC_MA_vara starts, counts,
#define KNOWAC_MA_vars starts, counts, strides,
#define KNOWAC_MA_varm starts, counts, strides, imaps,
#define KNOWAC_MPUT_TYPED(K, TN, CT, NCT)                                                                            \
  extern "C" int ncmpi_mput_##K##_##TN(int ncid, int num, int *varids, KNOWAC_MP_##K CT *const *buf) {               \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_mput_##K##_##TN)(ncid, num, varids, KNOWAC_MA_##K buf); };            \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, many(num, varids), nullptr, Real);                                     \
  }                                                                                                                  \
  extern "C" int ncmpi_mput_##K##_##TN##_all(int ncid, int num, int *varids, KNOWAC_MP_##K CT *const *buf) {         \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_mput_##K##_##TN##_all)(ncid, num, varids, KNOWAC_MA_##K buf); };      \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, many(num, varids), nullptr, Real);                                     \
  }
#define KNOWAC_MPUT_FLEX(K)                                                                                          \
  extern "C" int ncmpi_mput_##K(int ncid, int num, int *varids, KNOWAC_MP_##K void *const *buf,                      \
                                const MPI_Offset *bufcounts, const MPI_Datatype *datatypes) {                        \
    auto Real = [&] {                                                                                                \
      return KNOWAC_REAL(ncmpi_mput_##K)(ncid, num, varids, KNOWAC_MA_##K buf, bufcounts, datatypes);                \
    };                                                                                                               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, many(num, varids), nullptr, Real);                                     \
  }                                                                                                                  \
  extern "C" int ncmpi_mput_##K##_all(int ncid, int num, int *varids, KNOWAC_MP_##K void *const *buf,                \
                                      const MPI_Offset *bufcounts, const MPI_Datatype *datatypes) {                  \
    auto Real = [&] {                                                                                                \
      return KNOWAC_REAL(ncmpi_mput_##K##_all)(ncid, num, varids, KNOWAC_MA_##K buf, bufcounts, datatypes);          \
    };                                                                                                               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().otherPut(ncid, many(num, varids), nullptr, Real);                                     \
  }
#define KNOWAC_MPUT_KIND(K) KNOWAC_FOR_TYPES(KNOWAC_MPUT_TYPED, K) KNOWAC_MPUT_FLEX(K)
KNOWAC_FOR_KINDS(KNOWAC_MPUT_KIND)

// vard: the region is an MPI file type.
extern "C" int ncmpi_put_vard(int ncid, int varid, MPI_Datatype filetype, const void *ip, MPI_Offset bufcount,
                              MPI_Datatype buftype) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_put_vard)(ncid, varid, filetype, ip, bufcount, buftype); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), nullptr, Real);
}
extern "C" int ncmpi_put_vard_all(int ncid, int varid, MPI_Datatype filetype, const void *ip, MPI_Offset bufcount,
                                  MPI_Datatype buftype) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_put_vard_all)(ncid, varid, filetype, ip, bufcount, buftype); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), nullptr, Real);
}

// Fill values written into a record.
extern "C" int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_fill_var_rec)(ncid, varid, recno); };
  KNOWAC_ENTER(Real());
  return Session::instance().otherPut(ncid, one(varid), nullptr, Real);
}
