//===- WrapGet.cpp - ncmpi_get_* and ncmpi_iget_* ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every blocking get (independent and _all) and nonblocking iget of the
// var, var1, vara, vars and varm kinds, typed and flexible: recorded, and
// served from the prefetch cache when Session decides it can be.
//
//===----------------------------------------------------------------------===//
#include "Wrappers.h"

#include <vector>

using iopoly::knowac::Mem;
using iopoly::knowac::Session;

#define KNOWAC_GET_TYPED(K, TN, CT, NCT)                                                                             \
  extern "C" int ncmpi_get_##K##_##TN(int ncid, int varid, KNOWAC_P_##K CT *ip) {                                    \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_get_##K##_##TN)(ncid, varid, KNOWAC_A_##K ip); };                     \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().get(ncid, varid, KNOWAC_R_##K, ip, Mem{NCT}, false, Real);                            \
  }                                                                                                                  \
  extern "C" int ncmpi_get_##K##_##TN##_all(int ncid, int varid, KNOWAC_P_##K CT *ip) {                              \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_get_##K##_##TN##_all)(ncid, varid, KNOWAC_A_##K ip); };               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().get(ncid, varid, KNOWAC_R_##K, ip, Mem{NCT}, true, Real);                             \
  }                                                                                                                  \
  extern "C" int ncmpi_iget_##K##_##TN(int ncid, int varid, KNOWAC_P_##K CT *ip, int *req) {                         \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_iget_##K##_##TN)(ncid, varid, KNOWAC_A_##K ip, req); };               \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iget(ncid, varid, KNOWAC_R_##K, ip, Mem{NCT}, req, Real);                             \
  }

#define KNOWAC_GET_FLEX(K)                                                                                           \
  extern "C" int ncmpi_get_##K(int ncid, int varid, KNOWAC_P_##K void *buf, MPI_Offset bufcount,                     \
                               MPI_Datatype buftype) {                                                               \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_get_##K)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype); };        \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().get(ncid, varid, KNOWAC_R_##K, buf, Mem{0, true, bufcount, buftype}, false, Real);    \
  }                                                                                                                  \
  extern "C" int ncmpi_get_##K##_all(int ncid, int varid, KNOWAC_P_##K void *buf, MPI_Offset bufcount,               \
                                     MPI_Datatype buftype) {                                                         \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_get_##K##_all)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype); };  \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().get(ncid, varid, KNOWAC_R_##K, buf, Mem{0, true, bufcount, buftype}, true, Real);     \
  }                                                                                                                  \
  extern "C" int ncmpi_iget_##K(int ncid, int varid, KNOWAC_P_##K void *buf, MPI_Offset bufcount,                    \
                                MPI_Datatype buftype, int *req) {                                                    \
    auto Real = [&] { return KNOWAC_REAL(ncmpi_iget_##K)(ncid, varid, KNOWAC_A_##K buf, bufcount, buftype, req); };  \
    KNOWAC_ENTER(Real());                                                                                            \
    return Session::instance().iget(ncid, varid, KNOWAC_R_##K, buf, Mem{0, true, bufcount, buftype}, req, Real);     \
  }

namespace iopoly {
namespace knowac {
int joinCollectiveGet(int Ncid, int Varid, int NDims) {
  std::vector<MPI_Offset> Zero(size_t(NDims), 0);
  double Dummy = 0;
  return KNOWAC_REAL(ncmpi_get_vara_all)(Ncid, Varid, Zero.data(), Zero.data(), &Dummy, 0, MPI_DOUBLE);
}
} // namespace knowac
} // namespace iopoly

#define KNOWAC_GET_KIND(K) KNOWAC_FOR_TYPES(KNOWAC_GET_TYPED, K) KNOWAC_GET_FLEX(K)
KNOWAC_FOR_KINDS(KNOWAC_GET_KIND)
