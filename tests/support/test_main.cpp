// main() of the test programs that need nothing before Catch2's session but their child modes
// (tests/CMakeLists.txt, socratic_test_program; child_modes.hpp).
#include "catch_runner.hpp"
#include "child_modes.hpp"

int main(int argc, char* argv[]) {
  int status = 0;
  if (socratic::test::run_child_mode(argc, argv, status)) return status;
  return socratic::test::run_catch_session(argc, argv);
}
