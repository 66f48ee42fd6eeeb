#pragma once
// Catch2's session for the test programs that write their own main(), compiled once in
// support/catch_runner.cpp (Catch2 v2 declares Catch::Session only where its implementation is
// compiled, so the mains call this instead).
namespace socratic::test {

/// @brief Runs Catch2's session with the program's arguments, every case tagged with its file's
/// name (`[#test_store]`); returns its exit status.
int run_catch_session(int argc, char* argv[]);

}  // namespace socratic::test
