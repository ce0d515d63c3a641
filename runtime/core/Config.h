//===- Config.h - IOPOLY_* environment configuration ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every setting of the runtime comes from one table of IOPOLY_* variables
// (Config.cpp), read once. A malformed value is an error naming the variable
// and the value, never a guess.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_CONFIG_H
#define IOPOLY_RUNTIME_CONFIG_H

#include "core/Error.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace iopoly {

/// Parameters of the deterministic disk model (DiskModel.h).
struct DiskModelParams {
  std::string Name = "none"; ///< none, hdd, ssd or custom
  double LatencySec = 0;     ///< positioning time of a random request
  double SeqLatencySec = 0;  ///< positioning time when a request continues
                             ///< the previous one on the same disk
  double BytesPerSec = 0;    ///< transfer rate; 0 means no model
  bool enabled() const { return BytesPerSec > 0; }
};

enum class DirectIO { Auto, On, Off };

/// How page faults of code built without the plugin are served
/// (memory/FaultService.h).
enum class FaultMode { Auto, Userfaultfd, Signal, Off };

struct Config {
  std::string Dir;                   ///< IOPOLY_DIR as given (may hold %r/%h/%p)
  std::vector<std::string> DiskDirs; ///< resolved from IOPOLY_DISKS
  std::string DisksSpec;             ///< IOPOLY_DISKS as given
  size_t StripeSize = 64 << 10;      ///< IOPOLY_STRIPE
  size_t BufferBytes = 64 << 20;     ///< IOPOLY_BUFFER
  std::string Backend = "posix";     ///< IOPOLY_BACKEND
  DirectIO Direct = DirectIO::Auto;  ///< IOPOLY_DIRECT
  DiskModelParams Model;             ///< IOPOLY_DISK_MODEL
  bool ModelWait = false;            ///< IOPOLY_MODEL_WAIT
  std::string StatsPath;             ///< IOPOLY_STATS
  std::string LayoutProfilePath;     ///< IOPOLY_LAYOUT_PROFILE
  std::string TracePath;             ///< IOPOLY_TRACE
  unsigned IoRetries = 3;            ///< IOPOLY_IO_RETRIES
  bool Prefetch = true;              ///< IOPOLY_PREFETCH
  bool WriteBehind = true;           ///< IOPOLY_WRITE_BEHIND
  bool Verbose = false;              ///< IOPOLY_VERBOSE
  bool Checksum = false;             ///< IOPOLY_CHECKSUM (arrays created from now on)
  std::string MpiioModule;           ///< IOPOLY_MPIIO_MODULE
  std::string MpiioHints;            ///< IOPOLY_MPIIO_HINTS
  FaultMode Faults = FaultMode::Auto; ///< IOPOLY_FAULTS
  int Progress = -1;                 ///< IOPOLY_PROGRESS: 0 off, 1 on, -1 auto (stderr a terminal)
  double ProgressEvery = 10;         ///< seconds between progress reports
  double ThrashFactor = 4;           ///< IOPOLY_THRASH (0: no warning)
  unsigned Threads = 0;              ///< IOPOLY_THREADS (0: the cores available)
  std::string Sched = "g";           ///< IOPOLY_SCHED: g or naive
  std::string Topology;              ///< IOPOLY_TOPOLOGY (runtime/mpi/Topology.h)
  bool CacheServers = true;          ///< IOPOLY_CACHE_SERVERS
  std::string CacheServer;           ///< IOPOLY_CACHESERVER

  size_t numDisks() const { return DiskDirs.size(); }
  size_t bufferFrames() const { return BufferBytes / StripeSize; }
  /// The configuration as a JSON object (for the stats file).
  std::string toJSON() const;
};

/// Looks a variable up; returns false when it is unset.
using EnvLookup = std::function<bool(const char *Name, std::string &Value)>;

/// The process environment.
EnvLookup processEnv();

/// Parses every IOPOLY_* variable through \p Env into \p Out.
Status parseConfig(const EnvLookup &Env, Config &Out);

/// "64K", "1M", "3G", "4096" -> bytes (K/M/G/T are powers of 1024, an
/// optional trailing "B" or "iB" is accepted). Zero and junk are errors.
Status parseSize(const std::string &Text, size_t &Out);
/// "8ms", "80us", "1.5s", "250ns" -> seconds.
Status parseDuration(const std::string &Text, double &Out);
/// "none", "hdd", "ssd" or "latency=8ms,bw=120M[,seq=0.2ms]".
Status parseDiskModel(const std::string &Text, DiskModelParams &Out);

/// The process-wide configuration, parsed on first use. Fails if any
/// IOPOLY_* variable is malformed.
Status globalConfig(const Config *&Out);

/// Replaces %p (pid), %r (MPI rank from the launcher's environment, 0
/// outside MPI), %h (host name) and %% in a file name, so that every rank
/// of a job writes its own statistics and trace.
std::string expandPathTemplate(const std::string &Path);

/// The same for a directory of IOPOLY_DIR or IOPOLY_DISKS, with the rank
/// taken through \p Env; an unknown %-code is an error naming it.
Status expandDirTemplate(const std::string &Path, const EnvLookup &Env, std::string &Out);

/// IOPOLY_VERBOSE, readable before (and without) the full parse.
bool verboseEnabled();

/// Documented list of the variables: name, default, meaning.
struct EnvVarDoc {
  const char *Name;
  const char *Default;
  const char *Meaning;
};
const std::vector<EnvVarDoc> &envVarDocs();

} // namespace iopoly

#endif
