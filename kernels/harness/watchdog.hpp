// A per-scenario watchdog inside the runner: a kernel that never ends blocks the main thread in
// a synchronisation forever, so another thread prints `fatal` naming the scenario and ends the
// process (the driver then tears the context down). The host keeps its own watchdog as well.
#pragma once

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "emitter.hpp"

namespace socratic::harness {

class Watchdog {
 public:
  /// Exit status when the watchdog fires.
  static constexpr int exit_code = 4;

  explicit Watchdog(Emitter& emit) : emit_(emit), thread_([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// Starts watching `scenario` for `seconds` (0 disables).
  void arm(const std::string& scenario, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    scenario_ = scenario;
    seconds_ = seconds;
    armed_ = seconds > 0;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(seconds > 0 ? seconds : 0));
    wake_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    wake_.notify_all();
  }

 private:
  void loop() {
    pthread_setname_np(pthread_self(), "socratic-watch");
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      if (!armed_) {
        wake_.wait(lock);
        continue;
      }
      if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stop_ &&
          std::chrono::steady_clock::now() >= deadline_) {
        emit_.fatal("scenario \"" + scenario_ + "\": watchdog: no progress after " +
                    std::to_string(seconds_) + " s (a kernel that never ends?); runner exits");
        std::fflush(nullptr);
        _exit(exit_code);
      }
    }
  }

  Emitter& emit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool armed_ = false;
  std::string scenario_;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_{};
  std::thread thread_;  // last: starts after the members it reads are ready
};

}  // namespace socratic::harness
