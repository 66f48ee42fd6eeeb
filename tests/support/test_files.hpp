#pragma once
// The file helpers every area's tests use (one implementation, shared by the fixtures of the
// areas, which bring them into their own namespaces with using-declarations: a test program holds
// several areas' files in one translation unit).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace socratic::test {

/// @brief The whole file `p`, or "" when it cannot be read (a test then fails on its content).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// @brief Writes `text` to `p`, creating its folders; throws naming the file when it cannot.
inline void write_text(const std::filesystem::path& p, const std::string& text) {
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("test: cannot write " + p.string());
}

/// @brief An empty folder of the temporary directory for this process's test `name`.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("socratic_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace socratic::test
