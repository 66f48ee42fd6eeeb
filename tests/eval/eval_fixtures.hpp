#pragma once
// Shared fixtures of the evaluator tests: fresh temporary folders, files, the fake tools
// (fake_tool.cpp under the names nvcc, nvidia-smi and runner) and a small fake data folder
// with a problem "toy" and a scenario set of four scenarios a, b, c, d.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace eval_test {

namespace fs = std::filesystem;

/// A fresh, empty folder under the build tree, removed when the object dies.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    static int counter = 0;
    path = fs::path(SOCRATIC_BINARY_DIR) / "eval_test_tmp" /
           (name + "." + std::to_string(::getpid()) + "." + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path operator/(const std::string& rel) const { return path / rel; }
};

inline fs::path write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::size_t count_lines(const fs::path& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

/// A folder holding links named nvcc, nvidia-smi and runner to the fake tool.
inline fs::path fake_tools(const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* name : {"nvcc", "nvidia-smi", "runner"}) {
    std::error_code ignored;
    fs::remove(dir / name, ignored);
    fs::create_symlink(SOCRATIC_FAKE_TOOL, dir / name);
  }
  return dir;
}

/// A data folder with kernels/ (harness, problem "toy") and scenarios/toy.json.
inline fs::path fake_data_dir(const fs::path& root) {
  write_file(root / "kernels/problems.json",
             R"({"schema_version": 1, "problems": [{"name": "toy", "folder": "toy"}]})");
  write_file(root / "kernels/harness/runner.cu", "// the fake runner's source\n");
  write_file(root / "kernels/harness/problem.cuh", "// the problem interface\n");
  write_file(root / "kernels/toy/toy_args.h", "/* toy entry point */\nextern \"C\" int toy_forward(const void* args);\n");
  write_file(root / "kernels/toy/baseline.cu", "#include \"toy_args.h\"\n// baseline\n");
  write_file(root / "kernels/toy/problem.cu", "// toy problem\n");
  write_file(root / "kernels/toy/problem.json", R"({
    "name": "toy", "entry_point": "toy_forward", "args_header": "toy_args.h",
    "baseline": "baseline.cu", "runner_sources": ["problem.cu"],
    "has_reference_implementation": false, "description": "a toy problem for tests",
    "parameters": {
      "n": {"type": "int", "min": 1, "required": true},
      "groups": {"type": "int", "min": 1, "default": 1},
      "dtype": {"type": "string", "enum": ["bf16", "fp16"], "default": "bf16"},
      "causal": {"type": "bool", "default": false},
      "scale": {"type": "number", "required": false}
    },
    "divisible": [["n", "groups"]]
  })");
  write_file(root / "scenarios/toy.json", R"({"name": "toy_set", "problem": "toy",
    "scenarios": [{"id": "a", "n": 8}, {"id": "b", "n": 16, "dtype": "fp16"},
                  {"id": "c", "n": 32, "causal": true}, {"id": "d", "n": 64, "groups": 4, "scale": 0.5}]})");
  return root;
}

}  // namespace eval_test
