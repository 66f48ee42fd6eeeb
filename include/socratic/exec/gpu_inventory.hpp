#pragma once
/// @file
/// @brief Which GPUs a local pool may hand out, found without CUDA: `CUDA_VISIBLE_DEVICES` when
/// the caller was given a subset (by Slurm, say), else `nvidia-smi -L`, else the driver's
/// `/proc/driver/nvidia/gpus/*`, else the `/dev/nvidiaN` device files. A list given by the user
/// (`--gpus 0,2,3`) is parsed here too. Heavy (run_process) only for the nvidia-smi probe.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::exec {

/// @brief The GPUs found and how.
struct GpuInventory {
  std::vector<std::string> ids;  ///< what CUDA_VISIBLE_DEVICES takes: indices (or UUIDs, when given so)
  std::string source;            ///< `CUDA_VISIBLE_DEVICES`, `nvidia-smi -L`, `/proc/driver/nvidia/gpus`, `/dev`
};

/// @brief Where to look (tests point these at fakes).
struct GpuProbe {
  std::optional<std::string> cuda_visible_devices;  ///< nullopt: read the environment
  std::filesystem::path nvidia_smi = "nvidia-smi";
  std::filesystem::path proc_gpus = "/proc/driver/nvidia/gpus";
  std::filesystem::path dev = "/dev";
};

/// @brief Parses `0,2,3` (or UUIDs, `GPU-...`): non-empty, no repeats, no spaces inside.
/// Throws input_error naming the bad entry.
inline std::vector<std::string> parse_gpu_list(const std::string& text, const std::string& where = "--gpus") {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t at = 0;
  while (true) {
    const std::size_t comma = text.find(',', at);
    std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    item.erase(0, item.find_first_not_of(" \t"));
    if (auto end = item.find_last_not_of(" \t"); end != std::string::npos) item.resize(end + 1);
    else item.clear();
    if (item.empty()) throw input_error({}, where, "empty entry in the GPU list \"" + text + "\"");
    const bool index = item.find_first_not_of("0123456789") == std::string::npos;
    const bool uuid = item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0;
    if (!index && !uuid)
      throw input_error({}, where, "\"" + item + "\" is neither a GPU index nor a GPU-/MIG- UUID");
    if (!seen.insert(item).second) throw input_error({}, where, "GPU " + item + " is listed twice");
    out.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

/// @brief The GPUs visible to this process (see the file comment for the order of the probes);
/// an empty list when none is found.
inline GpuInventory visible_gpus(const GpuProbe& probe = {}) {
  namespace fs = std::filesystem;
  GpuInventory inv;
  std::optional<std::string> cvd = probe.cuda_visible_devices;
  if (!cvd) {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) cvd = std::string(v);
  }
  if (cvd) {
    inv.source = "CUDA_VISIBLE_DEVICES";
    // "", "-1" or Slurm's "NoDevFiles" hide every GPU; CUDA reads up to the first bad entry.
    std::string text = *cvd;
    if (text.empty() || text == "NoDevFiles") return inv;
    try {
      for (auto& id : parse_gpu_list(text, "CUDA_VISIBLE_DEVICES")) inv.ids.push_back(id);
    } catch (const input_error&) {
      // CUDA stops at the first invalid entry: keep what precedes it.
      std::size_t at = 0;
      while (at <= text.size()) {
        const std::size_t comma = text.find(',', at);
        const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (item.empty() || (item.find_first_not_of("0123456789") != std::string::npos && item.rfind("GPU-", 0) != 0))
          break;
        inv.ids.push_back(item);
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
    }
    return inv;
  }

  ProcessOptions po;
  po.timeout = std::chrono::seconds(30);
  const ProcessResult smi = run_process({probe.nvidia_smi.string(), "-L"}, po);
  if (smi.ok()) {
    static const std::regex line(R"(^GPU ([0-9]+): )");
    std::size_t at = 0;
    const std::string& out = smi.stdout_text;
    while (at < out.size()) {
      const std::size_t nl = out.find('\n', at);
      const std::string l = out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      std::smatch m;
      if (std::regex_search(l, m, line)) inv.ids.push_back(m[1]);
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
    if (!inv.ids.empty()) {
      inv.source = "nvidia-smi -L";
      return inv;
    }
  }

  std::error_code ec;
  std::size_t proc_count = 0;
  for (const auto& entry : fs::directory_iterator(probe.proc_gpus, ec)) {
    (void)entry;
    ++proc_count;
  }
  if (proc_count > 0) {
    // Indices in PCI order, which is the order the pool asks CUDA to use (CUDA_DEVICE_ORDER).
    for (std::size_t i = 0; i < proc_count; ++i) inv.ids.push_back(std::to_string(i));
    inv.source = probe.proc_gpus.string();
    return inv;
  }

  static const std::regex dev_name(R"(^nvidia([0-9]+)$)");
  std::vector<int> minors;
  for (const auto& entry : fs::directory_iterator(probe.dev, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, dev_name)) minors.push_back(std::stoi(m[1]));
  }
  if (!minors.empty()) {
    std::sort(minors.begin(), minors.end());
    // Device minors need not be CUDA indices; their count is what the order can rely on.
    for (std::size_t i = 0; i < minors.size(); ++i) inv.ids.push_back(std::to_string(i));
    inv.source = probe.dev.string();
  }
  return inv;
}

}  // namespace socratic::exec
