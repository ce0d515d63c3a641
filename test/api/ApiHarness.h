//===- ApiHarness.h - Runs api_helper in a subprocess with its own env ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime reads IOPOLY_* once per process, so the C API tests run the
// api_helper program (api_helper.c) with an environment of their own: the
// inherited one without any IOPOLY_* variable, plus the test's settings. Each
// test gets a fresh directory under the build tree (IOPOLY_TEST_TMP/api/
// <suite>.<test>), emptied when the test starts and left for inspection.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_APIHARNESS_H
#define IOPOLY_TEST_APIHARNESS_H

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <ftw.h>
#include <map>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace iopoly {
namespace test {

struct RunResult {
  int ExitCode = -1; ///< -1 when killed by a signal
  int Signal = 0;
  std::string Out, Err;
};

inline std::ostream &operator<<(std::ostream &OS, const RunResult &R) {
  return OS << "exit " << R.ExitCode << " signal " << R.Signal << "\n--- stdout:\n"
            << R.Out << "--- stderr:\n"
            << R.Err;
}

inline std::string readFile(const std::string &Path) {
  std::ifstream F(Path, std::ios::binary);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

inline void removeTree(const std::string &Path) {
  ::nftw(Path.c_str(), [](const char *P, const struct stat *, int, struct FTW *) { return std::remove(P); }, 16,
         FTW_DEPTH | FTW_PHYS);
}

inline bool makeTree(const std::string &Path) {
  for (size_t Pos = 1; Pos != std::string::npos;) {
    Pos = Path.find('/', Pos + 1);
    std::string Cur = Path.substr(0, Pos);
    if (::mkdir(Cur.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

inline long long fileSize(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 ? static_cast<long long>(St.st_size) : -1;
}

class ApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *I = ::testing::UnitTest::GetInstance()->current_test_info();
    Dir = std::string(IOPOLY_TEST_TMP) + "/api/" + I->test_suite_name() + "." + I->name();
    removeTree(Dir);
    ASSERT_TRUE(makeTree(Dir)) << Dir;
    // Small and fast: 3 disks, 4 KiB stripes, 8 frames, no disk model.
    Env = {{"IOPOLY_DIR", Dir + "/data"},
           {"IOPOLY_DISKS", "3"},
           {"IOPOLY_STRIPE", "4096"},
           {"IOPOLY_BUFFER", "32K"},
           {"IOPOLY_DISK_MODEL", "none"}};
  }

  /// Runs api_helper with \p Args; \p Extra overrides or adds variables
  /// (an empty value is passed as empty, "<unset>" removes the variable).
  RunResult run(const std::vector<std::string> &Args, const std::map<std::string, std::string> &Extra = {}) {
    std::map<std::string, std::string> Vars = Env;
    for (const auto &KV : Extra)
      Vars[KV.first] = KV.second;
    std::vector<std::string> EnvStrings;
    for (char **E = environ; *E; ++E)
      if (std::strncmp(*E, "IOPOLY_", 7) != 0)
        EnvStrings.push_back(*E);
    for (const auto &KV : Vars)
      if (KV.second != "<unset>")
        EnvStrings.push_back(KV.first + "=" + KV.second);
    return spawn(IOPOLY_API_HELPER, Args, EnvStrings);
  }

  /// Runs any program with the inherited environment.
  RunResult runTool(const std::string &Program, const std::vector<std::string> &Args) {
    std::vector<std::string> EnvStrings;
    for (char **E = environ; *E; ++E)
      EnvStrings.push_back(*E);
    return spawn(Program, Args, EnvStrings);
  }

  std::string diskFile(size_t Disk, const std::string &Name) const {
    return Dir + "/data/disk" + std::to_string(Disk) + "/" + Name + ".iop";
  }

  std::string Dir;
  std::map<std::string, std::string> Env;

private:
  RunResult spawn(const std::string &Program, const std::vector<std::string> &Args,
                  const std::vector<std::string> &EnvStrings) {
    RunResult R;
    std::string OutPath = Dir + "/stdout.txt", ErrPath = Dir + "/stderr.txt";
    std::vector<char *> Argv{const_cast<char *>(Program.c_str())};
    for (const std::string &A : Args)
      Argv.push_back(const_cast<char *>(A.c_str()));
    Argv.push_back(nullptr);
    std::vector<char *> Envp;
    for (const std::string &E : EnvStrings)
      Envp.push_back(const_cast<char *>(E.c_str()));
    Envp.push_back(nullptr);
    posix_spawn_file_actions_t Actions;
    posix_spawn_file_actions_init(&Actions);
    posix_spawn_file_actions_addopen(&Actions, 1, OutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&Actions, 2, ErrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&Actions, Dir.c_str());
    pid_t Pid;
    int E = posix_spawn(&Pid, Program.c_str(), &Actions, nullptr, Argv.data(), Envp.data());
    posix_spawn_file_actions_destroy(&Actions);
    if (E != 0) {
      R.Err = std::string("posix_spawn failed: ") + std::strerror(E);
      return R;
    }
    int WS = 0;
    while (::waitpid(Pid, &WS, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(WS))
      R.ExitCode = WEXITSTATUS(WS);
    else if (WIFSIGNALED(WS))
      R.Signal = WTERMSIG(WS);
    R.Out = readFile(OutPath);
    R.Err = readFile(ErrPath);
    return R;
  }
};

inline bool contains(const std::string &S, const std::string &Part) { return S.find(Part) != std::string::npos; }

} // namespace test
} // namespace iopoly

#endif
