//===- ApiTracePlotTest.cpp - iopoly-trace plot draws a run's timeline ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `iopoly-trace plot TRACE -o timeline.png` (issue 9, section 4) turns the
// trace of a run (api_helper's plain code faulting on an array through a
// small buffer) into a PNG; without a Python that has matplotlib it says so
// and fails; a file that is not a trace and a missing -o are errors.
//
//===----------------------------------------------------------------------===//
#include "ApiHarness.h"

#include <cstdlib>

using namespace iopoly::test;

namespace {

bool haveMatplotlib() {
  return std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0 ||
         std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

} // namespace

class ApiTracePlot : public ApiTest {};

TEST_F(ApiTracePlot, DrawsTheTimelineOfARun) {
  std::string Trace = Dir + "/run.trace", Png = Dir + "/timeline.png";
  RunResult R = run({"alloc-plain", "plotted", "262144", "iopoly_free"},
                    {{"IOPOLY_TRACE", Trace}, {"IOPOLY_BUFFER", "64K"}, {"IOPOLY_THRASH", "0"}});
  ASSERT_EQ(0, R.ExitCode) << R;
  RunResult P = runTool(IOPOLY_TRACE_TOOL, {"plot", Trace, "-o", Png, "--title", "alloc-plain"});
  if (!haveMatplotlib()) {
    EXPECT_EQ(1, P.ExitCode) << P;
    EXPECT_TRUE(contains(P.Err, "matplotlib")) << P;
    return;
  }
  ASSERT_EQ(0, P.ExitCode) << P;
  EXPECT_TRUE(contains(P.Out, "wrote " + Png)) << P;
  EXPECT_TRUE(contains(P.Out, "1 arrays")) << P;
  std::string Image = readFile(Png);
  ASSERT_GT(Image.size(), 1000u);
  EXPECT_EQ(std::string("\x89PNG", 4), Image.substr(0, 4));
}

TEST_F(ApiTracePlot, RefusesWhatIsNotATraceAndAMissingOutput) {
  std::string NotTrace = Dir + "/not.trace";
  FILE *F = fopen(NotTrace.c_str(), "w");
  ASSERT_NE(nullptr, F);
  fputs("hello\n", F);
  fclose(F);
  RunResult Bad = runTool(IOPOLY_TRACE_TOOL, {"plot", NotTrace, "-o", Dir + "/x.png"});
  EXPECT_EQ(1, Bad.ExitCode) << Bad;
  EXPECT_TRUE(contains(Bad.Err, "iopoly-trace: ")) << Bad;
  RunResult NoOut = runTool(IOPOLY_TRACE_TOOL, {"plot", NotTrace});
  EXPECT_EQ(2, NoOut.ExitCode) << NoOut;
  EXPECT_TRUE(contains(NoOut.Err, "usage: iopoly-trace plot TRACE -o IMAGE")) << NoOut;
}
