//===- ConfigTest.cpp - IOPOLY_* parsing: values, defaults and errors -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Sizes with K/M/G/T suffixes, durations with units, disk models, the disk
// list or count, and the rule that every malformed IOPOLY_* value is an
// error naming the variable and the value. The environment is injected
// through an EnvLookup over a map, so the process environment is not used.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <unistd.h>

using namespace iopoly;

namespace {

EnvLookup mapEnv(const std::map<std::string, std::string> &Vars) {
  return [Vars](const char *Name, std::string &Value) {
    auto It = Vars.find(Name);
    if (It == Vars.end())
      return false;
    Value = It->second;
    return true;
  };
}

size_t sizeOf(const std::string &Text) {
  size_t N = 0;
  Status S = parseSize(Text, N);
  EXPECT_TRUE(S.ok()) << Text << ": " << S.message();
  return N;
}

} // namespace

TEST(ConfigSize, PlainNumbersAndBinarySuffixes) {
  EXPECT_EQ(4096u, sizeOf("4096"));
  EXPECT_EQ(64u << 10, sizeOf("64K"));
  EXPECT_EQ(64u << 10, sizeOf("64k"));
  EXPECT_EQ(64u << 10, sizeOf("64KB"));
  EXPECT_EQ(64u << 10, sizeOf("64KiB"));
  EXPECT_EQ(1u << 20, sizeOf("1M"));
  EXPECT_EQ(size_t(3) << 30, sizeOf("3G"));
  EXPECT_EQ(size_t(2) << 40, sizeOf("2T"));
  EXPECT_EQ(512u, sizeOf("512B"));
  EXPECT_EQ(8u << 10, sizeOf("  8K  "));
}

TEST(ConfigSize, JunkZeroAndOverflowAreErrorsQuotingTheText) {
  for (const char *Bad : {"", "K", "0", "0K", "-1", "1.5M", "12Q", "64KX", "64 K", "M64",
                          "99999999999999999999", "17179869184G"}) {
    size_t N = 12345;
    Status S = parseSize(Bad, N);
    ASSERT_FALSE(S.ok()) << "'" << Bad << "' was accepted as " << N;
    EXPECT_NE(std::string::npos, S.message().find(std::string("'") + Bad + "'")) << S.message();
    EXPECT_EQ(12345u, N) << "a failed parse must not change the output";
  }
}

TEST(ConfigDuration, UnitsScaleToSeconds) {
  double D = -1;
  ASSERT_TRUE(parseDuration("8ms", D).ok());
  EXPECT_DOUBLE_EQ(8e-3, D);
  ASSERT_TRUE(parseDuration("80us", D).ok());
  EXPECT_DOUBLE_EQ(80e-6, D);
  ASSERT_TRUE(parseDuration("1.5s", D).ok());
  EXPECT_DOUBLE_EQ(1.5, D);
  ASSERT_TRUE(parseDuration("250ns", D).ok());
  EXPECT_DOUBLE_EQ(250e-9, D);
  ASSERT_TRUE(parseDuration("0s", D).ok());
  EXPECT_DOUBLE_EQ(0, D);
}

TEST(ConfigDuration, MissingUnitNegativeAndJunkAreErrors) {
  for (const char *Bad : {"", "8", "8m", "8 ms", "ms", "-1s", "nan", "infs", "1e999s", "fast"}) {
    double D = 0;
    Status S = parseDuration(Bad, D);
    ASSERT_FALSE(S.ok()) << "'" << Bad << "' was accepted as " << D;
    EXPECT_NE(std::string::npos, S.message().find(std::string("'") + Bad + "'")) << S.message();
  }
}

TEST(ConfigDiskModel, NamedModels) {
  DiskModelParams P;
  ASSERT_TRUE(parseDiskModel("none", P).ok());
  EXPECT_FALSE(P.enabled());
  EXPECT_EQ("none", P.Name);

  ASSERT_TRUE(parseDiskModel("hdd", P).ok());
  EXPECT_TRUE(P.enabled());
  EXPECT_EQ("hdd", P.Name);
  EXPECT_GT(P.LatencySec, P.SeqLatencySec) << "a seek costs more than continuing a run";

  ASSERT_TRUE(parseDiskModel("ssd", P).ok());
  EXPECT_EQ("ssd", P.Name);
  EXPECT_LT(P.LatencySec, 1e-3);
}

TEST(ConfigDiskModel, ExplicitLatencyAndBandwidth) {
  DiskModelParams P;
  ASSERT_TRUE(parseDiskModel("latency=8ms,bw=120M", P).ok());
  EXPECT_EQ("custom", P.Name);
  EXPECT_DOUBLE_EQ(8e-3, P.LatencySec);
  EXPECT_DOUBLE_EQ(8e-3, P.SeqLatencySec) << "seq defaults to the random latency";
  EXPECT_DOUBLE_EQ(120.0 * (1 << 20), P.BytesPerSec);

  ASSERT_TRUE(parseDiskModel(" bw=1G , latency=1us , seq=100ns ", P).ok());
  EXPECT_DOUBLE_EQ(1e-6, P.LatencySec);
  EXPECT_DOUBLE_EQ(100e-9, P.SeqLatencySec);
  EXPECT_DOUBLE_EQ(double(1 << 30), P.BytesPerSec);
}

TEST(ConfigDiskModel, IncompleteOrUnknownSpecsAreErrors) {
  for (const char *Bad : {"", "floppy", "latency=8ms", "bw=1M", "latency=8,bw=1M", "latency=8ms,bw=fast",
                          "latency=8ms,bw=1M,rpm=7200", "latency=8ms,bw=0", "latency:8ms,bw=1M"}) {
    DiskModelParams P;
    P.Name = "untouched";
    Status S = parseDiskModel(Bad, P);
    ASSERT_FALSE(S.ok()) << "'" << Bad << "' was accepted";
    EXPECT_EQ("untouched", P.Name) << Bad;
  }
}

TEST(ConfigParse, DefaultsWithAnEmptyEnvironment) {
  Config C;
  ASSERT_TRUE(parseConfig(mapEnv({}), C).ok());
  EXPECT_EQ("./iopoly-data", C.Dir);
  ASSERT_EQ(8u, C.numDisks());
  EXPECT_EQ("./iopoly-data/disk0", C.DiskDirs[0]);
  EXPECT_EQ("./iopoly-data/disk7", C.DiskDirs[7]);
  EXPECT_EQ(64u << 10, C.StripeSize);
  EXPECT_EQ(64u << 20, C.BufferBytes);
  EXPECT_EQ(1024u, C.bufferFrames());
  EXPECT_EQ("posix", C.Backend);
  EXPECT_EQ(DirectIO::Auto, C.Direct);
  EXPECT_EQ("hdd", C.Model.Name);
  EXPECT_FALSE(C.ModelWait);
  EXPECT_TRUE(C.Prefetch);
  EXPECT_EQ(3u, C.IoRetries);
  EXPECT_TRUE(C.StatsPath.empty());
  EXPECT_TRUE(C.TracePath.empty());
}

TEST(ConfigParse, EveryVariableIsApplied) {
  Config C;
  Status S = parseConfig(mapEnv({{"IOPOLY_DIR", "/data"},
                                 {"IOPOLY_DISKS", "3"},
                                 {"IOPOLY_STRIPE", "4K"},
                                 {"IOPOLY_BUFFER", "1M"},
                                 {"IOPOLY_BACKEND", "mpiio"},
                                 {"IOPOLY_DIRECT", "off"},
                                 {"IOPOLY_DISK_MODEL", "ssd"},
                                 {"IOPOLY_MODEL_WAIT", "1"},
                                 {"IOPOLY_STATS", "s.json"},
                                 {"IOPOLY_TRACE", "t.bin"},
                                 {"IOPOLY_IO_RETRIES", "0"},
                                 {"IOPOLY_PREFETCH", "off"},
                                 {"IOPOLY_VERBOSE", "yes"},
                                 {"IOPOLY_MPIIO_MODULE", "/x/libm.so"}}),
                         C);
  ASSERT_TRUE(S.ok()) << S.message();
  EXPECT_EQ("/data", C.Dir);
  EXPECT_EQ((std::vector<std::string>{"/data/disk0", "/data/disk1", "/data/disk2"}), C.DiskDirs);
  EXPECT_EQ(4096u, C.StripeSize);
  EXPECT_EQ(256u, C.bufferFrames());
  EXPECT_EQ("mpiio", C.Backend);
  EXPECT_EQ(DirectIO::Off, C.Direct);
  EXPECT_EQ("ssd", C.Model.Name);
  EXPECT_TRUE(C.ModelWait);
  EXPECT_EQ("s.json", C.StatsPath);
  EXPECT_EQ("t.bin", C.TracePath);
  EXPECT_EQ(0u, C.IoRetries);
  EXPECT_FALSE(C.Prefetch);
  EXPECT_TRUE(C.Verbose);
  EXPECT_EQ("/x/libm.so", C.MpiioModule);
}

TEST(ConfigDisks, CountMakesSubdirectoriesOfTheBaseDirectory) {
  Config C;
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DIR", "base"}, {"IOPOLY_DISKS", "2"}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{"base/disk0", "base/disk1"}), C.DiskDirs);
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DIR", "base"}, {"IOPOLY_DISKS", " 2 "}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{"base/disk0", "base/disk1"}), C.DiskDirs)
      << "a count with blanks around it is still a count, not a directory named ' 2 '";
}

TEST(ConfigDisks, CommaListNamesTheDirectoriesInOrder) {
  Config C;
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DIR", "ignored"}, {"IOPOLY_DISKS", "/mnt/a, /mnt/b,/mnt/c"}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{"/mnt/a", "/mnt/b", "/mnt/c"}), C.DiskDirs);
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DISKS", "/only"}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{"/only"}), C.DiskDirs) << "one directory is a list of one";
}

TEST(ConfigDisks, RankHostAndPidCodesMakeNodeLocalDirectories) {
  char Host[256] = "host";
  ::gethostname(Host, sizeof Host - 1);
  std::string Pid = std::to_string(::getpid());
  Config C;
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DIR", "d/r%r"}, {"IOPOLY_DISKS", "2"}, {"OMPI_COMM_WORLD_RANK", "3"}}), C)
                  .ok());
  EXPECT_EQ((std::vector<std::string>{"d/r3/disk0", "d/r3/disk1"}), C.DiskDirs);
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DISKS", "/s/%h/a,/s/%r-%p/b,/x/100%%"}, {"PMI_RANK", "7"}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{std::string("/s/") + Host + "/a", "/s/7-" + Pid + "/b", "/x/100%"}),
            C.DiskDirs);
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DIR", "d/%r"}, {"IOPOLY_DISKS", "1"}}), C).ok());
  EXPECT_EQ((std::vector<std::string>{"d/0/disk0"}), C.DiskDirs) << "outside MPI the rank is 0";
  EXPECT_EQ("d/%r", C.Dir) << "the setting as given is kept for the statistics";
}

TEST(ConfigDisks, UnknownPercentCodesAreErrorsNamingTheCode) {
  Config C;
  Status S = parseConfig(mapEnv({{"IOPOLY_DIR", "d/%q"}}), C);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_DIR=d/%q")) << S.message();
  EXPECT_NE(std::string::npos, S.message().find("'%q'")) << S.message();
  S = parseConfig(mapEnv({{"IOPOLY_DISKS", "/a,/b%"}}), C);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_DISKS=/a,/b%")) << S.message();
}

// Every variable that can be malformed, with values that are. A variable
// added to the table without a line here makes the next test fail.
struct BadValue {
  const char *Var;
  const char *Value;
};
const BadValue BadValues[] = {
    {"IOPOLY_DIR", ""},
    {"IOPOLY_DIR", "d/%x"},
    {"IOPOLY_DISKS", "0"},
    {"IOPOLY_DISKS", "4097"},
    {"IOPOLY_DISKS", "a,,b"},
    {"IOPOLY_DISKS", ""},
    {"IOPOLY_DISKS", ","},
    {"IOPOLY_STRIPE", "12Q"},
    {"IOPOLY_STRIPE", "0"},
    {"IOPOLY_STRIPE", "32"},
    {"IOPOLY_STRIPE", "1000"},
    {"IOPOLY_STRIPE", ""},
    {"IOPOLY_BUFFER", "lots"},
    {"IOPOLY_BUFFER", "0"},
    {"IOPOLY_BUFFER", "-4M"},
    {"IOPOLY_BACKEND", "hdf5"},
    {"IOPOLY_BACKEND", ""},
    {"IOPOLY_DIRECT", "maybe"},
    {"IOPOLY_DISK_MODEL", "tape"},
    {"IOPOLY_DISK_MODEL", "latency=1ms"},
    {"IOPOLY_MODEL_WAIT", "2"},
    {"IOPOLY_IO_RETRIES", "-1"},
    {"IOPOLY_IO_RETRIES", "many"},
    {"IOPOLY_IO_RETRIES", "1001"},
    {"IOPOLY_IO_RETRIES", "99999999999999999999999"},
    {"IOPOLY_PREFETCH", "sometimes"},
    {"IOPOLY_WRITE_BEHIND", "later"},
    {"IOPOLY_VERBOSE", "loud"},
    {"IOPOLY_CHECKSUM", "sha256"},
    {"IOPOLY_MPIIO_HINTS", "striping_unit"},
    {"IOPOLY_MPIIO_HINTS", "a=1,=2"},
    {"IOPOLY_FAULTS", "sometimes"},
    {"IOPOLY_FAULTS", ""},
    {"IOPOLY_PROGRESS", "fast"},
    {"IOPOLY_PROGRESS", "1ms"},
    {"IOPOLY_THRASH", "-1"},
    {"IOPOLY_THRASH", "many"},
    {"IOPOLY_THREADS", "0"},
    {"IOPOLY_THREADS", "many"},
    {"IOPOLY_THREADS", "4x"},
    {"IOPOLY_THREADS", "2000"},
    {"IOPOLY_SCHED", "greedy"},
    {"IOPOLY_TOPOLOGY", ""},
    {"IOPOLY_CACHE_SERVERS", "maybe"},
};
// Variables whose every value is acceptable (paths).
const std::set<std::string> FreeForm = {"IOPOLY_STATS", "IOPOLY_TRACE", "IOPOLY_LAYOUT_PROFILE", "IOPOLY_MPIIO_MODULE", "IOPOLY_CACHESERVER"};

TEST(ConfigErrors, EveryMalformedValueNamesTheVariableAndTheValue) {
  for (const BadValue &B : BadValues) {
    Config C;
    Status S = parseConfig(mapEnv({{B.Var, B.Value}}), C);
    ASSERT_FALSE(S.ok()) << B.Var << "=" << B.Value << " was accepted";
    std::string Want = std::string(B.Var) + "=" + B.Value;
    EXPECT_NE(std::string::npos, S.message().find(Want)) << "message: " << S.message();
  }
}

TEST(ConfigErrors, EveryDocumentedVariableHasAMalformedValueTested) {
  std::set<std::string> Tested;
  for (const BadValue &B : BadValues)
    Tested.insert(B.Var);
  std::set<std::string> Names;
  for (const EnvVarDoc &D : envVarDocs()) {
    EXPECT_EQ(0, std::string(D.Name).rfind("IOPOLY_", 0)) << D.Name;
    EXPECT_TRUE(Names.insert(D.Name).second) << "documented twice: " << D.Name;
    EXPECT_TRUE(Tested.count(D.Name) || FreeForm.count(D.Name)) << D.Name << " has no malformed value in this test";
    EXPECT_NE(nullptr, D.Meaning);
  }
  for (const std::string &T : Tested)
    EXPECT_TRUE(Names.count(T)) << T << " is tested but not documented";
}

TEST(ConfigErrors, BufferSmallerThanOneStripeNamesBothValues) {
  Config C;
  Status S = parseConfig(mapEnv({{"IOPOLY_STRIPE", "64K"}, {"IOPOLY_BUFFER", "32K"}}), C);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_BUFFER=32K (32768 bytes)")) << S.message();
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_STRIPE=64K, 65536 bytes")) << S.message();
  S = parseConfig(mapEnv({{"IOPOLY_BUFFER", "4K"}}), C);
  EXPECT_NE(std::string::npos, S.message().find("IOPOLY_STRIPE=64K")) << "the default is named: " << S.message();
}

TEST(ConfigJson, ConfigurationObjectListsTheSettingsInForce) {
  Config C;
  ASSERT_TRUE(parseConfig(mapEnv({{"IOPOLY_DISKS", "/a,/b"}, {"IOPOLY_STRIPE", "8K"}}), C).ok());
  std::string J = C.toJSON();
  for (const char *Key : {"\"dir\":", "\"disks\":[\"/a\",\"/b\"]", "\"num_disks\":2", "\"stripe_bytes\":8192",
                          "\"buffer_bytes\":67108864", "\"buffer_frames\":8192", "\"backend\":\"posix\"",
                          "\"direct\":\"auto\"", "\"disk_model\":{\"name\":\"hdd\"", "\"model_wait\":false",
                          "\"prefetch\":true", "\"io_retries\":3"})
    EXPECT_NE(std::string::npos, J.find(Key)) << Key << " missing in " << J;
  EXPECT_EQ('{', J.front());
  EXPECT_EQ('}', J.back());
}
