//===- IOWorkers.cpp - One background I/O thread per disk ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/IOWorkers.h"

#include <pthread.h>
#include <signal.h>

namespace iopoly {

IOWorkers::IOWorkers(size_t NumDisks, bool Inline) : Inline(Inline) {
  for (size_t I = 0; I < NumDisks; ++I)
    Workers.push_back(std::make_unique<Worker>());
}

void IOWorkers::run(Worker &W) {
  std::unique_lock<std::mutex> L(W.Mu);
  while (true) {
    W.CV.wait(L, [&] { return W.Stopping || !W.Queue.empty(); });
    if (W.Queue.empty())
      return; // stopping and drained
    std::function<void()> Job = std::move(W.Queue.front());
    W.Queue.pop_front();
    L.unlock();
    Job();
    L.lock();
  }
}

void IOWorkers::submit(size_t Disk, std::function<void()> Job) {
  bool RunHere = false;
  {
    std::lock_guard<std::mutex> S(StopMu);
    RunHere = Stopped || Inline || (InlineNow && InlineNow());
    if (!RunHere) {
      Worker &W = *Workers[Disk];
      std::lock_guard<std::mutex> L(W.Mu);
      W.Queue.push_back(std::move(Job));
      if (!W.Started) {
        W.Started = true;
        // I/O threads must not take the application's signals.
        sigset_t All, Old;
        sigfillset(&All);
        pthread_sigmask(SIG_SETMASK, &All, &Old);
        W.Thread = std::thread([this, &W] { run(W); });
        pthread_sigmask(SIG_SETMASK, &Old, nullptr);
      }
    }
  }
  if (RunHere)
    Job();
  else
    Workers[Disk]->CV.notify_one();
}

void IOWorkers::stop() {
  {
    std::lock_guard<std::mutex> S(StopMu);
    if (Stopped)
      return;
    Stopped = true;
  }
  for (auto &W : Workers) {
    {
      std::lock_guard<std::mutex> L(W->Mu);
      W->Stopping = true;
    }
    W->CV.notify_one();
  }
  for (auto &W : Workers)
    if (W->Thread.joinable())
      W->Thread.join();
}

} // namespace iopoly
