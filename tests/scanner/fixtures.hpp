#pragma once
// Test fixtures for the scanner: small CUDA programs (tests/scanner/fixtures/*.cu) built by nvcc
// on first use and cached under the build folder, keyed by a hash of the source, the flags and
// the nvcc version, so reruns cost nothing. Light header: the process machinery is in fixtures.cpp.

#include <filesystem>
#include <string>
#include <vector>

namespace scanner_fixtures {

/// @brief The built fixture `name`: cublas, cublaslt, cudnn, needed_only, dlopen_cudnn,
/// namespaces, namespaces_lz4, namespaces_zstd, clean, static_api; `NAME_stripped` is the same
/// binary after `strip`. The first call builds every missing fixture (two nvcc at a time).
std::filesystem::path binary(const std::string& name);

/// @brief A folder for files a test writes (emptied once per test run).
std::filesystem::path scratch_dir();

std::string read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::string& bytes);

/// @brief The `socratic` tool under test.
std::filesystem::path tool_path();

struct command_result {
  int exit_code = -1;
  std::string out, err;
};
/// @brief Runs a command (program first) with a timeout; for end-to-end tests of the tool.
command_result run(const std::vector<std::string>& argv);

}  // namespace scanner_fixtures
