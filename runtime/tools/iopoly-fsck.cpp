//===- iopoly-fsck.cpp - Check, repair or remove a disk-resident array -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   iopoly-fsck NAME             says what state array NAME is in
//   iopoly-fsck NAME --repair    recovers it (core/ArrayCheck.h)
//   iopoly-fsck NAME --remove    deletes every file of it
//
// The disk directories come from IOPOLY_DIR and IOPOLY_DISKS (and the stripe
// size from IOPOLY_STRIPE), exactly as for the program that uses the array.
// Exit status: 0 the array is clean (or was repaired or removed), 1 it needs
// recovery or could not be recovered, 2 bad usage or configuration.
//
//===----------------------------------------------------------------------===//
#include "core/ArrayCheck.h"

#include <cstdio>
#include <cstring>

using namespace iopoly;

int main(int Argc, char **Argv) {
  const char *Usage = "usage: iopoly-fsck NAME [--repair | --remove]\n"
                      "  (the disk directories come from IOPOLY_DIR / IOPOLY_DISKS, as for programs)\n";
  if (Argc < 2 || Argc > 3 || !std::strcmp(Argv[1], "-h") || !std::strcmp(Argv[1], "--help")) {
    std::fputs(Usage, Argc == 2 ? stdout : stderr);
    return Argc == 2 ? 0 : 2;
  }
  std::string Name = Argv[1], Action = Argc == 3 ? Argv[2] : "";
  if (!Action.empty() && Action != "--repair" && Action != "--remove") {
    std::fprintf(stderr, "iopoly-fsck: unknown option '%s'\n%s", Action.c_str(), Usage);
    return 2;
  }
  Config C;
  if (Status S = parseConfig(processEnv(), C)) {
    std::fprintf(stderr, "iopoly-fsck: %s\n", S.message().c_str());
    return 2;
  }
  std::string Report;
  Status S;
  if (Action == "--repair")
    S = repairArray(C, Name, Report);
  else if (Action == "--remove")
    S = removeArray(C, Name, Report);
  else {
    ArrayInspection I;
    S = inspectArray(C, Name, I);
    if (S.ok()) {
      std::printf("%s\n", I.Summary.c_str());
      return I.State == ArrayState::Clean ? 0 : 1;
    }
  }
  if (S) {
    std::printf("iopoly-fsck: %s\n", S.message().c_str());
    return S.is(ErrorCode::InvalidArgument) || S.is(ErrorCode::Failed) ? 2 : 1;
  }
  std::printf("%s\n", Report.c_str());
  return 0;
}
