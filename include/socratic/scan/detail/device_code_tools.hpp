#pragma once
/// @file
/// @brief The external programs the scanner falls back on for device code it cannot decode
/// itself: `zstd` (zstd-compressed fatbin entries) and `cuobjdump -xelf all` / `-xptx all`
/// (every cubin and PTX of a binary, decompressed). Both run through run_process, with a timeout
/// and output caps. Heavy (Boost.Process): included by scanner.hpp only.

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/detail/sha256.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::detail {

/// @brief Decompresses one zstd frame with the `zstd` program. nullopt with `why` set when the
/// program is missing, fails, or yields another size than `expected_size` (when nonzero).
inline std::optional<std::string> zstd_decompress(const std::string& program,
                                                  const std::string& frame,
                                                  std::uint64_t expected_size,
                                                  std::chrono::milliseconds timeout,
                                                  std::string& why) {
  if (program.empty() || find_program(program).empty()) {
    why = "the zstd program is not available";
    return std::nullopt;
  }
  ProcessOptions options;
  options.stdin_data = frame;
  options.timeout = timeout;
  // One byte more than expected reveals an oversized result without holding an unbounded one.
  options.max_output_bytes =
      static_cast<std::size_t>(expected_size ? expected_size + 1 : 64u << 20);
  const ProcessResult r = run_process({program, "-d", "-c", "-q"}, options);
  if (!r.ok()) {
    why =
        "zstd " + r.describe() + (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 200));
    return std::nullopt;
  }
  if (r.stdout_truncated || (expected_size && r.stdout_text.size() != expected_size)) {
    why = "zstd produced " + std::string(r.stdout_truncated ? "more than " : "") +
          std::to_string(r.stdout_text.size()) + " bytes, the entry header says " +
          std::to_string(expected_size);
    return std::nullopt;
  }
  return r.stdout_text;
}

/// @brief Decompresses several zstd frames with one run of the `zstd` program (it decodes
/// concatenated frames in sequence), splitting the output by the sizes the entry headers give;
/// when a size is unknown or the batch fails, each frame is decoded on its own. nullopt with
/// `why` set when any frame cannot be decoded.
inline std::optional<std::vector<std::string>> zstd_decompress_all(
    const std::string& program, const std::vector<std::string>& frames,
    const std::vector<std::uint64_t>& sizes, std::chrono::milliseconds timeout, std::string& why) {
  std::vector<std::string> out;
  std::uint64_t total = 0;
  bool sizes_known = true;
  for (const auto size : sizes) {
    sizes_known = sizes_known && size > 0;
    total += size;
  }
  if (frames.size() > 1 && sizes_known && total <= (2ull << 30)) {
    std::string joined;
    for (const auto& f : frames) joined += f;
    std::string batch_why;
    if (auto all = zstd_decompress(program, joined, total, timeout, batch_why)) {
      std::size_t at = 0;
      for (const auto size : sizes) {
        out.push_back(all->substr(at, static_cast<std::size_t>(size)));
        at += static_cast<std::size_t>(size);
      }
      return out;
    }
    if (program.empty() || find_program(program).empty()) {
      why = batch_why;
      return std::nullopt;
    }
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    auto one = zstd_decompress(program, frames[i], sizes[i], timeout, why);
    if (!one) return std::nullopt;
    out.push_back(std::move(*one));
  }
  return out;
}

/// @brief A file cuobjdump extracted: its name and bytes.
struct extracted_file {
  std::string name;
  std::string bytes;
};

/// @brief A temporary folder removed when it goes out of scope.
class temporary_folder {
 public:
  temporary_folder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "socratic-scan-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw error("cannot create a temporary folder under " +
                  std::filesystem::temp_directory_path().string());
    path_ = pattern;
  }
  temporary_folder(const temporary_folder&) = delete;
  temporary_folder& operator=(const temporary_folder&) = delete;
  ~temporary_folder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

/// @brief Runs `cuobjdump -xelf all` and `-xptx all` on `binary` in a temporary folder and
/// returns the files they wrote (cubins, PTX). nullopt with `why` set when cuobjdump is missing
/// or fails.
inline std::optional<std::vector<extracted_file>> cuobjdump_extract(
    const std::string& program, const std::filesystem::path& binary,
    std::chrono::milliseconds timeout, std::string& why) {
  if (program.empty() || find_program(program).empty()) {
    why = "cuobjdump is not available";
    return std::nullopt;
  }
  const temporary_folder folder;
  const std::string target = std::filesystem::absolute(binary).string();
  ProcessOptions options;
  options.working_dir = folder.path();
  options.timeout = timeout;
  options.max_output_bytes = 64 << 10;  // it prints the names it writes; the files are the result
  // A binary without PTX (or without cubins) makes one of the two runs fail: that is only an
  // error when neither run succeeds.
  std::string failures;
  int succeeded = 0;
  for (const char* what : {"-xelf", "-xptx"}) {
    const ProcessResult r = run_process({program, what, "all", target}, options);
    if (r.ok()) {
      ++succeeded;
    } else {
      failures += (failures.empty() ? "" : "; ") + std::string("cuobjdump ") + what + " all " +
                  r.describe() + (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 300));
    }
  }
  std::vector<extracted_file> out;
  std::vector<std::filesystem::path> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path()))
    if (entry.is_regular_file()) names.push_back(entry.path());
  std::sort(names.begin(), names.end());
  for (const auto& p : names) out.push_back({p.filename().string(), read_file_bytes(p)});
  if (succeeded == 0 && out.empty()) {
    why = failures;
    return std::nullopt;
  }
  return out;
}

}  // namespace socratic::detail
