//===- LayoutTrial.cpp - A file layout judged by the mode's schedule -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LayoutTrial.h"
#include "Analysis/LocalitySets.h"
#include "Support/Options.h"
#include "Support/RemarkOnce.h"

#include "DiskModel.h"
#include "TileChoice.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace iopoly {

namespace {

LayoutTrial *Active = nullptr;

/// A plausible run: stripes of Stripe bytes and a buffer of Fraction of
/// the SCoP's data (0: the buffer the compiler was told to assume).
struct TrialRun {
  uint64_t Stripe;
  double Fraction;
};

/// The runs the layouts are compared on: the stripes of the bench and of
/// parallel file systems' defaults, the assumed one, buffers from 1/2 to
/// 1/64 of the data (or the assumed buffer alone).
std::vector<TrialRun> trialRuns() {
  std::vector<uint64_t> Stripes{4096, 65536};
  if (std::find(Stripes.begin(), Stripes.end(), assumedStripe()) == Stripes.end())
    Stripes.push_back(assumedStripe());
  std::vector<TrialRun> Runs;
  if (assumedBuffer()) {
    Runs.push_back({assumedStripe(), 0});
    return Runs;
  }
  for (uint64_t Stripe : Stripes)
    for (int Log = 1; Log <= 6; ++Log)
      Runs.push_back({Stripe, std::exp2(-Log)});
  return Runs;
}

} // namespace

LayoutTrial *activeLayoutTrial() { return Active; }

LayoutTrialScope::LayoutTrialScope(LayoutTrial &T) : Previous(Active), PreviousSilent(setRemarksSilent(true)) {
  Active = &T;
}
LayoutTrialScope::~LayoutTrialScope() {
  Active = Previous;
  setRemarksSilent(PreviousSilent);
}

namespace {
std::vector<std::string> namesOf(const std::vector<DiskArray> &Arrays) {
  std::vector<std::string> Names;
  for (const DiskArray &A : Arrays)
    Names.push_back(A.Name);
  std::sort(Names.begin(), Names.end()); // the same set in every copy
  return Names;
}
} // namespace

void LayoutTrial::unmodelled(const std::vector<DiskArray> &Arrays) { Scops.push_back({namesOf(Arrays), {}}); }

void LayoutTrial::record(const iopoly_tile_table &T, const std::vector<DiskArray> &Arrays) {
  // clo runs Polly's schedule: its version's estimate, if it has one.
  uint32_t InMemory = T.num_versions;
  for (uint32_t V = 0; V < T.num_versions; ++V)
    if (isInMemoryVersion(T, V))
      InMemory = V;
  if (mode() == Mode::CLO && InMemory == T.num_versions) {
    unmodelled(Arrays);
    return;
  }
  // clo needs its own version's cost only: the others are not replayed.
  std::vector<bool> OnlyInMemory(T.num_versions, false);
  if (InMemory < T.num_versions)
    OnlyInMemory[InMemory] = true;
  std::vector<TrialRun> Runs = trialRuns();
  TrialScop Scop{namesOf(Arrays), std::vector<double>(Runs.size(), 0)};
  uint64_t Data = 0;
  for (const DiskArray &A : Arrays)
    Data += A.Bytes;
  ReplayWalks Walks;
  // Small data: several fractions come to the same buffer (at least 16
  // stripes), replayed once.
  std::map<std::pair<uint64_t, uint64_t>, double> Replays;
  for (size_t R = 0; R < Runs.size(); ++R) {
    uint64_t Stripe = Runs[R].Stripe;
    uint64_t Buffer = Runs[R].Fraction ? static_cast<uint64_t>(static_cast<double>(Data) * Runs[R].Fraction)
                                       : assumedBuffer();
    uint64_t Frames = std::max<uint64_t>(16, Buffer / Stripe);
    auto [It, New] = Replays.insert({{Stripe, Frames}, 0});
    if (New) {
      FetchCost Price = fetchCost(HddLatencySec, HddSeqLatencySec, HddBytesPerSec, Stripe, assumedDisks());
      // Data that fit the buffer: each stripe once, in order, whatever the
      // layout and the order (the replay may count nothing there).
      uint64_t Stripes = iopoly_tile_stripes(Data, Stripe);
      It->second = static_cast<double>(Stripes) * Price.Sequential;
      if (Stripes > Frames) {
        bool Replayed = false;
        std::vector<VersionEstimate> Est = estimateTileVersions(T, Stripe, Frames, Price, Replayed, &Walks,
                                                                mode() == Mode::CLO ? &OnlyInMemory : nullptr);
        uint32_t V = mode() == Mode::CLO ? InMemory : pickTileVersion(T, Stripe, Frames, Est, Replayed);
        if (Est[V].Cost > 0) {
          It->second = Est[V].Cost;
        } else if (!isInMemoryVersion(T, V) || T.versions[V].model_count) {
          // Nothing replayed (no loop nest in its model, or a walk past
          // the replay's budget): no estimate. (Polly's schedule without a
          // model is taken where the data fit: the stripes once.)
          unmodelled(Arrays);
          return;
        }
      }
    }
    Scop.Cost[R] = It->second;
  }
  Scops.push_back(std::move(Scop));
}

namespace {
std::string sizeText(uint64_t Bytes) {
  return Bytes % (1 << 20) == 0 ? std::to_string(Bytes >> 20) + " MiB"
         : Bytes % 1024 == 0    ? std::to_string(Bytes >> 10) + " KiB"
                                : std::to_string(Bytes) + " B";
}
} // namespace

std::string trialRunsText() {
  std::vector<TrialRun> Runs = trialRuns();
  if (Runs.size() == 1 && !Runs[0].Fraction)
    return "1 plausible run: stripes of " + sizeText(Runs[0].Stripe) + ", the assumed buffer of " +
           sizeText(assumedBuffer());
  std::vector<uint64_t> Stripes;
  for (const TrialRun &R : Runs)
    if (std::find(Stripes.begin(), Stripes.end(), R.Stripe) == Stripes.end())
      Stripes.push_back(R.Stripe);
  std::string Text = std::to_string(Runs.size()) + " plausible runs: stripes of ";
  for (size_t I = 0; I < Stripes.size(); ++I)
    Text += (I == 0 ? "" : I + 1 == Stripes.size() ? " and " : ", ") + sizeText(Stripes[I]);
  return Text + ", buffers of 1/2 to 1/64 of the data";
}

std::string trialRunText(unsigned R) {
  std::vector<TrialRun> Runs = trialRuns();
  if (R >= Runs.size())
    return "?";
  const TrialRun &Run = Runs[R];
  if (!Run.Fraction)
    return sizeText(Run.Stripe) + " stripes, the assumed buffer";
  return sizeText(Run.Stripe) + " stripes, a buffer of 1/" + std::to_string(std::lround(1 / Run.Fraction)) +
         " of the data";
}

} // namespace iopoly
