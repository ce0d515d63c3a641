//===- iopoly-trace.cpp - Reader of IOPOLY_TRACE files ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly-trace [--csv | --summary] FILE
//   --csv      one line per event: time_s,array,stripe,disk,event,hit,mode
//   --summary  per array and per disk: accesses, misses, prefetches,
//              write-backs (the default)
//
//===----------------------------------------------------------------------===//
#include "core/Trace.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace iopoly;

static const char *eventName(uint8_t Kind) {
  switch (Kind & 0xf0) {
  case TraceAttach: return "attach";
  case TracePrefetch: return "prefetch";
  case TraceWriteback: return "writeback";
  case TraceEvict: return "evict";
  case TraceSync: return "sync";
  default: return "unknown";
  }
}

int main(int argc, char **argv) {
  bool Csv = false;
  const char *Path = nullptr;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--csv"))
      Csv = true;
    else if (!std::strcmp(argv[I], "--summary"))
      Csv = false;
    else if (!std::strcmp(argv[I], "-h") || !std::strcmp(argv[I], "--help")) {
      std::printf("usage: iopoly-trace [--csv | --summary] FILE\n");
      return 0;
    } else if (!Path)
      Path = argv[I];
    else {
      std::fprintf(stderr, "iopoly-trace: unexpected argument '%s'\n", argv[I]);
      return 2;
    }
  }
  if (!Path) {
    std::fprintf(stderr, "usage: iopoly-trace [--csv | --summary] FILE\n");
    return 2;
  }
  TraceContents T;
  if (Status S = readTrace(Path, T)) {
    std::fprintf(stderr, "iopoly-trace: %s\n", S.message().c_str());
    return 1;
  }
  auto NameOf = [&](uint32_t Id) {
    return Id < T.ArrayNames.size() && !T.ArrayNames[Id].empty() ? T.ArrayNames[Id] : "#" + std::to_string(Id);
  };
  if (Csv) {
    std::printf("time_s,array,stripe,disk,event,hit,mode\n");
    for (const TraceEvent &E : T.Events)
      std::printf("%.9f,%s,%llu,%u,%s,%d,%s\n", E.TimeNs * 1e-9, NameOf(E.Array).c_str(),
                  static_cast<unsigned long long>(E.Stripe), E.Disk, eventName(E.Kind), (E.Kind & TraceHit) ? 1 : 0,
                  (E.Kind & TraceWrite) ? "write" : "read");
    return 0;
  }
  struct Row {
    unsigned long long Attaches = 0, Misses = 0, Prefetches = 0, Writebacks = 0, Evictions = 0;
  };
  std::map<std::string, Row> ByArray;
  std::map<unsigned, Row> ByDisk;
  for (const TraceEvent &E : T.Events) {
    for (Row *R : {&ByArray[NameOf(E.Array)], &ByDisk[E.Disk]}) {
      switch (E.Kind & 0xf0) {
      case TraceAttach:
        R->Attaches++;
        R->Misses += !(E.Kind & TraceHit);
        break;
      case TracePrefetch: R->Prefetches++; break;
      case TraceWriteback: R->Writebacks++; break;
      case TraceEvict: R->Evictions++; break;
      }
    }
  }
  std::printf("%zu events\n%-20s %12s %10s %10s %10s %10s\n", T.Events.size(), "array", "attaches", "misses",
              "prefetches", "writebacks", "evictions");
  for (const auto &KV : ByArray)
    std::printf("%-20s %12llu %10llu %10llu %10llu %10llu\n", KV.first.c_str(), KV.second.Attaches,
                KV.second.Misses, KV.second.Prefetches, KV.second.Writebacks, KV.second.Evictions);
  std::printf("%-20s %12s %10s %10s %10s %10s\n", "disk", "attaches", "misses", "prefetches", "writebacks",
              "evictions");
  for (const auto &KV : ByDisk)
    std::printf("%-20u %12llu %10llu %10llu %10llu %10llu\n", KV.first, KV.second.Attaches, KV.second.Misses,
                KV.second.Prefetches, KV.second.Writebacks, KV.second.Evictions);
  return 0;
}
