//===- ApiIntegrityTest.cpp - Creation ids, commits and recovery ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each array's headers carry a creation id and the id of its last committed
// state, so files of two creations (or of two diverged copies) are refused
// instead of returning half the values of each. A write-back marks the
// headers dirty first and a successful iopoly_flush / iopoly_close marks
// them clean again: after a crash the array opens with its last committed
// data, or is refused with a message saying how to recover. Creation writes
// the files under temporary names and renames them: an interrupted creation
// is refused by a plain open and started over by IOPOLY_CREATE.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

#include <cstdlib>

using namespace iopoly::test;

namespace {

constexpr const char *Blocks = "24"; // three times the 8-frame buffer

void copyFile(const std::string &From, const std::string &To) {
  std::ofstream(To, std::ios::binary) << readFile(From);
}

} // namespace

class ApiIntegrity : public ApiTest {
protected:
  std::map<std::string, std::string> disks(const std::string &A, const std::string &B, const std::string &C) {
    return {{"IOPOLY_DISKS", Dir + "/" + A + "," + Dir + "/" + B + "," + Dir + "/" + C}};
  }
};

TEST_F(ApiIntegrity, HeadersShowTheCreationAndTheState) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  std::string H = readFile(diskFile(0, "A")).substr(0, 600);
  EXPECT_TRUE(contains(H, "IOPOLY-ARRAY 2\n")) << H;
  EXPECT_TRUE(contains(H, "\ncreation ")) << H;
  EXPECT_TRUE(contains(H, "\nstate clean\n")) << H;
  EXPECT_TRUE(contains(H, "\ncommit ")) << H;
}

TEST_F(ApiIntegrity, FilesOfTwoCreationsAreRefused) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}, disks("r1/d0", "r1/d1", "r1/d2")).ExitCode);
  ASSERT_EQ(0, run({"fill", "A", Blocks, "2", "trunc", "close"}, disks("r2/d0", "r2/d1", "r2/d2")).ExitCode);
  RunResult R = run({"check", "A", Blocks, "1"}, disks("r1/d0", "r2/d1", "r1/d2"));
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': its files belong to different creations")) << R;
  EXPECT_TRUE(contains(R.Out, Dir + "/r2/d1/A.iop")) << R;
  EXPECT_TRUE(contains(R.Out, "were the disk directories of two runs mixed?")) << R;
}

TEST_F(ApiIntegrity, DivergedCopiesAreRefused) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}, disks("r1/d0", "r1/d1", "r1/d2")).ExitCode);
  for (const char *D : {"d0", "d1", "d2"}) {
    ASSERT_TRUE(makeTree(Dir + "/r2/" + D));
    copyFile(Dir + "/r1/" + D + "/A.iop", Dir + "/r2/" + D + "/A.iop");
  }
  ASSERT_EQ(0, run({"fill", "A", Blocks, "3", "rdwr", "close"}, disks("r2/d0", "r2/d1", "r2/d2")).ExitCode);
  ASSERT_EQ(0, run({"check", "A", Blocks, "3"}, disks("r2/d0", "r2/d1", "r2/d2")).ExitCode);
  RunResult R = run({"check", "A", Blocks, "1"}, disks("r1/d0", "r2/d1", "r1/d2"));
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': its files hold different committed states")) << R;
}

TEST_F(ApiIntegrity, ACrashAfterAFlushKeepsTheFlushedData) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  ASSERT_EQ(0, run({"fill", "A", Blocks, "2", "rdwr", "flush-crash"}).ExitCode);
  RunResult R = run({"check", "A", Blocks, "2"});
  EXPECT_EQ(0, R.ExitCode) << R;
}

TEST_F(ApiIntegrity, ACrashDuringWriteBacksIsRefusedWithTheWayOut) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  // 24 blocks through 8 frames: 16 write-backs happen before the crash.
  ASSERT_EQ(0, run({"fill", "A", Blocks, "2", "rdwr", "crash"}).ExitCode);
  EXPECT_TRUE(contains(readFile(diskFile(1, "A")).substr(0, 600), "\nstate dirty\n"));
  RunResult R = run({"check", "A", Blocks, "2"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A' was being written when its process stopped")) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly-fsck A --repair")) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly-fsck A --remove")) << R;
  EXPECT_TRUE(contains(R.Out, "IOPOLY_CREATE|IOPOLY_TRUNC")) << R;
  // Starting over from zeros is always possible.
  ASSERT_EQ(0, run({"fill", "A", Blocks, "4", "trunc", "close"}).ExitCode);
  EXPECT_EQ(0, run({"check", "A", Blocks, "4"}).ExitCode);
}

TEST_F(ApiIntegrity, ACrashBeforeAnyWriteBackKeepsTheCommittedData) {
  ASSERT_EQ(0, run({"fill", "A", "6", "1", "trunc", "close"}).ExitCode);
  // 6 blocks fit the buffer: nothing reaches the disk before the crash.
  ASSERT_EQ(0, run({"fill", "A", "6", "2", "rdwr", "crash"}).ExitCode);
  RunResult R = run({"check", "A", "6", "1"});
  EXPECT_EQ(0, R.ExitCode) << R;
}

TEST_F(ApiIntegrity, AnInterruptedCreationIsRefusedThenStartedOver) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  // What a creation killed between its renames leaves: disk 1 not renamed.
  ASSERT_EQ(0, std::rename(diskFile(1, "A").c_str(), (diskFile(1, "A") + ".creating").c_str()));
  RunResult R = run({"check", "A", Blocks, "0"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': its creation was interrupted")) << R;
  EXPECT_TRUE(contains(R.Out, diskFile(1, "A") + ".creating")) << R;
  EXPECT_TRUE(contains(R.Out, "iopoly-fsck A --remove")) << R;
  // IOPOLY_CREATE creates it again (nothing of it was ever committed).
  R = run({"fill", "A", Blocks, "5", "create", "close"});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Err, "array 'A': an interrupted creation was found")) << R;
  EXPECT_EQ(-1, fileSize(diskFile(1, "A") + ".creating"));
  EXPECT_EQ(0, run({"check", "A", Blocks, "5"}).ExitCode);
}

TEST_F(ApiIntegrity, TruncRecoversAnInterruptedCreation) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  for (size_t D = 0; D < 3; ++D)
    ASSERT_EQ(0, std::rename(diskFile(D, "A").c_str(), (diskFile(D, "A") + ".creating").c_str()));
  RunResult R = run({"check", "A", Blocks, "0"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "its creation was interrupted")) << R;
  ASSERT_EQ(0, run({"fill", "A", Blocks, "6", "trunc", "close"}).ExitCode);
  EXPECT_EQ(0, run({"check", "A", Blocks, "6"}).ExitCode);
}

namespace {
void flipByte(const std::string &Path, long Offset) {
  std::fstream F(Path, std::ios::in | std::ios::out | std::ios::binary);
  F.seekg(Offset);
  char C = 0;
  F.read(&C, 1);
  C ^= 0x20;
  F.seekp(Offset);
  F.write(&C, 1);
}
} // namespace

TEST_F(ApiIntegrity, ChecksumsCatchAFlippedByteOnRead) {
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}, {{"IOPOLY_CHECKSUM", "on"}}).ExitCode);
  EXPECT_TRUE(contains(readFile(diskFile(0, "A")).substr(0, 600), "\nchecksums crc32c\n"));
  EXPECT_EQ(8 * 4, fileSize(Dir + "/data/disk1/A.sum")) << "one 4-byte sum per slot";
  EXPECT_EQ(0, run({"check", "A", Blocks, "1"}).ExitCode) << "intact data passes (no variable needed)";
  flipByte(diskFile(1, "A"), 4096 + 4096 + 100); // slot 1 of disk 1: block 4
  RunResult R = run({"check", "A", Blocks, "1"});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "checksum mismatch in block 4 of array 'A' ('" + diskFile(1, "A") + "' at offset 8192)"))
      << R;
}

TEST_F(ApiIntegrity, WithoutChecksumsAFlippedByteIsReadAsData) {
  // The documented default: no per-stripe checksums, nothing to compare.
  ASSERT_EQ(0, run({"fill", "A", Blocks, "1", "trunc", "close"}).ExitCode);
  flipByte(diskFile(1, "A"), 4096 + 4096 + 100);
  RunResult R = run({"check", "A", Blocks, "1"});
  EXPECT_EQ(1, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "mismatch: byte 100 of block 4")) << R;
}
