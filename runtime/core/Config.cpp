//===- Config.cpp - IOPOLY_* environment configuration ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "DiskModel.h"
#include "core/Config.h"
#include "core/Json.h"

#include "Sizes.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {

namespace {

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t");
  size_t E = S.find_last_not_of(" \t");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Parts;
  size_t Start = 0;
  while (true) {
    size_t P = S.find(Sep, Start);
    Parts.push_back(trim(S.substr(Start, P - Start)));
    if (P == std::string::npos)
      return Parts;
    Start = P + 1;
  }
}

Status parseBool(const std::string &Text, bool &Out) {
  if (Text == "1" || Text == "on" || Text == "yes" || Text == "true")
    Out = true;
  else if (Text == "0" || Text == "off" || Text == "no" || Text == "false")
    Out = false;
  else
    return Status::error(format("'%s' is not a boolean (use 0/1, on/off)",
                                Text.c_str()));
  return {};
}

Status parseUnsigned(const std::string &Text, unsigned long long &Out) {
  if (Text.empty() || Text.find_first_not_of("0123456789") != std::string::npos)
    return Status::error(format("'%s' is not a non-negative integer",
                                Text.c_str()));
  errno = 0;
  Out = std::strtoull(Text.c_str(), nullptr, 10);
  if (errno == ERANGE)
    return Status::error(format("'%s' is too large", Text.c_str()));
  return {};
}

/// Resolves IOPOLY_DISKS: a count N gives IOPOLY_DIR/disk0..disk{N-1}; a
/// comma list gives those directories. %r, %h and %p in IOPOLY_DIR and in
/// each listed directory become the MPI rank, the host name and the pid, so
/// that ranks (or hosts) can have node-local directories of their own.
Status resolveDisks(Config &C, const std::string &Base, const EnvLookup &Env) {
  C.DiskDirs.clear();
  const std::string Spec = trim(C.DisksSpec);
  if (!Spec.empty() && Spec.find_first_not_of("0123456789") == std::string::npos) {
    unsigned long long N = 0;
    if (Status S = parseUnsigned(Spec, N))
      return S;
    if (N == 0 || N > 4096)
      return Status::error(format("disk count %llu is out of range 1..4096", N));
    for (unsigned long long I = 0; I < N; ++I)
      C.DiskDirs.push_back(Base + "/disk" + std::to_string(I));
    return {};
  }
  for (const std::string &D : split(Spec, ',')) {
    if (D.empty())
      return Status::error(format("empty directory in list '%s'", Spec.c_str()));
    std::string Dir;
    if (Status S = expandDirTemplate(D, Env, Dir))
      return Status::error(format("directory '%s': %s", D.c_str(), S.message().c_str()));
    C.DiskDirs.push_back(Dir);
  }
  return {};
}

/// Checks the form of IOPOLY_DISKS before it is resolved: one count, or a
/// comma list of directories. A single bare word ("abc") may be a typo of
/// either, so it needs a '/' to be taken as a directory; numbers in a list
/// ("1,2") and signed or malformed counts ("-1", "8x") are errors.
Status checkDisksSpec(const std::string &Raw) {
  const std::string Spec = trim(Raw);
  auto IsNumberLike = [](const std::string &T) {
    return !T.empty() && (std::isdigit(static_cast<unsigned char>(T[0])) || T[0] == '-' || T[0] == '+');
  };
  if (Spec.find(',') == std::string::npos) {
    if (Spec.empty() || Spec.find_first_not_of("0123456789") == std::string::npos)
      return {}; // a count (its range is checked when it is resolved)
    if (IsNumberLike(Spec))
      return Status::error(format("'%s' is not a disk count (a number in 1..4096)", Spec.c_str()));
    if (Spec.find('/') == std::string::npos)
      return Status::error(format("'%s' is neither a disk count (1..4096) nor a list of directories; write ./%s "
                                  "for one disk directory named %s",
                                  Spec.c_str(), Spec.c_str(), Spec.c_str()));
    return {};
  }
  for (const std::string &D : split(Spec, ','))
    if (!D.empty() && IsNumberLike(D) && D.find('/') == std::string::npos)
      return Status::error(format("entry '%s' is a number: IOPOLY_DISKS is one disk count (e.g. 8) or a comma list "
                                  "of directories",
                                  D.c_str()));
  return {};
}

/// A directory path with "//", "/./", a leading "./" and a trailing "/"
/// removed, so that two spellings of one directory compare equal.
std::string normalizeDir(const std::string &Path) {
  std::vector<std::string> Parts;
  for (const std::string &P : split(Path, '/'))
    if (!P.empty() && P != ".")
      Parts.push_back(P);
  std::string Out = !Path.empty() && Path[0] == '/' ? "/" : "";
  for (size_t I = 0; I < Parts.size(); ++I)
    Out += (I ? "/" : "") + Parts[I];
  return Out.empty() ? "." : Out;
}

/// Two disks in one directory would share their files: an error naming
/// the directory and both positions (1-based). Existing directories are
/// also compared by device and inode (symbolic links, "..").
Status checkDistinctDirs(const std::vector<std::string> &Dirs) {
  std::map<std::string, size_t> ByName;
  std::map<std::pair<dev_t, ino_t>, size_t> ById;
  for (size_t J = 0; J < Dirs.size(); ++J) {
    auto Named = ByName.emplace(normalizeDir(Dirs[J]), J);
    size_t I = Named.first->second;
    struct stat St;
    if (Named.second && ::stat(Dirs[J].c_str(), &St) == 0) {
      auto Same = ById.emplace(std::make_pair(St.st_dev, St.st_ino), J);
      I = Same.first->second;
    }
    if (I != J)
      return Status::error(format("directory '%s' is listed twice (entries %zu and %zu)", Dirs[J].c_str(), I + 1,
                                  J + 1));
  }
  return {};
}

using Setter = Status (*)(Config &, const std::string &);

struct VarSpec {
  EnvVarDoc Doc;
  Setter Set;
};

// The one table of IOPOLY_* variables. Order matters only for IOPOLY_DISKS,
// which is resolved after IOPOLY_DIR.
const std::vector<VarSpec> &varTable() {
  static const std::vector<VarSpec> Table = {
      {{"IOPOLY_DIR", "./iopoly-data",
        "base directory; disk sub-directories go here when IOPOLY_DISKS is a count; %r, %h, %p become the MPI "
        "rank, the host name, the pid"},
       [](Config &C, const std::string &V) -> Status {
         if (V.empty())
           return Status::error("empty directory");
         C.Dir = V;
         return {};
       }},
      {{"IOPOLY_DISKS", "8",
        "number of disks (sub-directories disk0.. of IOPOLY_DIR) or a comma list of directories (%r, %h, %p as for "
        "IOPOLY_DIR)"},
       [](Config &C, const std::string &V) -> Status {
         C.DisksSpec = V;
         return {};
       }},
      {{"IOPOLY_STRIPE", "64K", "stripe size in bytes (K/M/G suffixes), a multiple of 64; one block = one stripe"},
       [](Config &C, const std::string &V) -> Status {
         if (Status S = parseSize(V, C.StripeSize))
           return S;
         std::string Why;
         if (!checkStripeSize(C.StripeSize, &Why))
           return Status::error(ErrorCode::Config, Why);
         return {};
       }},
      {{"IOPOLY_BUFFER", "64M", "stripe buffer capacity in bytes (K/M/G), shared by all arrays"},
       [](Config &C, const std::string &V) { return parseSize(V, C.BufferBytes); }},
      {{"IOPOLY_BACKEND", "posix", "posix (pread/pwrite) or mpiio (MPI_File_read_at/write_at)"},
       [](Config &C, const std::string &V) -> Status {
         if (V != "posix" && V != "mpiio")
           return Status::error(format("unknown backend '%s' (expected posix or mpiio)", V.c_str()));
         C.Backend = V;
         return {};
       }},
      {{"IOPOLY_DIRECT", "auto", "O_DIRECT: auto (use it where the filesystem allows), on (required), off"},
       [](Config &C, const std::string &V) -> Status {
         if (V == "auto")
           C.Direct = DirectIO::Auto;
         else if (V == "on" || V == "1")
           C.Direct = DirectIO::On;
         else if (V == "off" || V == "0")
           C.Direct = DirectIO::Off;
         else
           return Status::error(format("'%s' is not auto, on or off", V.c_str()));
         return {};
       }},
      {{"IOPOLY_DISK_MODEL", "hdd", "none, hdd, ssd or latency=<t>,bw=<bytes/s>[,seq=<t>]"},
       [](Config &C, const std::string &V) { return parseDiskModel(V, C.Model); }},
      {{"IOPOLY_MODEL_WAIT", "0", "1: every real request also waits for its modeled service time"},
       [](Config &C, const std::string &V) { return parseBool(V, C.ModelWait); }},
      {{"IOPOLY_STATS", "", "write the statistics JSON object to this file at exit ('-' = stderr); %p, %r, %h in the "
                            "name become the pid, the MPI rank and the host name"},
       [](Config &C, const std::string &V) -> Status {
         C.StatsPath = V;
         return {};
       }},
      {{"IOPOLY_LAYOUT_PROFILE", "",
        "programs built with -fplugin-arg-iopoly-layout=instrument: write how many times each access site of the "
        "disk-resident arrays ran to this file at exit, for -fplugin-arg-iopoly-layout-profile (%p, %r, %h as for "
        "IOPOLY_STATS)"},
       [](Config &C, const std::string &V) -> Status {
         C.LayoutProfilePath = V;
         return {};
       }},
      {{"IOPOLY_TRACE", "", "write the binary stripe access trace to this file (%p, %r, %h as for IOPOLY_STATS)"},
       [](Config &C, const std::string &V) -> Status {
         C.TracePath = V;
         return {};
       }},
      {{"IOPOLY_IO_RETRIES", "3", "retries of a failed transient I/O request (EINTR/EAGAIN are always retried)"},
       [](Config &C, const std::string &V) -> Status {
         unsigned long long N;
         if (Status S = parseUnsigned(V, N))
           return S;
         if (N > 1000)
           return Status::error(format("%llu retries is more than 1000", N));
         C.IoRetries = static_cast<unsigned>(N);
         return {};
       }},
      {{"IOPOLY_PREFETCH", "1", "0: ignore prefetch hints and fetch everything on demand"},
       [](Config &C, const std::string &V) { return parseBool(V, C.Prefetch); }},
      {{"IOPOLY_WRITE_BEHIND", "1",
        "0: write a dirty stripe back only when its frame is taken for another stripe (1: start writing the dirty "
        "stripes next in line for eviction ahead of time, so that a fetch does not wait for a write-back first)"},
       [](Config &C, const std::string &V) { return parseBool(V, C.WriteBehind); }},
      {{"IOPOLY_VERBOSE", "0", "1: print the configuration and I/O decisions to stderr"},
       [](Config &C, const std::string &V) { return parseBool(V, C.Verbose); }},
      {{"IOPOLY_CHECKSUM", "off",
        "on: arrays created from now on keep a CRC32C per stripe, checked on every read (an existing array keeps "
        "what it was created with)"},
       [](Config &C, const std::string &V) { return parseBool(V, C.Checksum); }},
      {{"IOPOLY_FAULTS", "auto",
        "page faults of code built without the plugin on disk-resident memory: auto (userfaultfd where the kernel "
        "allows it, else signal), userfaultfd, signal (SIGSEGV + mprotect), off (such accesses stop the program)"},
       [](Config &C, const std::string &V) -> Status {
         if (V == "auto")
           C.Faults = FaultMode::Auto;
         else if (V == "userfaultfd")
           C.Faults = FaultMode::Userfaultfd;
         else if (V == "signal")
           C.Faults = FaultMode::Signal;
         else if (V == "off" || V == "0")
           C.Faults = FaultMode::Off;
         else
           return Status::error(format("'%s' is not auto, userfaultfd, signal or off", V.c_str()));
         return {};
       }},
      {{"IOPOLY_PROGRESS", "auto",
        "progress reports (bytes read per array and rate) on stderr: 0, 1 (every 10 s), an interval (e.g. 2s), "
        "auto (1 when stderr is a terminal)"},
       [](Config &C, const std::string &V) -> Status {
         if (V == "auto") {
           C.Progress = -1;
           return {};
         }
         bool On;
         if (parseBool(V, On).ok()) {
           C.Progress = On;
           return {};
         }
         double Every;
         if (Status S = parseDuration(V, Every))
           return Status::error(format("'%s' is not 0, 1, auto or an interval such as 2s", V.c_str()));
         if (Every < 0.01)
           return Status::error(format("interval '%s' is shorter than 10ms", V.c_str()));
         C.Progress = 1;
         C.ProgressEvery = Every;
         return {};
       }},
      {{"IOPOLY_THRASH", "4",
        "warn once when an array has been read from disk more than this many times its size (0: never)"},
       [](Config &C, const std::string &V) -> Status {
         char *End = nullptr;
         errno = 0;
         double K = std::strtod(V.c_str(), &End);
         if (V.empty() || *End || errno == ERANGE || !std::isfinite(K) || K < 0)
           return Status::error(format("'%s' is not a non-negative number", V.c_str()));
         C.ThrashFactor = K;
         return {};
       }},
      {{"IOPOLY_THREADS", "auto",
        "threads that run the locality sets of code built with -fplugin-arg-iopoly-threads=on: a count from 1 to "
        "1024, or auto (the cores available)"},
       [](Config &C, const std::string &V) -> Status {
         if (V == "auto") {
           C.Threads = 0;
           return {};
         }
         char *End = nullptr;
         errno = 0;
         long N = std::strtol(V.c_str(), &End, 10);
         if (V.empty() || *End || errno == ERANGE || N < 1 || N > 1024)
           return Status::error(format("'%s' is not a thread count from 1 to 1024 or auto", V.c_str()));
         C.Threads = static_cast<unsigned>(N);
         return {};
       }},
      {{"IOPOLY_SCHED", "g",
        "how threads pick locality sets: g (paper 1 Fig. 14, the global disk map) or naive (each thread its own "
        "Hamming order over a contiguous share, Fig. 13(b))"},
       [](Config &C, const std::string &V) -> Status {
         if (V != "g" && V != "G" && V != "naive")
           return Status::error(format("'%s' is not g or naive", V.c_str()));
         C.Sched = V == "naive" ? "naive" : "g";
         return {};
       }},
      {{"IOPOLY_MPIIO_HINTS", "", "extra MPI_Info hints for the mpiio backend: key=value,key=value"},
       [](Config &C, const std::string &V) -> Status {
         // The MPI-IO module checks the values; the shape is checked here.
         for (const std::string &Part : split(V, ',')) {
           size_t Eq = Part.find('=');
           if (Part.empty())
             continue;
           if (Eq == std::string::npos)
             return Status::error(format("'%s' is not key=value", Part.c_str()));
           if (trim(Part.substr(0, Eq)).empty())
             return Status::error(format("empty key in '%s'", Part.c_str()));
           if (trim(Part.substr(Eq + 1)).empty())
             return Status::error(format("'%s' has an empty value", trim(Part.substr(0, Eq)).c_str()));
         }
         C.MpiioHints = V;
         return {};
       }},
      {{"IOPOLY_TOPOLOGY", "", "storage-cache hierarchy (JSON): cache servers of MPI programs linked with "
                               "libiopoly_mpi, mapping of distributed loops"},
       [](Config &C, const std::string &V) -> Status {
         if (V.empty())
           return Status::error("empty path");
         C.Topology = V;
         return {};
       }},
      {{"IOPOLY_CACHE_SERVERS", "1", "0: with IOPOLY_TOPOLOGY, map loops by the topology but start no cache servers"},
       [](Config &C, const std::string &V) { return parseBool(V, C.CacheServers); }},
      {{"IOPOLY_CACHESERVER", "<libdir>/../bin/iopoly-cacheserver", "path of the cache server program"},
       [](Config &C, const std::string &V) -> Status {
         C.CacheServer = V;
         return {};
       }},
      {{"IOPOLY_MPIIO_MODULE", "<libdir>/libiopoly_mpiio.so", "path of the MPI-IO backend module"},
       [](Config &C, const std::string &V) -> Status {
         C.MpiioModule = V;
         return {};
       }},
  };
  return Table;
}

} // namespace

const std::vector<EnvVarDoc> &envVarDocs() {
  static const std::vector<EnvVarDoc> Docs = [] {
    std::vector<EnvVarDoc> D;
    for (const VarSpec &V : varTable())
      D.push_back(V.Doc);
    return D;
  }();
  return Docs;
}

Status parseSize(const std::string &Text, size_t &Out) {
  // The grammar shared with the plugin (common/Sizes.cpp).
  uint64_t N = 0;
  std::string Why;
  if (!parseByteSize(Text, N, &Why))
    return Status::error(ErrorCode::Config, Why);
  if (N > SIZE_MAX)
    return Status::error(ErrorCode::Config, format("size '%s' is too large", Text.c_str()));
  Out = static_cast<size_t>(N);
  return {};
}

Status parseDuration(const std::string &Text, double &Out) {
  std::string T = trim(Text);
  char *End = nullptr;
  errno = 0;
  double V = std::strtod(T.c_str(), &End);
  if (End == T.c_str() || errno == ERANGE || !std::isfinite(V) || V < 0)
    return Status::error(format("'%s' is not a duration (examples: 8ms, 80us, 0.5s)", Text.c_str()));
  std::string U = End;
  double Scale = U == "s" ? 1 : U == "ms" ? 1e-3 : U == "us" ? 1e-6 : U == "ns" ? 1e-9 : -1;
  if (Scale < 0)
    return Status::error(format("'%s' needs a unit: s, ms, us or ns", Text.c_str()));
  Out = V * Scale;
  return {};
}

Status parseDiskModel(const std::string &Text, DiskModelParams &Out) {
  std::string T = trim(Text);
  DiskModelParams M;
  if (T == "none") {
    Out = M;
    return {};
  }
  if (T == "hdd") {
    M.Name = "hdd"; // common/DiskModel.h
    M.LatencySec = HddLatencySec;
    M.SeqLatencySec = HddSeqLatencySec;
    M.BytesPerSec = HddBytesPerSec;
    Out = M;
    return {};
  }
  if (T == "ssd") {
    M.Name = "ssd";
    M.LatencySec = 80e-6;
    M.SeqLatencySec = 80e-6;
    M.BytesPerSec = 500.0 * (1 << 20);
    Out = M;
    return {};
  }
  M.Name = "custom";
  bool HaveLat = false, HaveBw = false, HaveSeq = false;
  for (const std::string &Part : split(T, ',')) {
    size_t Eq = Part.find('=');
    if (Eq == std::string::npos)
      return Status::error(format("'%s': expected none, hdd, ssd or latency=<t>,bw=<bytes/s>[,seq=<t>]", Text.c_str()));
    std::string Key = trim(Part.substr(0, Eq)), Val = trim(Part.substr(Eq + 1));
    if (Key == "latency") {
      if (Status S = parseDuration(Val, M.LatencySec))
        return S;
      HaveLat = true;
    } else if (Key == "seq") {
      if (Status S = parseDuration(Val, M.SeqLatencySec))
        return S;
      HaveSeq = true;
    } else if (Key == "bw") {
      size_t Bw;
      if (Status S = parseSize(Val, Bw))
        return S;
      M.BytesPerSec = static_cast<double>(Bw);
      HaveBw = true;
    } else {
      return Status::error(format("'%s': unknown key '%s' (latency, bw, seq)", Text.c_str(), Key.c_str()));
    }
  }
  if (!HaveLat || !HaveBw)
    return Status::error(format("'%s' needs both latency= and bw=", Text.c_str()));
  if (!HaveSeq)
    M.SeqLatencySec = M.LatencySec;
  Out = M;
  return {};
}

namespace {
/// The rank the MPI launcher gives this process (Open MPI, PMIx, MPICH's
/// Hydra, Slurm), "0" outside MPI. Read from the environment: the
/// configuration is parsed before MPI_Init may have been called.
std::string launcherRank(const EnvLookup &Env) {
  std::string Rank;
  for (const char *V : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (Env(V, Rank) && !trim(Rank).empty())
      return trim(Rank);
  return "0";
}

std::string hostName() {
  char Host[256] = "host";
  ::gethostname(Host, sizeof Host - 1);
  Host[sizeof Host - 1] = '\0';
  return Host;
}

/// Expands %p, %r, %h and %%; an unknown code is left as it is (\p Strict:
/// an error naming it).
Status expandCodes(const std::string &Path, const EnvLookup &Env, bool Strict, std::string &Out) {
  Out.clear();
  for (size_t I = 0; I < Path.size(); ++I) {
    if (Path[I] != '%') {
      Out += Path[I];
      continue;
    }
    if (I + 1 == Path.size()) {
      if (Strict)
        return Status::error("'%' at the end (use %% for a literal %; codes: %r rank, %h host, %p pid)");
      Out += '%';
      continue;
    }
    char C = Path[++I];
    if (C == 'p')
      Out += std::to_string(::getpid());
    else if (C == 'r')
      Out += launcherRank(Env);
    else if (C == 'h')
      Out += hostName();
    else if (C == '%')
      Out += '%';
    else if (Strict)
      return Status::error(format("unknown code '%%%c' (codes: %%r rank, %%h host, %%p pid, %%%% a literal %%)", C));
    else
      Out += std::string("%") + C;
  }
  return {};
}
} // namespace

std::string expandPathTemplate(const std::string &Path) {
  std::string Out;
  (void)expandCodes(Path, processEnv(), /*Strict=*/false, Out);
  return Out;
}

Status expandDirTemplate(const std::string &Path, const EnvLookup &Env, std::string &Out) {
  return expandCodes(Path, Env, /*Strict=*/true, Out);
}

EnvLookup processEnv() {
  return [](const char *Name, std::string &Value) {
    const char *V = std::getenv(Name);
    if (!V)
      return false;
    Value = V;
    return true;
  };
}

Status parseConfig(const EnvLookup &Env, Config &Out) {
  Config C;
  C.Dir = "./iopoly-data";
  C.DisksSpec = "8";
  parseDiskModel("hdd", C.Model);
  for (const VarSpec &V : varTable()) {
    std::string Value;
    if (!Env(V.Doc.Name, Value))
      continue;
    if (Status S = V.Set(C, Value))
      return Status::error(ErrorCode::Config, format("%s=%s: %s", V.Doc.Name, Value.c_str(), S.message().c_str()));
  }
  if (Status S = checkDisksSpec(C.DisksSpec))
    return Status::error(ErrorCode::Config, format("IOPOLY_DISKS=%s: %s", C.DisksSpec.c_str(), S.message().c_str()));
  std::string Base;
  if (Status S = expandDirTemplate(C.Dir, Env, Base))
    return Status::error(ErrorCode::Config, format("IOPOLY_DIR=%s: %s", C.Dir.c_str(), S.message().c_str()));
  if (Status S = resolveDisks(C, Base, Env))
    return Status::error(ErrorCode::Config, format("IOPOLY_DISKS=%s: %s", C.DisksSpec.c_str(), S.message().c_str()));
  bool IsList = C.DisksSpec.find(',') != std::string::npos; // a count names distinct directories
  if (Status S = IsList ? checkDistinctDirs(C.DiskDirs) : Status())
    return Status::error(ErrorCode::Config, format("IOPOLY_DISKS=%s: %s", C.DisksSpec.c_str(), S.message().c_str()));
  if (C.BufferBytes < C.StripeSize) {
    // Quote both settings as written (or their defaults), then in bytes.
    std::string Buf = "64M", Stripe = "64K";
    Env("IOPOLY_BUFFER", Buf);
    Env("IOPOLY_STRIPE", Stripe);
    return Status::error(ErrorCode::Config, format("IOPOLY_BUFFER=%s (%zu bytes) is smaller than one stripe (IOPOLY_STRIPE=%s, %zu bytes)",
                                Buf.c_str(), C.BufferBytes, Stripe.c_str(), C.StripeSize));
  }
  Out = std::move(C);
  return {};
}

std::string Config::toJSON() const {
  JsonWriter W;
  W.beginObject();
  W.key("dir").value(Dir);
  W.key("disks").beginArray();
  for (const std::string &D : DiskDirs)
    W.value(D);
  W.endArray();
  W.key("num_disks").value(static_cast<unsigned long long>(numDisks()));
  W.key("stripe_bytes").value(static_cast<unsigned long long>(StripeSize));
  W.key("buffer_bytes").value(static_cast<unsigned long long>(BufferBytes));
  W.key("buffer_frames").value(static_cast<unsigned long long>(bufferFrames()));
  W.key("backend").value(Backend);
  W.key("direct").value(Direct == DirectIO::Auto ? "auto" : Direct == DirectIO::On ? "on" : "off");
  W.key("disk_model").beginObject();
  W.key("name").value(Model.Name);
  W.key("latency_seconds").value(Model.LatencySec);
  W.key("seq_latency_seconds").value(Model.SeqLatencySec);
  W.key("bandwidth_bytes_per_second").value(Model.BytesPerSec);
  W.endObject();
  W.key("model_wait").value(ModelWait);
  W.key("prefetch").value(Prefetch);
  W.key("io_retries").value(static_cast<unsigned long long>(IoRetries));
  W.key("checksum").value(Checksum);
  W.key("faults").value(Faults == FaultMode::Auto          ? "auto"
                        : Faults == FaultMode::Userfaultfd ? "userfaultfd"
                        : Faults == FaultMode::Signal      ? "signal"
                                                           : "off");
  W.key("progress").value(Progress < 0 ? "auto" : Progress ? "on" : "off");
  W.key("progress_interval_seconds").value(ProgressEvery);
  W.key("thrash_factor").value(ThrashFactor);
  W.key("threads").value(static_cast<unsigned long long>(Threads));
  W.key("sched").value(Sched);
  W.endObject();
  return W.str();
}

Status globalConfig(const Config *&Out) {
  static std::once_flag Once;
  static Config C;
  static Status Result;
  std::call_once(Once, [] { Result = parseConfig(processEnv(), C); });
  Out = &C;
  return Result;
}

bool verboseEnabled() {
  static const bool V = [] {
    const char *E = std::getenv("IOPOLY_VERBOSE");
    return E && (std::strcmp(E, "1") == 0 || std::strcmp(E, "on") == 0 ||
                 std::strcmp(E, "yes") == 0 || std::strcmp(E, "true") == 0);
  }();
  return V;
}

} // namespace iopoly
