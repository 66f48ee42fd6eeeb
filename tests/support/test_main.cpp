// main() of the test programs that need nothing before Catch2's session (tests/CMakeLists.txt,
// socratic_test_program).
#include "catch_runner.hpp"

int main(int argc, char* argv[]) { return socratic::test::run_catch_session(argc, argv); }
