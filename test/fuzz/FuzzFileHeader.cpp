//===- FuzzFileHeader.cpp - libFuzzer target: the disk-file header parser -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Any bytes at the start of a disk file must decode to an error or to a
// header that encodes back to something that decodes to the same header:
// no crash, no hang, no sanitizer report, no accepted header that the
// runtime could not write itself. Run for a fixed number of inputs in CI
// (test/fuzz/CMakeLists.txt); the corpus is test/fuzz/corpus/header.
//
//===----------------------------------------------------------------------===//
#include "core/FileHeader.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace iopoly;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Bytes(reinterpret_cast<const char *>(Data), Size < HeaderBytes ? Size : HeaderBytes);
  Bytes.resize(HeaderBytes, '\0');
  FileHeader H;
  if (FileHeader::decode(Bytes.data(), Bytes.size(), H))
    return 0;
  // Accepted: it must survive a round trip unchanged.
  if (H.Version < 2) {
    H.Version = 2;
    H.Creation = H.Commit = "0123456789abcdef";
  }
  std::string Again = H.encode();
  FileHeader H2;
  if (Status S = FileHeader::decode(Again.data(), Again.size(), H2)) {
    std::fprintf(stderr, "re-encoded header does not decode: %s\n", S.message().c_str());
    std::abort();
  }
  if (!H.mismatch(H2).empty() || H2.Creation != H.Creation || H2.Commit != H.Commit || H2.Dirty != H.Dirty ||
      H2.Checksums != H.Checksums || H2.Origin != H.Origin) {
    std::fprintf(stderr, "header changed in a round trip: %s\n", H.mismatch(H2).c_str());
    std::abort();
  }
  if (H.Geo.numStripes() == 0 || H.Geo.expectedFileSize(0) < HeaderBytes)
    std::abort();
  return 0;
}
