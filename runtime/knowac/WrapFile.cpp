//===- WrapFile.cpp - Files, modes, definitions and waits ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Opening, creating and closing files; define, data and independent modes;
// consistency points (sync, flush); variable definitions and inquiries;
// and the waits of nonblocking requests. Each forwards to PnetCDF and tells
// the Session what happened when it succeeded.
//
//===----------------------------------------------------------------------===//
#include "Wrappers.h"

#include <cstdio>
#include <cstdlib>

using iopoly::knowac::Session;

namespace iopoly {
namespace knowac {
void missingReal(const char *Name) {
  std::fprintf(stderr,
               "iopoly: knowac: fatal: %s is not defined by any library loaded after libiopoly_knowac.so; link "
               "libpnetcdf (libiopoly_knowac.so must come before it)\n",
               Name);
  std::abort();
}
} // namespace knowac
} // namespace iopoly

namespace {
/// At load: create the session (options, atexit) and warn when the
/// program's calls would not reach these wrappers.
__attribute__((constructor)) void knowacLoaded() {
  Session::instance();
  if (Session::bypass())
    return;
  void *First = ::dlsym(RTLD_DEFAULT, "ncmpi_open");
  if (First && First != reinterpret_cast<void *>(&ncmpi_open))
    std::fprintf(stderr, "iopoly: knowac: warning: libpnetcdf is loaded before libiopoly_knowac.so, so the program's "
                         "PnetCDF calls bypass KNOWAC; use LD_PRELOAD or link -liopoly_knowac before -lpnetcdf\n");
}
} // namespace

extern "C" int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_create)(comm, path, cmode, info, ncidp); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().opened(comm, path, cmode, true, *ncidp);
  return Rc;
}

extern "C" int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_open)(comm, path, omode, info, ncidp); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().opened(comm, path, omode, false, *ncidp);
  return Rc;
}

extern "C" int ncmpi_close(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_close)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real(); // also completes pending writes: the file is dropped after
  Session::instance().closing(ncid);
  return Rc;
}

extern "C" int ncmpi_abort(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_abort)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  Session::instance().closing(ncid);
  return Rc;
}

extern "C" int ncmpi_enddef(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_enddef)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().enddef(ncid);
  return Rc;
}

extern "C" int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree,
                             MPI_Offset r_align) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi__enddef)(ncid, h_minfree, v_align, v_minfree, r_align); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().enddef(ncid);
  return Rc;
}

extern "C" int ncmpi_redef(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_redef)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().redef(ncid);
  return Rc;
}

extern "C" int ncmpi_begin_indep_data(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_begin_indep_data)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().indep(ncid, true);
  return Rc;
}

extern "C" int ncmpi_end_indep_data(int ncid) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_end_indep_data)(ncid); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().indep(ncid, false);
  return Rc;
}

#define KNOWAC_SYNC(Name)                                                                                            \
  extern "C" int Name(int ncid) {                                                                                    \
    auto Real = [&] { return KNOWAC_REAL(Name)(ncid); };                                                             \
    KNOWAC_ENTER(Real());                                                                                            \
    int Rc = Real();                                                                                                 \
    Session::instance().sync(ncid);                                                                                  \
    return Rc;                                                                                                       \
  }
KNOWAC_SYNC(ncmpi_sync)
KNOWAC_SYNC(ncmpi_sync_numrecs)
KNOWAC_SYNC(ncmpi_flush)

extern "C" int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp,
                             int *varidp) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp); };
  KNOWAC_ENTER(Real());
  Session::instance().inquiry(); // the layout is read at enddef
  return Real();
}

extern "C" int ncmpi_rename_var(int ncid, int varid, const char *name) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_rename_var)(ncid, varid, name); };
  KNOWAC_ENTER(Real());
  int Rc = Real();
  if (Rc == NC_NOERR)
    Session::instance().renamed(ncid);
  return Rc;
}

extern "C" int ncmpi_inq_varid(int ncid, const char *name, int *varidp) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_inq_varid)(ncid, name, varidp); };
  KNOWAC_ENTER(Real());
  Session::instance().inquiry();
  return Real();
}

extern "C" int ncmpi_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
                             int *nattsp) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_inq_var)(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp); };
  KNOWAC_ENTER(Real());
  Session::instance().inquiry();
  return Real();
}

extern "C" int ncmpi_wait(int ncid, int count, int array_of_requests[], int array_of_statuses[]) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_wait)(ncid, count, array_of_requests, array_of_statuses); };
  KNOWAC_ENTER(Real());
  return Session::instance().wait(ncid, count, array_of_requests, Real);
}

extern "C" int ncmpi_wait_all(int ncid, int count, int array_of_requests[], int array_of_statuses[]) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_wait_all)(ncid, count, array_of_requests, array_of_statuses); };
  KNOWAC_ENTER(Real());
  return Session::instance().wait(ncid, count, array_of_requests, Real);
}

extern "C" int ncmpi_cancel(int ncid, int num, int *reqs, int *statuses) {
  auto Real = [&] { return KNOWAC_REAL(ncmpi_cancel)(ncid, num, reqs, statuses); };
  KNOWAC_ENTER(Real());
  return Session::instance().wait(ncid, num, reqs, Real);
}
