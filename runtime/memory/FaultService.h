//===- FaultService.h - Page faults of code built without the plugin -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Code that was not compiled with the plugin (another translation unit, a
// library such as BLAS, libc's qsort or memcmp) may be handed disk-resident
// memory. It reaches it through page faults, served through the same stripe
// buffer as compiled code (issue 9, section 1):
//
//  - a stripe that is not resident has no mapping at its arena address. A
//    fault there brings the stripe into the buffer; the buffer maps the
//    frame at the stripe's address (FrameMemory views), read-only while it
//    is clean, and the access is retried;
//  - a write to a clean stripe faults on the read-only view: the stripe is
//    attached for writing, which marks it dirty and makes the view
//    writable, so the buffer writes it back like any other dirty stripe;
//  - eviction unmaps the view, so the next access faults again.
//
// Two front ends deliver the faults to one service thread, which does all
// the work in an ordinary thread (locks, I/O, messages):
//  - userfaultfd (UFFD_USER_MODE_ONLY, allowed for unprivileged processes):
//    an array's non-resident stripes are registered anonymous memory; the
//    kernel queues a missing-page fault and the faulting thread sleeps until
//    the service has mapped the view and woken it. An array is switched to
//    it after its first fault, which comes through the signal so that the
//    code at fault can be named;
//  - SIGSEGV (always present, and the only one when the kernel refuses
//    userfaultfd): the handler sends the address to the service thread
//    through a pipe and waits on a futex until it is served. The handler
//    itself only makes system calls.
// Either way, the first fault on each array is reported once, naming the
// function and library at fault. A fault the runtime cannot serve
// (out of bounds, freed memory, stripes that are not whole pages, a full
// buffer) stops the program with the array, the offset and the reason.
// IOPOLY_FAULTS chooses: auto, userfaultfd, signal, or off (the fault is a
// fatal error naming the array, as before this service existed).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_FAULTSERVICE_H
#define IOPOLY_RUNTIME_FAULTSERVICE_H

#include <cstddef>

struct iopoly_array;

namespace iopoly {

/// Installs the SIGSEGV handler (with the arena, once).
void installFaultHandler();
/// Starts the service thread (once, at the first disk-resident allocation).
void startFaultService();
/// The view of stripe bytes [At, At + Bytes) of \p A has just been replaced
/// by an inaccessible mapping: registers it again with userfaultfd if \p A
/// is served that way. Buffer lock held.
void faultServiceViewDropped(const iopoly_array &A, char *At, size_t Bytes);
/// "userfaultfd", "signal" or "off": how faults are served in this process.
const char *faultServiceMode();

} // namespace iopoly

#endif
