#pragma once
/// @file
/// @brief Wires the banned-library scanner (scan/scanner.hpp: `scan_binary`,
/// `scan_mapped_libraries`, `BanPolicy`, `default_ban_policy`) into a CudaEvaluator's BanScan.
///
/// The scanner is a separate part of the SDK (include/socratic/scan/); the evaluator reaches it
/// only through BanScan, so either can change alone.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/scan/scanner.hpp"

namespace socratic {

/// @brief A BanScan that applies `policy` to the built candidate and to the libraries the
/// runner mapped at run time.
inline BanScan default_ban_scan(BanPolicy policy = default_ban_policy()) {
  auto shared = std::make_shared<const BanPolicy>(std::move(policy));
  BanScan scan;
  scan.binary = [shared](const std::filesystem::path& binary) { return scan_binary(binary, *shared); };
  scan.mapped = [shared](const std::vector<std::string>& mapped) {
    return scan_mapped_libraries(mapped, *shared);
  };
  return scan;
}

}  // namespace socratic
