#pragma once
// Catch2 v2 (Debian 12) or v3 (newer systems): the tests use only what both provide.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define SOCRATIC_CATCH3 1
// v3 renamed v2's string matcher Contains to ContainsSubstring (its Contains matches elements
// of a range) and moved Approx into namespace Catch; the tests use v2's names. A non-template
// overload wins over v3's Contains(T&&) where it binds the argument as well: a string literal,
// and a std::string of each value category (an rvalue would otherwise pick T&&, the element
// matcher).
namespace Catch::Matchers {
inline auto Contains(const char* text, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return ContainsSubstring(text, sensitivity);
}
inline auto Contains(const std::string& text, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return ContainsSubstring(text, sensitivity);
}
inline auto Contains(std::string& text, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return ContainsSubstring(text, sensitivity);
}
inline auto Contains(std::string&& text, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return ContainsSubstring(text, sensitivity);
}
}  // namespace Catch::Matchers
// v2 also names its matchers in namespace Catch (Catch::Contains).
namespace Catch {
using Matchers::Contains;
}  // namespace Catch
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
