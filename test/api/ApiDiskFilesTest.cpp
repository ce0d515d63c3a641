//===- ApiDiskFilesTest.cpp - Missing, short, oversized and unwritable ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Damaged or missing disk files and disk directories that cannot hold files
// make iopoly_open fail with a message naming the array and the file or
// directory, and nothing is created or modified by the failed open.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

#include <fstream>

using namespace iopoly::test;

class ApiDiskFiles : public ApiTest {
protected:
  void writeA() {
    RunResult W = run({"write", "A", "100", "77", "9", "close"});
    ASSERT_EQ(0, W.ExitCode) << W;
  }
  RunResult openA(const char *Flags = "ro") { return run({"open", "A", "8", "100", "77", "rm", Flags}); }
};

TEST_F(ApiDiskFiles, MissingArrayNamesTheFileItLookedFor) {
  RunResult R = openA("ro");
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A' does not exist: no file '" + diskFile(0, "A") + "'")) << R;
  EXPECT_TRUE(contains(R.Out, "IOPOLY_CREATE")) << R;
  R = openA("rw");
  EXPECT_EQ(3, R.ExitCode) << R;
}

TEST_F(ApiDiskFiles, MissingDiskFileNamesIt) {
  writeA();
  long long Size0 = fileSize(diskFile(0, "A"));
  ASSERT_EQ(0, std::remove(diskFile(1, "A").c_str()));
  for (const char *Flags : {"ro", "rw", "create"}) {
    RunResult R = openA(Flags);
    ASSERT_EQ(3, R.ExitCode) << Flags << ": " << R;
    EXPECT_TRUE(contains(R.Out, "array 'A' is incomplete: '" + diskFile(1, "A") +
                                    "' is missing while 2 of its 3 disk files exist"))
        << R;
  }
  EXPECT_EQ(-1, fileSize(diskFile(1, "A"))) << "not recreated";
  EXPECT_EQ(Size0, fileSize(diskFile(0, "A"))) << "the other files are untouched";
}

TEST_F(ApiDiskFiles, ShortFileNamesBothSizes) {
  writeA();
  long long Size = fileSize(diskFile(2, "A"));
  ASSERT_EQ(0, ::truncate(diskFile(2, "A").c_str(), Size - 4096));
  RunResult R = openA("rw");
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': file '" + diskFile(2, "A") + "' is " + std::to_string(Size - 4096) +
                                  " bytes, expected " + std::to_string(Size) + " (short file: data is missing)"))
      << R;
  EXPECT_EQ(Size - 4096, fileSize(diskFile(2, "A"))) << "not repaired behind the user's back";
}

TEST_F(ApiDiskFiles, OversizedFileNamesBothSizes) {
  writeA();
  long long Size = fileSize(diskFile(0, "A"));
  std::ofstream(diskFile(0, "A"), std::ios::app | std::ios::binary) << "x";
  RunResult R = openA("ro");
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "file '" + diskFile(0, "A") + "' is " + std::to_string(Size + 1) + " bytes, expected " +
                                  std::to_string(Size) + " (oversized file)"))
      << R;
}

TEST_F(ApiDiskFiles, FileShorterThanItsHeaderIsNamed) {
  writeA();
  ASSERT_EQ(0, ::truncate(diskFile(1, "A").c_str(), 100));
  RunResult R = openA("ro");
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "file '" + diskFile(1, "A") + "' is 100 bytes, shorter than its 4096-byte header")) << R;
}

TEST_F(ApiDiskFiles, ForeignFileIsNotTakenForAnArray) {
  writeA();
  {
    std::fstream F(diskFile(0, "A"), std::ios::in | std::ios::out | std::ios::binary);
    F << "#!/bin/sh\n";
  }
  RunResult R = openA("rw");
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "file '" + diskFile(0, "A") + "': not an iopoly array file (bad magic)")) << R;
}

TEST_F(ApiDiskFiles, DiskDirectoryUnderARegularFileIsReported) {
  std::string Plain = Dir + "/plain";
  std::ofstream(Plain) << "not a directory\n";
  RunResult R = run({"open", "A", "8", "10", "10", "rm", "create"},
                    {{"IOPOLY_DISKS", Plain + "/d0," + Plain + "/d1"}});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': disk 0: cannot create directory '" + Plain + "/d0': Not a directory")) << R;
}

TEST_F(ApiDiskFiles, DiskDirectoryThatIsAFileIsReported) {
  std::string Plain = Dir + "/plain";
  std::ofstream(Plain) << "not a directory\n";
  RunResult R = run({"open", "A", "8", "10", "10", "rm", "create"}, {{"IOPOLY_DISKS", Dir + "/ok," + Plain}});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "array 'A': disk 1: '" + Plain + "' is not a directory")) << R;
  EXPECT_EQ(-1, fileSize(Dir + "/ok/A.iop")) << "no partial array is left behind";
  // The same through IOPOLY_DIR with a disk count.
  R = run({"open", "A", "8", "10", "10", "rm", "create"}, {{"IOPOLY_DIR", Plain}, {"IOPOLY_DISKS", "2"}});
  ASSERT_EQ(3, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "cannot create directory '" + Plain + "/disk0'")) << R;
}
