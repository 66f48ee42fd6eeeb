#include "fixtures.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "socratic/core/detail/sha256.hpp"
#include "socratic/process/run_process.hpp"

namespace scanner_fixtures {
namespace fs = std::filesystem;

namespace {

struct recipe {
  std::string source;              // under tests/scanner/fixtures
  std::string extension;           // "" for programs, ".so" for shared objects
  std::vector<std::string> flags;  // after the common ones
};

const std::map<std::string, recipe>& recipes() {
  static const std::map<std::string, recipe> table = {
      {"cublas", {"cublas_user.cu", "", {"-lcublas"}}},
      {"cublaslt", {"cublaslt_user.cu", "", {"-lcublasLt"}}},
      {"cudnn", {"cudnn_user.cu", "", {"-lcudnn"}}},
      {"needed_only", {"needed_only.cu", "", {"-Xlinker", "--no-as-needed", "-lcudnn"}}},
      {"dlopen_cudnn", {"dlopen_cudnn.cu", "", {"-ldl"}}},
      // PTX too (stored zstd-compressed by default), so that PTX reading is exercised.
      {"namespaces", {"namespaces.cu", "", {"-gencode=arch=compute_90a,code=compute_90a"}}},
      {"namespaces_lz4",
       {"namespaces.cu",
        "",
        {"-gencode=arch=compute_90a,code=compute_90a", "-Xfatbin=-compress-all",
         "-Xfatbin=--compress-mode=speed"}}},
      {"namespaces_zstd",
       {"namespaces.cu",
        "",
        {"-gencode=arch=compute_90a,code=compute_90a", "-Xfatbin=-compress-all",
         "-Xfatbin=--compress-mode=size"}}},
      {"clean", {"clean_candidate.cu", ".so", {"-shared", "-Xcompiler", "-fPIC"}}},
      {"static_api", {"static_api.cu", "", {}}},
  };
  return table;
}

fs::path cache_dir() {
  return fs::path(SOCRATIC_BINARY_DIR) / "scanner-fixtures";
}

std::string find_nvcc() {
  if (const char* env = std::getenv("NVCC"); env && *env) return env;
  if (!socratic::find_program("nvcc").empty()) return socratic::find_program("nvcc").string();
  for (const char* p : {"/usr/local/cuda/bin/nvcc"})
    if (fs::exists(p)) return p;
  throw std::runtime_error(
      "nvcc not found (set NVCC or put it on PATH): the scanner tests build "
      "their fixtures with it");
}

std::string checked(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  socratic::ProcessOptions options;
  options.timeout = timeout;
  const auto r = socratic::run_process(argv, options);
  if (!r.ok()) {
    std::string command;
    for (const auto& a : argv) command += a + " ";
    throw std::runtime_error("fixture command failed (" + r.describe() + "): " + command + "\n" +
                             r.stdout_text + r.stderr_text);
  }
  return r.stdout_text;
}

struct build_state {
  std::mutex mutex;
  bool built = false;
  std::map<std::string, fs::path> paths;
};
build_state& state() {
  static build_state s;
  return s;
}

void build_all() {
  const std::string nvcc = find_nvcc();
  const std::string version = checked({nvcc, "--version"}, std::chrono::seconds(60));
  fs::create_directories(cache_dir());
  struct job {
    std::string name;
    fs::path output;
    std::vector<std::string> argv;
  };
  std::vector<job> jobs;
  for (const auto& [name, r] : recipes()) {
    const fs::path source = fs::path(SOCRATIC_SCANNER_FIXTURES) / r.source;
    std::vector<std::string> argv = {nvcc, "-O2", "-std=c++17",
                                     "-gencode=arch=compute_90a,code=sm_90a", source.string()};
    argv.insert(argv.end(), r.flags.begin(), r.flags.end());
    std::string key = socratic::read_file_bytes(source) + "\n" + version;
    for (const auto& a : argv) key += "\n" + a;
    const fs::path output =
        cache_dir() / (name + "-" + socratic::detail::sha256_hex(key).substr(0, 16) + r.extension);
    state().paths[name] = output;
    if (!fs::exists(output)) jobs.push_back({name, output, argv});
  }
  // Two at a time: the machine's cores are shared.
  std::mutex jobs_mutex;
  std::size_t next = 0;
  std::string failure;
  auto worker = [&] {
    for (;;) {
      job j;
      {
        std::lock_guard lock(jobs_mutex);
        if (next >= jobs.size() || !failure.empty()) return;
        j = jobs[next++];
      }
      // Build under a temporary name and rename: an interrupted build leaves no half file.
      const fs::path partial = j.output.string() + ".partial";
      auto argv = j.argv;
      argv.insert(argv.end(), {"-o", partial.string()});
      try {
        checked(argv, std::chrono::seconds(600));
        fs::rename(partial, j.output);
      } catch (const std::exception& e) {
        std::lock_guard lock(jobs_mutex);
        failure = e.what();
      }
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace

fs::path binary(const std::string& name) {
  std::lock_guard lock(state().mutex);
  if (!state().built) {
    build_all();
    state().built = true;
  }
  const std::string suffix = "_stripped";
  if (name.size() > suffix.size() && name.ends_with(suffix)) {
    const std::string base = name.substr(0, name.size() - suffix.size());
    const auto it = state().paths.find(base);
    if (it == state().paths.end()) throw std::invalid_argument("no fixture called " + base);
    const fs::path stripped = it->second.parent_path() / (it->second.stem().string() + "-stripped" +
                                                          it->second.extension().string());
    if (!fs::exists(stripped)) {
      checked({"strip", "-o", stripped.string() + ".partial", it->second.string()},
              std::chrono::seconds(60));
      fs::rename(stripped.string() + ".partial", stripped);
    }
    return stripped;
  }
  const auto it = state().paths.find(name);
  if (it == state().paths.end()) throw std::invalid_argument("no fixture called " + name);
  return it->second;
}

fs::path scratch_dir() {
  static const fs::path dir = [] {
    const fs::path d = fs::path(SOCRATIC_BINARY_DIR) / "scanner-scratch";
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string read_bytes(const fs::path& path) {
  return socratic::read_file_bytes(path);
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

fs::path tool_path() {
  return SOCRATIC_TOOL_PATH;
}

command_result run(const std::vector<std::string>& argv) {
  socratic::ProcessOptions options;
  options.timeout = std::chrono::seconds(120);
  const auto r = socratic::run_process(argv, options);
  if (!r.started) throw std::runtime_error("cannot run " + argv.front() + ": " + r.error);
  return {r.exit_code, r.stdout_text, r.stderr_text};
}

}  // namespace scanner_fixtures
