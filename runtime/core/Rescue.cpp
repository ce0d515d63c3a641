//===- Rescue.cpp - Dirty blocks saved when the exit write-back fails ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Rescue.h"
#include "core/Checksum.h"
#include "core/OutputFile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace iopoly {

namespace {

constexpr size_t HeadBytes = 4096;
const char Magic[] = "IOPOLY-RESCUE 1";

void putLE(std::string &S, uint64_t V, int Bytes) {
  for (int I = 0; I < Bytes; ++I)
    S += static_cast<char>((V >> (8 * I)) & 0xff);
}

uint64_t getLE(const unsigned char *P, int Bytes) {
  uint64_t V = 0;
  for (int I = 0; I < Bytes; ++I)
    V |= static_cast<uint64_t>(P[I]) << (8 * I);
  return V;
}

bool exists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}

std::string candidate(const std::string &Dir, const std::string &Name, unsigned K) {
  return Dir + "/" + Name + ".rescue" + (K ? "." + std::to_string(K) : "");
}

} // namespace

std::vector<std::string> rescueDirs(const std::vector<std::string> &DiskDirs, const std::string &BaseDir) {
  std::vector<std::string> Dirs = DiskDirs;
  Dirs.push_back(BaseDir);
  if (const char *T = std::getenv("TMPDIR"))
    if (*T)
      Dirs.push_back(T);
  Dirs.push_back("/tmp");
  std::vector<std::string> Unique;
  std::set<std::string> Seen;
  for (const std::string &D : Dirs)
    if (!D.empty() && Seen.insert(D).second)
      Unique.push_back(D);
  return Unique;
}

Status writeRescueFile(const RescueFile &R, const std::vector<std::string> &Dirs, std::string &Path) {
  std::ostringstream H;
  H << Magic << "\nname " << R.Name << "\ncreation " << R.Creation << "\nstripe " << R.StripeSize << "\nblocks "
    << R.Blocks.size() << "\nend\n";
  std::string Data = H.str();
  Data.resize(HeadBytes, '\0');
  for (const RescueBlock &B : R.Blocks) {
    putLE(Data, B.Block, 8);
    putLE(Data, B.Bytes.size(), 8);
    Data += B.Bytes;
    putLE(Data, crc32c(B.Bytes.data(), B.Bytes.size()), 4);
  }
  std::string Why;
  for (const std::string &Dir : Dirs) {
    unsigned K = 0;
    while (exists(candidate(Dir, R.Name, K)) && K < 1000)
      ++K;
    std::string P = candidate(Dir, R.Name, K);
    Status S = writeWholeFile(P, Data, "rescued blocks");
    if (S.ok()) {
      Path = P;
      return {};
    }
    Why += (Why.empty() ? "" : "; ") + S.message();
  }
  return Status::error(ErrorCode::IO, Why.empty() ? "no directory to write to" : Why);
}

Status readRescueFile(const std::string &Path, RescueFile &Out) {
  std::ifstream F(Path, std::ios::binary);
  if (!F)
    return Status::error(ErrorCode::IO, format("cannot read rescue file '%s': %s", Path.c_str(), std::strerror(errno)));
  std::string D((std::istreambuf_iterator<char>(F)), std::istreambuf_iterator<char>());
  if (D.size() < HeadBytes || D.compare(0, sizeof Magic - 1, Magic) != 0)
    return Status::error(ErrorCode::Corrupt, format("'%s' is not an iopoly rescue file", Path.c_str()));
  RescueFile R;
  std::istringstream IS(std::string(D.data(), strnlen(D.data(), HeadBytes)));
  std::string Line;
  uint64_t Count = 0;
  bool Ended = false;
  std::getline(IS, Line);
  while (std::getline(IS, Line)) {
    std::istringstream LS(Line);
    std::string Key;
    LS >> Key;
    if (Key == "name")
      LS >> R.Name;
    else if (Key == "creation")
      LS >> R.Creation;
    else if (Key == "stripe")
      LS >> R.StripeSize;
    else if (Key == "blocks")
      LS >> Count;
    else if (Key == "end") {
      Ended = true;
      break;
    }
  }
  if (!Ended || R.Name.empty() || R.StripeSize == 0)
    return Status::error(ErrorCode::Corrupt, format("rescue file '%s' has a damaged header", Path.c_str()));
  size_t At = HeadBytes;
  for (uint64_t K = 0; K < Count; ++K) {
    if (D.size() - At < 16)
      return Status::error(ErrorCode::Corrupt, format("rescue file '%s' is truncated", Path.c_str()));
    const unsigned char *P = reinterpret_cast<const unsigned char *>(D.data() + At);
    RescueBlock B;
    B.Block = getLE(P, 8);
    uint64_t Len = getLE(P + 8, 8);
    At += 16;
    if (Len > R.StripeSize || D.size() - At < Len + 4)
      return Status::error(ErrorCode::Corrupt, format("rescue file '%s' is truncated", Path.c_str()));
    B.Bytes.assign(D.data() + At, Len);
    At += Len;
    uint32_t Crc = static_cast<uint32_t>(getLE(reinterpret_cast<const unsigned char *>(D.data() + At), 4));
    At += 4;
    if (Crc != crc32c(B.Bytes.data(), B.Bytes.size()))
      return Status::error(ErrorCode::Corrupt, format("rescue file '%s': block %llu fails its checksum", Path.c_str(),
                                                      static_cast<unsigned long long>(B.Block)));
    R.Blocks.push_back(std::move(B));
  }
  Out = std::move(R);
  return {};
}

std::vector<std::string> findRescueFiles(const std::vector<std::string> &Dirs, const std::string &Name) {
  std::vector<std::string> Found;
  for (const std::string &Dir : Dirs)
    for (unsigned K = 0; K < 1000 && exists(candidate(Dir, Name, K)); ++K)
      Found.push_back(candidate(Dir, Name, K));
  return Found;
}

} // namespace iopoly
