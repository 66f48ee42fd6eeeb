// Catch2's runner (its implementation, without a main) compiled once for all the test programs
// but the one-area ones that link Catch2::Catch2WithMain. Every other translation unit includes
// catch.hpp's declarations only (through the shared precompiled header), so that this is the one
// place Catch2 v2's implementation is compiled for them.
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"
#include "catch_runner.hpp"

#include <vector>

int socratic::test::run_catch_session(int argc, char* argv[]) {
  // Every case tagged with its file's name ([#test_store]): a program holds several areas' files,
  // and each area's CTest entries choose its cases by those tags (tests/CMakeLists.txt).
  std::vector<char*> args(argv, argv + argc);
  static char filenames_as_tags[] = "--filenames-as-tags";
  args.insert(args.begin() + (argc > 0 ? 1 : 0), filenames_as_tags);
  return Catch::Session().run(static_cast<int>(args.size()), args.data());
}
