#pragma once
// Ctrl-C during `socratic run`: say what the campaign kept and how to take it up again, then end
// the way the signal would have (its children die with the process: detail/child.hpp).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"

namespace socratic::tool {

/// What an interrupted campaign kept (its trace, the evaluated versions, the best one, the
/// workspace) and the command that resumes it; `signal_name` says what stopped it.
inline std::string interruption_notice(const std::string& signal_name, const std::filesystem::path& trace,
                                       const std::filesystem::path& workspace, const std::string& resume_command) {
  std::string out = "\nsocratic run: stopped by " + signal_name + ". Kept:\n";
  TraceSummary s;
  bool readable = false;
  try {
    if (std::filesystem::exists(trace)) {
      s = summarize_trace(read_trace(trace).events);
      readable = true;
    }
  } catch (const std::exception& e) {
    out += "  (the trace could not be read: " + std::string(e.what()) + ")\n";
  }
  out += "  trace      " + trace.string();
  if (readable) {
    const int whole = s.state.spent.turns - static_cast<int>(s.open_turns.size());
    out += " (" + std::to_string(whole) + " whole turn" + (whole == 1 ? "" : "s") + ", " +
           std::to_string(s.state.evaluations.size()) + " evaluation" + (s.state.evaluations.size() == 1 ? "" : "s") + ")";
  }
  out += "\n  versions   " + (trace.parent_path() / "candidates").string() + " (every evaluated candidate, by its SHA-256)\n";
  if (readable) {
    if (const EvaluationRecord* best = s.state.best()) {
      char score[32];
      std::snprintf(score, sizeof score, "%.3f", best->score());
      out += "  best       evaluation #" + std::to_string(best->index) + ", geomean speedup " + score + ", sha256 " +
             best->candidate_hash.substr(0, 12) + "\n";
    }
  }
  out += "  workspace  " + workspace.string() + " (as the agent left it)\n";
  for (const auto& t : s.open_turns)
    out += "Turn " + std::to_string(t.turn) + (t.agent.empty() ? "" : " of agent " + t.agent) +
           " was cut off: resumed, the agent starts a new conversation with what was achieved, and the cut turn does "
           "not count against the turn budget (its tokens and cost do).\n";
  out += "Resume with:\n  " + resume_command + "\n";
  return out;
}

namespace detail {
inline int interrupt_pipe_writer = -1;
inline void on_interrupt_signal(int sig) {
  const char byte = static_cast<char>(sig);
  (void)!::write(interrupt_pipe_writer, &byte, 1);  // async-signal-safe; the watcher does the rest
}
}  // namespace detail

/// While alive: SIGINT (Ctrl-C) or SIGTERM prints `notice()` on stderr, then ends the process
/// with that signal (exit status 130 or 143 to a shell). The handler only writes a byte to a
/// pipe; a watcher thread reads the trace and prints, outside the signal's context. One at a time.
class interrupt_notice_on_signal {
 public:
  explicit interrupt_notice_on_signal(std::function<std::string(int)> notice) : notice_(std::move(notice)) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no notice; the signals keep their defaults
    reader_ = fds[0];
    detail::interrupt_pipe_writer = fds[1];
    watcher_ = std::thread([this] { watch(); });
    struct sigaction sa {};
    sa.sa_handler = detail::on_interrupt_signal;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  interrupt_notice_on_signal(const interrupt_notice_on_signal&) = delete;
  interrupt_notice_on_signal& operator=(const interrupt_notice_on_signal&) = delete;
  ~interrupt_notice_on_signal() {
    if (reader_ < 0) return;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    const char stop = 0;
    (void)!::write(detail::interrupt_pipe_writer, &stop, 1);
    watcher_.join();
    ::close(detail::interrupt_pipe_writer);
    ::close(reader_);
    detail::interrupt_pipe_writer = -1;
  }

 private:
  void watch() {
    char sig = 0;
    while (::read(reader_, &sig, 1) < 0 && errno == EINTR) {
    }
    if (sig == 0) return;
    try {
      std::cerr << notice_(sig) << std::flush;
    } catch (...) {  // the signal's ending matters more than the notice
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
    ::kill(::getpid(), sig);
  }

  std::function<std::string(int)> notice_;
  int reader_ = -1;
  std::thread watcher_;
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace socratic::tool
