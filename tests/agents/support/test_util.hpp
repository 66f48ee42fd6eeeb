#pragma once
// Small helpers shared by the agent tests.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "catch.hpp"
#include "socratic/agents/llm_types.hpp"

namespace socratic::testing {

/// Records the waits and log lines of a backend instead of sleeping.
struct Recorder {
  std::vector<std::chrono::milliseconds> sleeps;
  std::vector<std::string> log;
};

inline ChatMessage msg(ChatRole role, std::string content, std::string tool_call_id = {},
                       std::vector<ToolCall> calls = {}, bool is_error = false) {
  ChatMessage m;
  m.role = role;
  m.content = std::move(content);
  m.tool_call_id = std::move(tool_call_id);
  m.tool_calls = std::move(calls);
  m.is_error = is_error;
  return m;
}

/// Runs `f`, which must throw llm_error, and returns the error.
template <class F>
llm_error catch_llm(F&& f) {
  try {
    f();
  } catch (const llm_error& e) {
    return e;
  }
  FAIL("no llm_error was thrown");
  return llm_error(LlmErrorKind::http, "");
}

/// A fresh, empty folder under the system's temporary folder, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("socratic_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace socratic::testing
