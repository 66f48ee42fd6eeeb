#pragma once
/// @file
/// @brief Wires the banned-library scanner (eval/scanner.hpp: `scan_binary`,
/// `scan_mapped_libraries`, `BanPolicy`, `default_ban_policy`) into a CudaEvaluator's BanScan.
///
/// The scanner is a separate part of the SDK; the evaluator reaches it only through BanScan, so
/// either can change alone. `SOCRATIC_HAS_BAN_SCANNER` says whether this build has it.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "socratic/eval/cuda_evaluator.hpp"

#if __has_include("socratic/eval/scanner.hpp")
#include "socratic/eval/scanner.hpp"
#define SOCRATIC_HAS_BAN_SCANNER 1

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

#else
#define SOCRATIC_HAS_BAN_SCANNER 0
#endif
