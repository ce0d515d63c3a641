//===- LayoutProfile.cpp - Counts of an instrumented run -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/LayoutProfile.h"
#include "iopoly/abi.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

using namespace llvm;

namespace iopoly {

std::string profileField(StringRef S) {
  if (S.empty())
    return "-";
  std::string R = S.str();
  for (char &C : R)
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r')
      C = '?';
  return R;
}

std::vector<const LayoutProfileSite *> LayoutProfile::sitesOf(StringRef Unit, StringRef Array) const {
  std::vector<const LayoutProfileSite *> R;
  for (const LayoutProfileSite &S : Sites)
    if (S.Unit == Unit && S.Array == Array)
      R.push_back(&S);
  if (!R.empty())
    return R;
  StringRef Name = sys::path::filename(Unit);
  StringSet<> Units;
  for (const LayoutProfileSite &S : Sites)
    if (sys::path::filename(S.Unit) == Name)
      Units.insert(S.Unit);
  if (Units.size() != 1)
    return R;
  StringRef Only = Units.begin()->getKey();
  for (const LayoutProfileSite &S : Sites)
    if (S.Unit == Only && S.Array == Array)
      R.push_back(&S);
  return R;
}

std::string parseLayoutProfile(StringRef Text, StringRef Path, LayoutProfile &Out) {
  Out.Path = Path.str();
  Out.Sites.clear();
  SmallVector<StringRef, 64> Lines;
  Text.split(Lines, '\n');
  bool Header = false;
  std::map<std::tuple<std::string, std::string, std::string, unsigned>, unsigned> Seen;
  for (unsigned N = 0; N < Lines.size(); ++N) {
    StringRef L = Lines[N].trim();
    auto Err = [&](const Twine &What) { return (Path + ":" + Twine(N + 1) + ": " + What).str(); };
    if (L.empty() || L.starts_with("#"))
      continue;
    if (!Header) {
      if (L != IOPOLY_LAYOUT_PROFILE_HEADER)
        return Err("not an iopoly layout profile (the first line must be '" IOPOLY_LAYOUT_PROFILE_HEADER "')");
      Header = true;
      continue;
    }
    std::string Blanks = L.str();
    std::replace(Blanks.begin(), Blanks.end(), '\t', ' ');
    SmallVector<StringRef, 8> F;
    StringRef(Blanks).split(F, ' ', -1, /*KeepEmpty=*/false);
    if (F.size() != 7)
      return Err("expected 7 fields 'unit array function site kind count where', found " + Twine(F.size()));
    LayoutProfileSite S;
    S.Unit = F[0].str();
    S.Array = F[1].str();
    S.Function = F[2].str();
    if (F[3].getAsInteger(10, S.Site))
      return Err("site '" + F[3] + "' is not a number");
    if (F[4] != "load" && F[4] != "store")
      return Err("kind '" + F[4] + "' is not load or store");
    S.Store = F[4] == "store";
    if (F[5].getAsInteger(10, S.Count))
      return Err("count '" + F[5] + "' is not a number");
    S.Where = F[6].str();
    auto [It, New] = Seen.emplace(std::make_tuple(S.Unit, S.Array, S.Function, S.Site), N + 1);
    if (!New)
      return Err("site " + Twine(S.Site) + " of '" + S.Array + "' in '" + S.Function + "' (" + S.Unit +
                 ") is listed twice (also on line " + Twine(It->second) + ")");
    Out.Sites.push_back(std::move(S));
  }
  if (!Header)
    return (Path + ": empty: not an iopoly layout profile").str();
  return "";
}

std::string loadLayoutProfile(const std::string &Path, const LayoutProfile *&Out) {
  static std::map<std::string, std::pair<std::unique_ptr<LayoutProfile>, std::string>> Cache;
  auto It = Cache.find(Path);
  if (It == Cache.end()) {
    auto P = std::make_unique<LayoutProfile>();
    std::string E;
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path, /*IsText=*/true);
    if (!B)
      E = "cannot read the layout profile '" + Path + "': " + B.getError().message();
    else
      E = parseLayoutProfile((*B)->getBuffer(), Path, *P);
    It = Cache.emplace(Path, std::make_pair(std::move(P), E)).first;
  }
  Out = It->second.second.empty() ? It->second.first.get() : nullptr;
  return It->second.second;
}

} // namespace iopoly
