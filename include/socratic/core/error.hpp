#pragma once
/// @file
/// @brief Exception types. Every error names what was wrong and where.

#include <stdexcept>
#include <string>
#include <utility>

namespace socratic {

/// @brief Base of every exception Socratic throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief Bad input: a file, an entry in it, a field. `what()` reads "FILE: WHERE: MESSAGE".
///
/// `file` may be empty for in-memory documents; `where` names the entry and field
/// (e.g. `scenario "b1_s512" field "head_dim"`).
class input_error : public error {
 public:
  input_error(std::string file, std::string where, std::string message)
      : error(compose(file, where, message)),
        file_(std::move(file)),
        where_(std::move(where)),
        message_(std::move(message)) {}

  const std::string& file() const noexcept { return file_; }
  const std::string& where() const noexcept { return where_; }
  const std::string& message() const noexcept { return message_; }

 private:
  static std::string compose(const std::string& file, const std::string& where,
                             const std::string& message) {
    std::string out;
    if (!file.empty()) out += file + ": ";
    if (!where.empty()) out += where + ": ";
    return out + message;
  }
  std::string file_, where_, message_;
};

/// @brief A campaign whose parts do not fit together (a goal naming scenarios its set lacks, a
/// scenario set the judge cannot read): no agent can fix it by changing the candidate, so it is
/// said to the person, never turned into a send-back. `what()` as input_error's.
class configuration_error : public input_error {
 public:
  using input_error::input_error;
};

/// @brief A budget (turns, tool calls, evaluations, tokens, time, cost) refuses more work.
class budget_exhausted : public error {
 public:
  using error::error;
};

}  // namespace socratic
