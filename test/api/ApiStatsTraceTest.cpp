//===- ApiStatsTraceTest.cpp - IOPOLY_STATS JSON and IOPOLY_TRACE files ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A run with known counters (api_helper "stats": 16 blocks on 3 disks
// through 8 frames; 17 fetches of 16 distinct stripes, 8 hits, 8 evictions,
// one write-back) writes a statistics file at exit that parses as JSON and
// holds every field issue 2 lists, with those values, per disk, and the
// configuration in force; and a trace that iopoly-trace reads.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"
#include "MiniJson.h"

using namespace iopoly::test;

class ApiStatsTrace : public ApiTest {};

TEST_F(ApiStatsTrace, StatsFileHasEveryFieldWithTheRunsValues) {
  std::string Path = Dir + "/stats.json";
  RunResult R = run({"stats", "S"}, {{"IOPOLY_STATS", Path}, {"IOPOLY_DISK_MODEL", "ssd"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  EXPECT_TRUE(contains(R.Out, "counters 17 16 8 8 1 69632 4096")) << R;

  std::string Text = readFile(Path);
  JsonValue J;
  JsonReader Reader;
  ASSERT_TRUE(Reader.parse(Text, J)) << Reader.Error << " in " << Text;
  ASSERT_EQ(JsonValue::Object, J.K);
  for (const char *Key : {"stripe_fetches", "distinct_stripes", "fetches_per_block", "buffer_hits", "evictions",
                          "writebacks", "read_bytes", "written_bytes", "io_seconds", "modeled_io_seconds",
                          "faulted_accesses"}) {
    ASSERT_TRUE(J.has(Key)) << Key << " missing in " << Text;
    EXPECT_EQ(JsonValue::Number, J[Key].K) << Key;
  }
  EXPECT_EQ(17, J["stripe_fetches"].N);
  EXPECT_EQ(16, J["distinct_stripes"].N);
  EXPECT_DOUBLE_EQ(17.0 / 16.0, J["fetches_per_block"].N);
  EXPECT_EQ(8, J["buffer_hits"].N);
  EXPECT_EQ(8, J["evictions"].N);
  EXPECT_EQ(1, J["writebacks"].N);
  EXPECT_EQ(17 * 4096, J["read_bytes"].N);
  EXPECT_EQ(4096, J["written_bytes"].N);
  EXPECT_EQ(0, J["faulted_accesses"].N);
  // One unit convention: every field that is a time or a size says so.
  for (const char *Old : {"bytes_read", "bytes_written", "bytes"})
    EXPECT_FALSE(J.has(Old)) << Old << " is the old name";
  EXPECT_GE(J["io_seconds"].N, 0);
  EXPECT_GT(J["modeled_io_seconds"].N, 0) << "the ssd model charges every request";

  // Blocks 0,3,..,15 on disk 0 (6 + block 0 again, plus its write-back),
  // 5 on each other disk.
  const JsonValue &Disks = J["per_disk"];
  ASSERT_EQ(JsonValue::Array, Disks.K) << Text;
  ASSERT_EQ(3u, Disks.Items.size());
  const double Fetches[3] = {7, 5, 5}, Bytes[3] = {8 * 4096, 5 * 4096, 5 * 4096};
  double SumFetches = 0;
  for (size_t D = 0; D < 3; ++D) {
    const JsonValue &O = Disks.Items[D];
    ASSERT_TRUE(O.has("fetches") && O.has("transferred_bytes")) << Text;
    EXPECT_EQ(Fetches[D], O["fetches"].N) << "disk " << D;
    EXPECT_EQ(Bytes[D], O["transferred_bytes"].N) << "disk " << D;
    SumFetches += O["fetches"].N;
  }
  EXPECT_EQ(J["stripe_fetches"].N, SumFetches);

  // per_array: the one array S, with the same numbers as the totals.
  const JsonValue &Arrays = J["per_array"];
  ASSERT_EQ(JsonValue::Array, Arrays.K) << Text;
  ASSERT_EQ(1u, Arrays.Items.size()) << Text;
  const JsonValue &A = Arrays.Items[0];
  EXPECT_EQ("S", A["array"].S);
  EXPECT_EQ(128 * 64 * 8, A["size_bytes"].N);
  EXPECT_EQ(17, A["fetches"].N);
  EXPECT_EQ(16, A["distinct_stripes"].N);
  EXPECT_EQ(8, A["buffer_hits"].N);
  EXPECT_EQ(17 * 4096, A["read_bytes"].N);
  EXPECT_EQ(4096, A["written_bytes"].N);
  EXPECT_EQ(1, A["writebacks"].N);
  EXPECT_EQ(0, A["faulted_accesses"].N);

  const JsonValue &C = J["config"];
  ASSERT_EQ(JsonValue::Object, C.K) << Text;
  EXPECT_EQ(4096, C["stripe_bytes"].N);
  EXPECT_EQ(3, C["num_disks"].N);
  EXPECT_EQ(8, C["buffer_frames"].N);
  EXPECT_EQ(32768, C["buffer_bytes"].N);
  EXPECT_EQ("posix", C["backend"].S);
  EXPECT_EQ("ssd", C["disk_model"]["name"].S);
  EXPECT_TRUE(C["disk_model"].has("latency_seconds")) << Text;
  EXPECT_TRUE(C["disk_model"].has("bandwidth_bytes_per_second")) << Text;
  ASSERT_EQ(3u, C["disks"].Items.size());
  EXPECT_EQ(Dir + "/data/disk2", C["disks"].Items[2].S);
}

TEST_F(ApiStatsTrace, TraceIsReadableByIopolyTrace) {
  std::string Path = Dir + "/trace.bin";
  RunResult R = run({"stats", "T"}, {{"IOPOLY_TRACE", Path}});
  ASSERT_EQ(0, R.ExitCode) << R;

  RunResult Csv = runTool(IOPOLY_TRACE_TOOL, {"--csv", Path});
  ASSERT_EQ(0, Csv.ExitCode) << Csv;
  std::istringstream Lines(Csv.Out);
  std::string Line;
  ASSERT_TRUE(std::getline(Lines, Line));
  EXPECT_EQ("time_s,array,stripe,disk,event,hit,mode", Line);
  unsigned Attaches = 0, Hits = 0, Writes = 0, Evictions = 0, Writebacks = 0;
  while (std::getline(Lines, Line)) {
    EXPECT_TRUE(contains(Line, ",T,")) << Line;
    if (contains(Line, ",attach,")) {
      ++Attaches;
      Hits += contains(Line, ",attach,1,");
      Writes += contains(Line, ",write");
    }
    Evictions += contains(Line, ",evict,");
    Writebacks += contains(Line, ",writeback,");
  }
  EXPECT_EQ(25u, Attaches) << Csv.Out;
  EXPECT_EQ(8u, Hits);
  EXPECT_EQ(1u, Writes);
  EXPECT_EQ(8u, Evictions);
  EXPECT_EQ(1u, Writebacks);

  RunResult Summary = runTool(IOPOLY_TRACE_TOOL, {Path});
  EXPECT_EQ(0, Summary.ExitCode) << Summary;
  EXPECT_TRUE(contains(Summary.Out, "T")) << Summary;

  RunResult Bad = runTool(IOPOLY_TRACE_TOOL, {Dir + "/stdout.txt"});
  EXPECT_EQ(1, Bad.ExitCode) << "a file that is not a trace is refused: " << Bad;
}

TEST_F(ApiStatsTrace, MinTakesABufferInStripesOrAsASize) {
  std::string Path = Dir + "/trace.bin";
  RunResult R = run({"stats", "T"}, {{"IOPOLY_TRACE", Path}});
  ASSERT_EQ(0, R.ExitCode) << R;
  RunResult Count = runTool(IOPOLY_TRACE_TOOL, {"--min", "8", Path});
  ASSERT_EQ(0, Count.ExitCode) << Count;
  EXPECT_TRUE(contains(Count.Out, "{\"frames\": 8,")) << Count;
  // Sizes by the grammar of IOPOLY_BUFFER (common/Sizes.h).
  for (const char *Size : {"32K", "32KiB", "32kb", "32768B"}) {
    RunResult Bytes = runTool(IOPOLY_TRACE_TOOL, {"--min", Size, "--stripe", "4KiB", Path});
    EXPECT_EQ(0, Bytes.ExitCode) << Size << ": " << Bytes;
    EXPECT_EQ(Count.Out, Bytes.Out) << Size;
  }
  for (const char *Bad : {"0K", "32X", "-8"}) {
    RunResult Refused = runTool(IOPOLY_TRACE_TOOL, {"--min", Bad, Path});
    EXPECT_EQ(2, Refused.ExitCode) << Bad << ": " << Refused;
    EXPECT_TRUE(contains(Refused.Err, "invalid buffer")) << Refused;
  }
}
