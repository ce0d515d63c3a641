//===- Config.cpp - IOPOLY_* environment configuration ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"
#include "core/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
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
         if (C.StripeSize < 64)
           return Status::error(format("stripe size %zu is below the minimum of 64 bytes", C.StripeSize));
         // Compiled code keeps an access's alignment inside a stripe only if
         // stripes start at multiples of 64 (the widest vector access).
         if (C.StripeSize % 64)
           return Status::error(format("stripe size %zu is not a multiple of 64 bytes", C.StripeSize));
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
      {{"IOPOLY_VERBOSE", "0", "1: print the configuration and I/O decisions to stderr"},
       [](Config &C, const std::string &V) { return parseBool(V, C.Verbose); }},
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
  std::string T = trim(Text);
  size_t I = 0;
  while (I < T.size() && T[I] >= '0' && T[I] <= '9')
    ++I;
  if (I == 0)
    return Status::error(format("'%s' is not a size (examples: 65536, 64K, 1M, 2G)", Text.c_str()));
  unsigned long long N = 0;
  if (Status S = parseUnsigned(T.substr(0, I), N))
    return S;
  std::string Suffix = T.substr(I);
  unsigned Shift = 0;
  if (!Suffix.empty()) {
    char U = static_cast<char>(std::toupper(static_cast<unsigned char>(Suffix[0])));
    std::string Rest = Suffix.substr(1);
    if (U == 'B' && Rest.empty())
      Shift = 0;
    else if ((U == 'K' || U == 'M' || U == 'G' || U == 'T') &&
             (Rest.empty() || Rest == "B" || Rest == "iB" || Rest == "b"))
      Shift = U == 'K' ? 10 : U == 'M' ? 20 : U == 'G' ? 30 : 40;
    else
      return Status::error(format("'%s' has an unknown size suffix '%s' (use K, M, G or T)",
                                  Text.c_str(), Suffix.c_str()));
  }
  if (N == 0)
    return Status::error(format("size '%s' must be positive", Text.c_str()));
  if (Shift && N > (~0ULL >> Shift))
    return Status::error(format("size '%s' is too large", Text.c_str()));
  Out = static_cast<size_t>(N << Shift);
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
    // 10,000 RPM disks as in paper 2, Table 1: about 4.5 ms seek plus 3 ms
    // rotational delay for a random request, 120 MiB/s media rate.
    M.Name = "hdd";
    M.LatencySec = 7.5e-3;
    M.SeqLatencySec = 0.2e-3;
    M.BytesPerSec = 120.0 * (1 << 20);
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
      return Status::error(format("%s=%s: %s", V.Doc.Name, Value.c_str(), S.message().c_str()));
  }
  std::string Base;
  if (Status S = expandDirTemplate(C.Dir, Env, Base))
    return Status::error(format("IOPOLY_DIR=%s: %s", C.Dir.c_str(), S.message().c_str()));
  if (Status S = resolveDisks(C, Base, Env))
    return Status::error(format("IOPOLY_DISKS=%s: %s", C.DisksSpec.c_str(), S.message().c_str()));
  if (C.BufferBytes < C.StripeSize) {
    // Quote both settings as written (or their defaults), then in bytes.
    std::string Buf = "64M", Stripe = "64K";
    Env("IOPOLY_BUFFER", Buf);
    Env("IOPOLY_STRIPE", Stripe);
    return Status::error(format("IOPOLY_BUFFER=%s (%zu bytes) is smaller than one stripe (IOPOLY_STRIPE=%s, %zu bytes)",
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
  W.key("latency_s").value(Model.LatencySec);
  W.key("seq_latency_s").value(Model.SeqLatencySec);
  W.key("bandwidth_Bps").value(Model.BytesPerSec);
  W.endObject();
  W.key("model_wait").value(ModelWait);
  W.key("prefetch").value(Prefetch);
  W.key("io_retries").value(static_cast<unsigned long long>(IoRetries));
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
