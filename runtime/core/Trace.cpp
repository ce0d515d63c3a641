//===- Trace.cpp - Binary stripe access trace (IOPOLY_TRACE) ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Trace.h"

#include <cerrno>
#include <cstring>

namespace iopoly {

namespace {
constexpr char Magic[8] = {'I', 'O', 'P', 'T', 'R', 'A', 'C', 'E'};
constexpr size_t FlushAt = 1 << 20;

template <typename T> void le(unsigned char *&P, T V) {
  for (size_t I = 0; I < sizeof(T); ++I)
    *P++ = static_cast<unsigned char>(static_cast<uint64_t>(V) >> (8 * I));
}
template <typename T> T rd(const unsigned char *&P) {
  uint64_t V = 0;
  for (size_t I = 0; I < sizeof(T); ++I)
    V |= static_cast<uint64_t>(*P++) << (8 * I);
  return static_cast<T>(V);
}
} // namespace

Status TraceWriter::open(const std::string &P) {
  Path = P;
  if (Status S = OutputFile::open(P, "the trace", File))
    return Status::wrap(S, format("IOPOLY_TRACE=%s: cannot create the trace file: %s", P.c_str(), S.message().c_str()));
  unsigned char H[16];
  std::memcpy(H, Magic, 8);
  unsigned char *Q = H + 8;
  le<uint32_t>(Q, 1);
  le<uint32_t>(Q, 0);
  put(H, sizeof H);
  return {};
}

void TraceWriter::put(const void *P, size_t N) {
  std::lock_guard<std::mutex> L(Mu);
  const unsigned char *C = static_cast<const unsigned char *>(P);
  Buf.insert(Buf.end(), C, C + N);
  if (Buf.size() >= FlushAt)
    drain();
}

void TraceWriter::drain() {
  if (File && !Buf.empty())
    if (Status S = File->write(Buf.data(), Buf.size())) {
      warning(format("IOPOLY_TRACE=%s: %s; tracing stopped", Path.c_str(), S.message().c_str()));
      File.reset(); // an unfinished replacement is abandoned: the old file stays
    }
  Buf.clear();
}

void TraceWriter::defineArray(uint32_t Id, const std::string &Name) {
  if (!File)
    return;
  unsigned char H[8];
  unsigned char *Q = H;
  le<uint8_t>(Q, 'A');
  le<uint8_t>(Q, 0);
  le<uint16_t>(Q, static_cast<uint16_t>(Name.size()));
  le<uint32_t>(Q, Id);
  put(H, sizeof H);
  put(Name.data(), Name.size());
}

void TraceWriter::event(const TraceEvent &E) {
  if (!File)
    return;
  unsigned char R[24];
  unsigned char *Q = R;
  le<uint8_t>(Q, 'E');
  le<uint8_t>(Q, E.Kind);
  le<uint16_t>(Q, E.Disk);
  le<uint32_t>(Q, E.Array);
  le<uint64_t>(Q, E.Stripe);
  le<uint64_t>(Q, E.TimeNs);
  put(R, sizeof R);
}

void TraceWriter::request(const TraceRequest &Rq) {
  if (!File)
    return;
  unsigned char R[60];
  unsigned char *Q = R;
  le<uint8_t>(Q, 'R');
  le<uint8_t>(Q, Rq.Write);
  le<uint8_t>(Q, Rq.Level);
  le<uint8_t>(Q, 0);
  le<uint16_t>(Q, Rq.Disk);
  le<uint16_t>(Q, 0);
  le<uint32_t>(Q, Rq.Array);
  le<uint64_t>(Q, Rq.Stripe);
  le<uint32_t>(Q, Rq.Offset);
  le<uint32_t>(Q, Rq.Bytes);
  le<uint32_t>(Q, Rq.L2Seq);
  le<uint32_t>(Q, Rq.L3Seq);
  le<uint64_t>(Q, Rq.TimeNs);
  le<uint64_t>(Q, Rq.LatencyNs);
  le<uint64_t>(Q, Rq.FileKey);
  put(R, sizeof R);
}

void TraceWriter::close() {
  if (!File)
    return;
  std::lock_guard<std::mutex> L(Mu);
  drain();
  if (File)
    if (Status S = File->commit())
      warning(format("IOPOLY_TRACE=%s: %s", Path.c_str(), S.message().c_str()));
  File.reset();
}

Status scanTrace(const std::string &Path, TraceVisitor &V) {
  std::FILE *F = std::fopen(Path.c_str(), "rb");
  if (!F)
    return Status::error(format("cannot open trace '%s': %s", Path.c_str(), std::strerror(errno)));
  struct Closer {
    std::FILE *F;
    ~Closer() { std::fclose(F); }
  } C{F};
  // A window of the file: records are read in place, the window refilled
  // as they run out (traces of large runs are many gigabytes).
  std::vector<unsigned char> Buf(size_t(1) << 20);
  size_t Pos = 0, Len = 0;
  uint64_t Consumed = 0; ///< bytes of the file before Buf[0]
  bool Eof = false;
  auto have = [&](size_t N) {
    while (Len - Pos < N && !Eof) {
      std::memmove(Buf.data(), Buf.data() + Pos, Len - Pos);
      Consumed += Pos;
      Len -= Pos;
      Pos = 0;
      if (Buf.size() < N)
        Buf.resize(N);
      size_t Got = std::fread(Buf.data() + Len, 1, Buf.size() - Len, F);
      Len += Got;
      Eof = Got == 0;
    }
    return Len - Pos >= N;
  };
  if (!have(16) || std::memcmp(Buf.data(), Magic, 8) != 0)
    return Status::error(format("'%s' is not an iopoly trace (bad magic)", Path.c_str()));
  const unsigned char *P = Buf.data() + 8;
  uint32_t Version = rd<uint32_t>(P);
  if (Version != 1)
    return Status::error(format("trace '%s' has version %u; this reader knows version 1", Path.c_str(), Version));
  Pos = 16;
  auto truncated = [&] { return Status::error(format("trace '%s' is truncated", Path.c_str())); };
  while (have(1)) {
    unsigned char Type = Buf[Pos];
    if (Type == 'A') {
      if (!have(8))
        return truncated();
      P = Buf.data() + Pos + 2;
      uint16_t NameLen = rd<uint16_t>(P);
      uint32_t Id = rd<uint32_t>(P);
      if (!have(8 + size_t(NameLen)))
        return truncated();
      std::string Name(reinterpret_cast<const char *>(Buf.data() + Pos + 8), NameLen);
      Pos += 8 + size_t(NameLen);
      if (Status S = V.array(Id, Name))
        return S;
    } else if (Type == 'E') {
      if (!have(24))
        return truncated();
      P = Buf.data() + Pos + 1;
      TraceEvent E;
      E.Kind = rd<uint8_t>(P);
      E.Disk = rd<uint16_t>(P);
      E.Array = rd<uint32_t>(P);
      E.Stripe = rd<uint64_t>(P);
      E.TimeNs = rd<uint64_t>(P);
      Pos += 24;
      if (Status S = V.event(E))
        return S;
    } else if (Type == 'R') {
      if (!have(60))
        return truncated();
      P = Buf.data() + Pos + 1;
      TraceRequest R;
      R.Write = rd<uint8_t>(P);
      R.Level = rd<uint8_t>(P);
      rd<uint8_t>(P);
      R.Disk = rd<uint16_t>(P);
      rd<uint16_t>(P);
      R.Array = rd<uint32_t>(P);
      R.Stripe = rd<uint64_t>(P);
      R.Offset = rd<uint32_t>(P);
      R.Bytes = rd<uint32_t>(P);
      R.L2Seq = rd<uint32_t>(P);
      R.L3Seq = rd<uint32_t>(P);
      R.TimeNs = rd<uint64_t>(P);
      R.LatencyNs = rd<uint64_t>(P);
      R.FileKey = rd<uint64_t>(P);
      Pos += 60;
      if (Status S = V.request(R))
        return S;
    } else {
      return Status::error(format("trace '%s': unknown record type 0x%02x at byte %llu", Path.c_str(), Type,
                                  static_cast<unsigned long long>(Consumed + Pos)));
    }
  }
  if (std::ferror(F))
    return Status::error(format("cannot read trace '%s': %s", Path.c_str(), std::strerror(errno)));
  return {};
}

Status readTrace(const std::string &Path, TraceContents &Out) {
  struct Collect : TraceVisitor {
    TraceContents C;
    Status array(uint32_t Id, const std::string &Name) override {
      if (C.ArrayNames.size() <= Id)
        C.ArrayNames.resize(size_t(Id) + 1);
      C.ArrayNames[Id] = Name;
      return {};
    }
    Status event(const TraceEvent &E) override {
      C.Events.push_back(E);
      return {};
    }
    Status request(const TraceRequest &R) override {
      C.Requests.push_back(R);
      C.Requests.back().After = C.Events.size();
      return {};
    }
  } V;
  if (Status S = scanTrace(Path, V))
    return S;
  Out = std::move(V.C);
  return {};
}

} // namespace iopoly
