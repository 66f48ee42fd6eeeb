// What every test program parses before its own code: the standard library, nlohmann/json, the
// Boost.Asio and Boost.Process headers the SDK's process spawner includes, and Catch2. Precompiled
// once and shared by the test programs (tests/CMakeLists.txt, SOCRATIC_TEST_PCH): parsing these was
// 60 % of a test program's compile time.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

// In the order process/impl/child.ipp includes them (Boost 1.81's Process v2 needs the first three).
#include <boost/optional.hpp>
#include <boost/version.hpp>
#include <boost/type_traits/remove_pointer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
#include <nlohmann/json.hpp>

// Catch2's declarations (v2's single header: 17,000 lines, in every test program); its runner is
// compiled once elsewhere (Catch2::Catch2WithMain, or support/catch_runner.cpp).
#include "catch.hpp"
