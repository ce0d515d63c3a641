//===- Wrappers.cpp - The MPI entry points of the profile layers ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MPI_File_* and friends, exported from libiopoly_profile.so and
// libiopoly_partition.so; each calls the interposer, which calls the
// PMPI_ symbols (so another PMPI tool linked after us still sees the
// explicit-offset calls we make). Nothing else is exported.
//
//===----------------------------------------------------------------------===//
#include "mpi/Entry.h"

#define IOPOLY_EXPORT extern "C" __attribute__((visibility("default")))

using namespace iopoly::prof;
namespace E = iopoly::prof::entry;

IOPOLY_EXPORT int MPI_Init(int *argc, char ***argv) { return E::init(argc, argv, MPI_THREAD_SINGLE, nullptr); }
IOPOLY_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return E::init(argc, argv, required, provided);
}
IOPOLY_EXPORT int MPI_Finalize(void) { return E::finalize(); }
IOPOLY_EXPORT int MPI_Barrier(MPI_Comm comm) { return E::barrier(comm); }

IOPOLY_EXPORT int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
  return E::open(comm, filename, amode, info, fh);
}
IOPOLY_EXPORT int MPI_File_close(MPI_File *fh) { return E::close(fh); }
IOPOLY_EXPORT int MPI_File_delete(const char *filename, MPI_Info info) { return E::remove(filename, info); }
IOPOLY_EXPORT int MPI_File_set_size(MPI_File fh, MPI_Offset size) { return E::setSize(fh, size); }
IOPOLY_EXPORT int MPI_File_preallocate(MPI_File fh, MPI_Offset size) { return E::preallocate(fh, size); }
IOPOLY_EXPORT int MPI_File_get_size(MPI_File fh, MPI_Offset *size) { return E::getSize(fh, size); }
IOPOLY_EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                    const char *datarep, MPI_Info info) {
  return E::setView(fh, disp, etype, filetype, datarep, info);
}
IOPOLY_EXPORT int MPI_File_sync(MPI_File fh) { return E::sync(fh); }
IOPOLY_EXPORT int MPI_File_set_atomicity(MPI_File fh, int flag) { return E::setAtomicity(fh, flag); }
IOPOLY_EXPORT int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) { return E::seek(fh, offset, whence); }
IOPOLY_EXPORT int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  return E::seekShared(fh, offset, whence);
}
IOPOLY_EXPORT int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
  return E::positionShared(fh, offset);
}

IOPOLY_EXPORT int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::Indiv, false, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::Indiv, true, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::At, false, false, false, offset, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::At, true, false, false, offset, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Read, Form::Indiv, false, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Read, Form::Indiv, true, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Read, Form::At, false, true, false, offset, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Read, Form::At, true, true, false, offset, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::Shared, false, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Read, Form::Shared, false, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Read, Form::Ordered, true, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::Indiv, false, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::Indiv, true, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::At, false, false, false, offset, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::At, true, false, false, offset, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Write, Form::Indiv, false, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Write, Form::Indiv, true, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Write, Form::At, false, true, false, offset, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Write, Form::At, true, true, false, offset, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::Shared, false, false, false, 0, buf, count, datatype, status, nullptr);
}
IOPOLY_EXPORT int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request) {
  return E::access(fh, IoOp::Write, Form::Shared, false, true, false, 0, buf, count, datatype, MPI_STATUS_IGNORE, request);
}
IOPOLY_EXPORT int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status) {
  return E::access(fh, IoOp::Write, Form::Ordered, true, false, false, 0, buf, count, datatype, status, nullptr);
}

// Split collectives: the begin does the access, the end completes it.
IOPOLY_EXPORT int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Read, Form::Indiv, true, false, true, 0, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Read, Form::Indiv, status);
}
IOPOLY_EXPORT int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Read, Form::At, true, false, true, offset, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Read, Form::At, status);
}
IOPOLY_EXPORT int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Read, Form::Ordered, true, false, true, 0, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Read, Form::Ordered, status);
}
IOPOLY_EXPORT int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Write, Form::Indiv, true, false, true, 0, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Write, Form::Indiv, status);
}
IOPOLY_EXPORT int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Write, Form::At, true, false, true, offset, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Write, Form::At, status);
}
IOPOLY_EXPORT int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype) {
  return E::access(fh, IoOp::Write, Form::Ordered, true, false, true, 0, buf, count, datatype, MPI_STATUS_IGNORE, nullptr);
}
IOPOLY_EXPORT int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status) {
  (void)buf;
  return E::splitEnd(fh, IoOp::Write, Form::Ordered, status);
}

// Completion of nonblocking file accesses.
IOPOLY_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) { return E::wait(request, status); }
IOPOLY_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  return E::waitall(count, array_of_requests, array_of_statuses);
}
IOPOLY_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status) {
  return E::waitany(count, array_of_requests, index, status);
}
IOPOLY_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]) {
  return E::waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}
IOPOLY_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) { return E::test(request, flag, status); }
IOPOLY_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
  return E::testall(count, array_of_requests, flag, array_of_statuses);
}
IOPOLY_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status) {
  return E::testany(count, array_of_requests, index, flag, status);
}
IOPOLY_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]) {
  return E::testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}
IOPOLY_EXPORT int MPI_Request_free(MPI_Request *request) { return E::requestFree(request); }
