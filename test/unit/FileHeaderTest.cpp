//===- FileHeaderTest.cpp - Disk file headers: round trip and mismatches --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A header encodes to exactly HeaderBytes of readable text and decodes to
// the same fields; each kind of difference produces a message naming what
// differs and both values; damaged headers are rejected with a reason;
// array names that would be unsafe as file names are rejected.
//
//===----------------------------------------------------------------------===//
#include "core/FileHeader.h"

#include <gtest/gtest.h>

using namespace iopoly;

namespace {

FileHeader header(const std::string &Name = "A", size_t Elem = 8, std::vector<size_t> Dims = {100, 30},
                  std::vector<int> Layout = {0, 1}, size_t Stripe = 4096, size_t Disks = 4, size_t Disk = 2) {
  FileHeader H;
  H.Name = Name;
  Status S = Geometry::make(Elem, static_cast<int>(Dims.size()), Dims.data(), Layout.data(), Stripe, Disks, H.Geo);
  EXPECT_TRUE(S.ok()) << S.message();
  H.DiskIndex = Disk;
  H.Creation = "0123456789abcdef";
  H.Commit = "fedcba9876543210";
  return H;
}

Status decodeText(const std::string &Text, FileHeader &Out) {
  std::string Bytes = Text;
  Bytes.resize(HeaderBytes, '\0');
  return FileHeader::decode(Bytes.data(), Bytes.size(), Out);
}

void expectNamesBoth(const std::string &Msg, const std::string &What, const std::string &File,
                     const std::string &Now) {
  EXPECT_NE(std::string::npos, Msg.find(What)) << Msg;
  EXPECT_NE(std::string::npos, Msg.find("the file has " + File)) << Msg;
  EXPECT_NE(std::string::npos, Msg.find("the current setting is " + Now)) << Msg;
}

} // namespace

TEST(FileHeaderCodec, EncodeDecodeRoundTrip) {
  const int Perm[3] = {2, 0, 1};
  FileHeader H = header("grid.v-2", 4, {7, 9, 11}, {Perm[0], Perm[1], Perm[2]}, 65536, 8, 5);
  std::string Bytes = H.encode();
  ASSERT_EQ(HeaderBytes, Bytes.size());
  EXPECT_EQ(0u, Bytes.rfind("IOPOLY-ARRAY 2\n", 0)) << "header must start with its magic line";
  EXPECT_NE(std::string::npos, Bytes.find("name grid.v-2\n")) << "header is human-readable";
  EXPECT_EQ('\0', Bytes.back()) << "zero padded";

  FileHeader D;
  Status S = FileHeader::decode(Bytes.data(), Bytes.size(), D);
  ASSERT_TRUE(S.ok()) << S.message();
  EXPECT_EQ(H.Name, D.Name);
  EXPECT_EQ(H.Geo.ElemSize, D.Geo.ElemSize);
  EXPECT_EQ(H.Geo.Dims, D.Geo.Dims);
  EXPECT_EQ(H.Geo.Layout, D.Geo.Layout);
  EXPECT_EQ(H.Geo.StripeSize, D.Geo.StripeSize);
  EXPECT_EQ(H.Geo.NumDisks, D.Geo.NumDisks);
  EXPECT_EQ(H.Geo.TotalBytes, D.Geo.TotalBytes);
  EXPECT_EQ(5u, D.DiskIndex);
  EXPECT_EQ("", H.mismatch(D));
}

TEST(FileHeaderMismatch, EachDifferenceNamesWhatAndBothValues) {
  FileHeader Now = header();
  expectNamesBoth(Now.mismatch(header("B")), "array name", "B", "A");
  expectNamesBoth(Now.mismatch(header("A", 4)), "element size", "4", "8");
  expectNamesBoth(Now.mismatch(header("A", 8, {100, 31})), "dims", "100x31", "100x30");
  expectNamesBoth(Now.mismatch(header("A", 8, {30, 100}, {1, 0})), "dims", "30x100", "100x30");
  EXPECT_NE(std::string::npos,
            Now.mismatch(header("A", 8, {100, 30}, {1, 0}))
                .find("file layout: the file stores it in layout 1,0 (column-major), this program asks for layout "
                      "0,1 (row-major)"));
  EXPECT_NE(std::string::npos, Now.mismatch(header("A", 8, {100, 30}, {1, 0})).find("'iopoly-relayout A --to 0,1'"));
  expectNamesBoth(Now.mismatch(header("A", 8, {100, 30}, {0, 1}, 65536)), "stripe size (IOPOLY_STRIPE)", "65536",
                  "4096");
  expectNamesBoth(Now.mismatch(header("A", 8, {100, 30}, {0, 1}, 4096, 3)), "disk count (IOPOLY_DISKS)", "3", "4");
  expectNamesBoth(Now.mismatch(header("A", 8, {100, 30}, {0, 1}, 4096, 4, 1)), "disk index", "1", "2");
}

TEST(FileHeaderDecode, DamagedHeadersAreRejectedWithAReason) {
  FileHeader Out;
  const std::string Good = "IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 64\ndisks 2\n"
                           "disk 1\nbytes 80\nend\n";
  ASSERT_TRUE(decodeText(Good, Out).ok());
  struct Case {
    std::string Text, Reason;
  } Cases[] = {
      {"", "bad magic"},
      {"IOPOLY-ARRAY 3\n", "bad magic"},
      {"\x7f" "ELF", "bad magic"},
      {Good.substr(0, Good.size() - 4), "truncated"},
      {"IOPOLY-ARRAY 1\ncolour blue\nend\n", "unknown header field 'colour'"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size eight\nend\n", "malformed header line"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10 10\nlayout 0\nstripe 64\ndisks 2\ndisk 0\nbytes 800\nend\n",
       "inconsistent"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 0\ndisks 2\ndisk 0\nbytes 80\nend\n",
       "inconsistent"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 64\ndisks 2\ndisk 0\nbytes 81\nend\n",
       "byte count"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 64\ndisks 2\ndisk 2\nbytes 80\nend\n",
       "disk index out of range"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 0\ndims 10\nlayout 0\nstripe 64\ndisks 2\ndisk 0\nbytes 0\nend\n",
       "element size is 0"},
      {"IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10 10\nlayout 1 1\nstripe 64\ndisks 2\ndisk 0\nbytes 800\nend\n",
       "permutation"},
  };
  for (const Case &C : Cases) {
    Status S = decodeText(C.Text, Out);
    ASSERT_FALSE(S.ok()) << "accepted: " << C.Text;
    EXPECT_NE(std::string::npos, S.message().find(C.Reason)) << S.message();
  }
}

TEST(FileHeaderNames, SafeFileNamesOnly) {
  const std::string Longest(200, 'n');
  for (const char *Ok : {"A", "grid_2.v-1", "x.iop", "0", Longest.c_str()})
    EXPECT_TRUE(checkArrayName(Ok).ok()) << Ok << ": " << checkArrayName(Ok).message();
  struct Case {
    const char *Name;
    const char *Reason;
  } Bad[] = {{"", "empty"},         {".hidden", "starts with '.'"}, {"..", "starts with '.'"},
             {"a/b", "'/'"},        {"../x", "starts with '.'"},    {"a b", "' '"},
             {"tab\there", "'\t'"}, {"é", "contains"},              {"semi;colon", "';'"}};
  for (const Case &C : Bad) {
    Status S = checkArrayName(C.Name);
    ASSERT_FALSE(S.ok()) << "accepted '" << C.Name << "'";
    EXPECT_NE(std::string::npos, S.message().find(C.Reason)) << S.message();
  }
  EXPECT_FALSE(checkArrayName(nullptr).ok());
  std::string Long(201, 'n');
  EXPECT_NE(std::string::npos, checkArrayName(Long.c_str()).message().find("longer than 200"));
}

TEST(FileHeaderCodec, Version2CarriesIdsStateChecksumsAndOrigin) {
  FileHeader H = header();
  H.Dirty = true;
  H.Checksums = true;
  H.Origin = "global";
  FileHeader D;
  std::string Bytes = H.encode();
  ASSERT_TRUE(FileHeader::decode(Bytes.data(), Bytes.size(), D).ok());
  EXPECT_EQ(2u, D.Version);
  EXPECT_EQ("0123456789abcdef", D.Creation);
  EXPECT_EQ("fedcba9876543210", D.Commit);
  EXPECT_TRUE(D.Dirty);
  EXPECT_TRUE(D.Checksums);
  EXPECT_EQ("global", D.Origin);
  EXPECT_NE(std::string::npos, Bytes.find("\nstate dirty\n"));
}

TEST(FileHeaderCodec, Version1FilesStillDecode) {
  FileHeader D;
  ASSERT_TRUE(decodeText("IOPOLY-ARRAY 1\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 64\ndisks 2\n"
                         "disk 1\nbytes 80\nend\n",
                         D)
                  .ok());
  EXPECT_EQ(1u, D.Version);
  EXPECT_EQ("", D.Creation);
  EXPECT_FALSE(D.Dirty);
}

TEST(FileHeaderDecode, Version2NeedsValidIdsAndStates) {
  const std::string Head = "IOPOLY-ARRAY 2\nname A\nelem_size 8\ndims 10\nlayout 0\nstripe 64\ndisks 2\n"
                           "disk 1\nbytes 80\n";
  const std::string Ok = "creation 0123456789abcdef\nstate clean\ncommit 0123456789abcdef\nchecksums none\n"
                         "origin api\nend\n";
  FileHeader D;
  ASSERT_TRUE(decodeText(Head + Ok, D).ok());
  struct Case {
    std::string Text, Reason;
  } Cases[] = {
      {"creation 12\nstate clean\ncommit 0123456789abcdef\nchecksums none\norigin api\nend\n", "creation or commit"},
      {"creation 0123456789abcdef\nstate odd\ncommit 0123456789abcdef\nchecksums none\norigin api\nend\n",
       "neither clean nor dirty"},
      {"creation 0123456789abcdef\nstate clean\ncommit 0123456789abcdef\nchecksums md5\norigin api\nend\n",
       "neither crc32c nor none"},
      {"creation 0123456789abcdef\nstate clean\ncommit 0123456789abcdef\nchecksums none\norigin me\nend\n",
       "neither api nor global"},
  };
  for (const Case &C : Cases) {
    Status S = decodeText(Head + C.Text, D);
    ASSERT_FALSE(S.ok()) << C.Text;
    EXPECT_TRUE(S.is(ErrorCode::Corrupt));
    EXPECT_NE(std::string::npos, S.message().find(C.Reason)) << S.message();
  }
  EXPECT_NE(newRandomId(), newRandomId());
  EXPECT_EQ(16u, newRandomId().size());
}
