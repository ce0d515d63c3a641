//===- LayoutTrialTest.cpp - Two copies of a module compared ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LayoutTrial.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace iopoly;

// Three plausible runs; the candidate's SCoP on A costs half of row-major's
// on two runs and 1.5x on the third. A SCoP on no disk-resident array
// (costless in both) does not count.
TEST(LayoutTrial, ComparesRunByRunOverTheScopsOnDiskArrays) {
  LayoutTrial Cand, Row;
  Cand.Scops = {{{"A", "B"}, {1, 2, 6}}, {{}, {}}};
  Row.Scops = {{{"A", "B"}, {2, 4, 4}}, {{}, {}}};
  TrialVerdict V = compareTrials(Cand, Row);
  ASSERT_TRUE(V.Comparable);
  EXPECT_DOUBLE_EQ(1.5, V.Worst);
  EXPECT_EQ(2u, V.WorstRun);
  EXPECT_NEAR(std::cbrt(0.5 * 0.5 * 1.5), V.Mean, 1e-12);
}

// Costs are summed over the SCoPs before the ratio: a loss in a cheap SCoP
// is weighed against a gain in an expensive one.
TEST(LayoutTrial, SumsTheScopsOfOneRun) {
  LayoutTrial Cand, Row;
  Cand.Scops = {{{"A"}, {10}}, {{"A", "B"}, {3}}};
  Row.Scops = {{{"A"}, {5}}, {{"A", "B"}, {100}}};
  TrialVerdict V = compareTrials(Cand, Row);
  ASSERT_TRUE(V.Comparable);
  EXPECT_DOUBLE_EQ(13.0 / 105.0, V.Worst);
}

// No comparison: a SCoP on the arrays without a model, SCoPs that differ
// (the layout changed what Polly models), a copy that failed to compile.
TEST(LayoutTrial, RefusesWhatItCannotCompare) {
  LayoutTrial Cand, Row;
  Cand.Scops = {{{"A"}, {1, 1}}, {{"B"}, {}}};
  Row.Scops = {{{"A"}, {2, 2}}, {{"B"}, {}}};
  EXPECT_FALSE(compareTrials(Cand, Row).Comparable);
  Cand.Scops = {{{"A"}, {1, 1}}};
  Row.Scops = {{{"A"}, {2, 2}}, {{"B"}, {3, 3}}};
  EXPECT_FALSE(compareTrials(Cand, Row).Comparable);
  Row.Scops = {{{"B"}, {2, 2}}};
  EXPECT_FALSE(compareTrials(Cand, Row).Comparable);
  Row.Scops = {{{"A"}, {2, 2}}};
  EXPECT_TRUE(compareTrials(Cand, Row).Comparable);
  Cand.Failed = true;
  EXPECT_FALSE(compareTrials(Cand, Row).Comparable);
  LayoutTrial Empty;
  EXPECT_FALSE(compareTrials(Empty, Empty).Comparable);
}
