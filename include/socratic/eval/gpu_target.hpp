#pragma once
/// @file
/// @brief GpuTarget: the architecture nvcc compiles for, from configuration (`sm_90a`, `9.0`, ...)
/// or from the GPU (`nvidia-smi --query-gpu=compute_cap`). Heavy (starts nvidia-smi through
/// run_process).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief A real GPU architecture: major, minor and a feature suffix (`a` = arch-specific
/// features such as wgmma on sm_90a, `f` = family, empty = portable).
struct GpuTarget {
  int major = 0;
  int minor = 0;
  std::string suffix;

  /// @brief `sm_90a`
  std::string sm() const { return "sm_" + digits() + suffix; }
  /// @brief `compute_90a`
  std::string compute() const { return "compute_" + digits() + suffix; }
  /// @brief `sm_90`: the architecture without its feature suffix, as the runner reports it.
  std::string base_sm() const { return "sm_" + digits(); }
  /// @brief `-gencode=arch=compute_90a,code=sm_90a`
  std::string gencode() const { return "-gencode=arch=" + compute() + ",code=" + sm(); }
  bool valid() const noexcept { return major > 0; }
  friend bool operator==(const GpuTarget&, const GpuTarget&) = default;

 private:
  std::string digits() const { return std::to_string(major) + std::to_string(minor); }
};

/// @brief The target for a compute capability such as `9.0`: 9.0 -> sm_90a, 10.0 -> sm_100a
/// (arch-specific features from Hopper on, which wgmma and setmaxnreg need), 8.6 -> sm_86.
/// Throws error naming the text when it is not `MAJOR.MINOR`.
inline GpuTarget gpu_target_from_compute_capability(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  const std::string_view t = trim(text);
  const auto dot = t.find('.');
  auto all_digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 3 &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (dot == std::string_view::npos || !all_digits(t.substr(0, dot)) || !all_digits(t.substr(dot + 1)) ||
      t.substr(dot + 1).size() != 1)
    throw error("cannot read compute capability \"" + std::string(text) +
                "\" (expected MAJOR.MINOR, e.g. 9.0)");
  GpuTarget target;
  target.major = std::stoi(std::string(t.substr(0, dot)));
  target.minor = std::stoi(std::string(t.substr(dot + 1)));
  if (target.major <= 0) throw error("invalid compute capability \"" + std::string(text) + "\"");
  target.suffix = target.major >= 9 ? "a" : "";
  return target;
}

/// @brief Parses a configured target: `sm_90a`, `sm_90`, `compute_90a`, `90a`, `sm_100f` or a
/// compute capability `9.0`. Throws error naming the text.
inline GpuTarget parse_gpu_target(std::string_view text) {
  std::string t(text);
  if (t.find('.') != std::string::npos) return gpu_target_from_compute_capability(t);
  for (std::string_view prefix : {"sm_", "compute_"})
    if (t.rfind(prefix, 0) == 0) {
      t.erase(0, prefix.size());
      break;
    }
  std::string suffix;
  if (!t.empty() && (t.back() == 'a' || t.back() == 'f')) {
    suffix = t.back();
    t.pop_back();
  }
  const bool digits_only = t.size() >= 2 && t.size() <= 4 &&
                           std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!digits_only)
    throw error("cannot read GPU architecture \"" + std::string(text) +
                "\" (expected e.g. sm_90a, sm_100a, sm_86 or 9.0)");
  GpuTarget target;
  target.major = std::stoi(t.substr(0, t.size() - 1));
  target.minor = t.back() - '0';
  target.suffix = suffix;
  if (target.major <= 0) throw error("invalid GPU architecture \"" + std::string(text) + "\"");
  return target;
}

/// @brief Asks the GPU for its compute capability (`nvidia-smi --query-gpu=compute_cap
/// --format=csv,noheader`; the first device when there are several). Throws error saying why
/// it could not, and how to configure the target instead.
inline GpuTarget detect_gpu_target(const std::filesystem::path& nvidia_smi = "nvidia-smi",
                                   std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const std::string hint = "; configure the architecture instead (e.g. --arch sm_90a)";
  ProcessOptions options;
  options.timeout = timeout;
  options.max_output_bytes = 64 * 1024;
  const ProcessResult r =
      run_process({nvidia_smi.string(), "--query-gpu=compute_cap", "--format=csv,noheader"}, options);
  if (!r.ok())
    throw error("cannot determine the GPU architecture: " + nvidia_smi.string() + " " + r.describe() +
                (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 300)) + hint);
  const std::string& out = r.stdout_text;
  const std::string first = out.substr(0, out.find('\n'));
  try {
    return gpu_target_from_compute_capability(first);
  } catch (const error& e) {
    throw error("cannot determine the GPU architecture from " + nvidia_smi.string() + ": " + e.what() +
                hint);
  }
}

}  // namespace socratic
