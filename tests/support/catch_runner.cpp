// Catch2's runner (its implementation, without a main) compiled once for the test programs that
// write their own main(): exec_tests, the two real-CLI programs and the [gpu] programs. Every
// other translation unit includes catch.hpp's declarations only (through the shared precompiled
// header), so that this is the one place Catch2 v2's implementation is compiled for them.
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"
#include "catch_runner.hpp"

int socratic::test::run_catch_session(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
