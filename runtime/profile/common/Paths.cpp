//===- Paths.cpp - File names: templates, absolute paths, stores -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "common/Paths.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace iopoly::prof {

std::string hostName() {
  char Buf[256] = {0};
  if (gethostname(Buf, sizeof Buf - 1) != 0)
    return "";
  return Buf;
}

Error expandPattern(const std::string &P, const std::string &What, int Rank, std::string &Out) {
  Out.clear();
  for (size_t I = 0; I < P.size(); ++I) {
    if (P[I] != '%') {
      Out += P[I];
      continue;
    }
    if (I + 1 == P.size())
      return Error(Errc::BadInput, strf("%s='%s': a lone %% at the end (use %%h, %%r, %%p or %%%%)", What.c_str(),
                                        P.c_str()));
    char C = P[++I];
    if (C == 'h')
      Out += hostName();
    else if (C == 'r')
      Out += std::to_string(Rank);
    else if (C == 'p')
      Out += std::to_string(getpid());
    else if (C == '%')
      Out += '%';
    else
      return Error(Errc::BadInput, strf("%s='%s': unknown %%%c (use %%h, %%r, %%p or %%%%)", What.c_str(), P.c_str(),
                                        C));
  }
  return Error();
}

std::string canonicalFile(const std::string &Name) {
  std::string N = Name;
  // ROMIO's file-system prefixes ("ufs:/x", "nfs:/x"): a word before ':' with no '/'.
  size_t Colon = N.find(':');
  if (Colon != std::string::npos && Colon > 1 && N.find('/') > Colon)
    N = N.substr(Colon + 1);
  char Buf[PATH_MAX];
  if (realpath(N.c_str(), Buf))
    return Buf;
  if (N.empty() || N[0] != '/') {
    if (getcwd(Buf, sizeof Buf))
      N = std::string(Buf) + "/" + N;
  }
  // Lexical clean-up of "//", "/./" and "/../".
  std::vector<std::string> Parts;
  size_t I = 0;
  while (I <= N.size()) {
    size_t J = N.find('/', I);
    if (J == std::string::npos)
      J = N.size();
    std::string S = N.substr(I, J - I);
    if (S == "..") {
      if (!Parts.empty())
        Parts.pop_back();
    } else if (!S.empty() && S != ".") {
      Parts.push_back(S);
    }
    I = J + 1;
  }
  std::string Out;
  for (const std::string &S : Parts)
    Out += "/" + S;
  return Out.empty() ? "/" : Out;
}

std::string storeStem(const std::string &Path) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Path) {
    H ^= C;
    H *= 1099511628211ull;
  }
  size_t Slash = Path.rfind('/');
  std::string Base = Slash == std::string::npos ? Path : Path.substr(Slash + 1);
  if (Base.size() > 64)
    Base.resize(64);
  return strf("%s.%016llx", Base.c_str(), static_cast<unsigned long long>(H));
}

Error makeDirs(const std::string &Dir) {
  std::string Cur;
  size_t I = 0;
  while (I <= Dir.size()) {
    size_t J = Dir.find('/', I);
    if (J == std::string::npos)
      J = Dir.size();
    Cur = Dir.substr(0, J);
    if (!Cur.empty() && mkdir(Cur.c_str(), 0755) != 0 && errno != EEXIST)
      return Error(Errc::Io, strf("cannot create the directory '%s': %s", Cur.c_str(), std::strerror(errno)));
    I = J + 1;
  }
  struct stat St;
  if (stat(Dir.c_str(), &St) != 0 || !S_ISDIR(St.st_mode))
    return Error(Errc::Io, strf("'%s' is not a directory", Dir.c_str()));
  return Error();
}

} // namespace iopoly::prof
