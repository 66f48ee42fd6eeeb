#pragma once
/// @file
/// @brief Helpers for reading C++ symbol names in binaries: demangling (the Itanium ABI's
/// `abi::__cxa_demangle`), the kernel name nvcc hides inside host stub names, namespace tests
/// on demangled and mangled text, mangled tokens inside text, and file-name globs.

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace socratic::detail {

/// @brief `name` without a symbol-version suffix (`cublasCreate_v2@libcublas.so.13` ->
/// `cublasCreate_v2`).
inline std::string_view without_version(std::string_view name) {
  const auto at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

/// @brief The demangled form of an Itanium-mangled name (`_Z...`), or nullopt when it is not one.
inline std::optional<std::string> demangle(std::string_view mangled) {
  // Longer names are not produced by compilers for real code; refusing them bounds the work a
  // hostile binary can ask of the demangler.
  if (mangled.size() < 3 || mangled.size() > 65536 || mangled.substr(0, 2) != "_Z")
    return std::nullopt;
  const std::string z(mangled);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return std::nullopt;
  return std::string(out.get());
}

/// @brief The mangled kernel name inside a host stub's name, or nullopt when `name` is not a stub.
///
/// nvcc names the host stub of kernel `_ZN7cutlass5tiledEPfi` as
/// `_Z35__device_stub__ZN7cutlass5tiledEPfiPfi`: the kernel's name without its leading `_`
/// follows `__device_stub__`, inside an identifier whose length prefix bounds it. Demangling the
/// stub does not expand that inner name, so it is taken out here.
inline std::optional<std::string> stub_kernel_name(std::string_view name) {
  static constexpr std::string_view marker = "__device_stub__";
  const auto at = name.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  // The digits right before the marker give the identifier's length.
  std::size_t digits_begin = at;
  while (digits_begin > 0 && name[digits_begin - 1] >= '0' && name[digits_begin - 1] <= '9')
    --digits_begin;
  std::string_view inner = name.substr(at + marker.size());
  if (digits_begin < at && at - digits_begin <= 6) {
    const std::size_t length =
        std::stoul(std::string(name.substr(digits_begin, at - digits_begin)));
    if (length > marker.size() && length - marker.size() <= inner.size())
      inner = inner.substr(0, length - marker.size());
  }
  if (inner.empty() || inner.front() != 'Z') return std::nullopt;
  return "_" + std::string(inner);
}

inline bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// @brief True when demangled text names something in namespace (or class) `ns` at any depth:
/// `ns::` not preceded by an identifier character. `cute::Tensor`, `void k<cute::Layout<4>>()`,
/// `(anonymous namespace)::cutlass::x` match; `cutlass_like_tile`, `my_cute::x`, `cute()` do not.
inline bool names_namespace(std::string_view demangled, std::string_view ns) {
  const std::string needle = std::string(ns) + "::";
  for (auto at = demangled.find(needle); at != std::string_view::npos;
       at = demangled.find(needle, at + 1))
    if (at == 0 || !is_identifier_char(demangled[at - 1])) return true;
  return false;
}

/// @brief The same test on a mangled name that could not be demangled: `N<length><ns>` opens a
/// nested name whose first component is exactly `ns` (the length prefix rules out longer names).
inline bool mangled_names_namespace(std::string_view mangled, std::string_view ns) {
  const std::string needle = "N" + std::to_string(ns.size()) + std::string(ns);
  return mangled.find(needle) != std::string_view::npos;
}

/// @brief Itanium-mangled tokens (`_Z` followed by identifier characters) that start a token in
/// `text`: PTX (`.entry _ZN7cutlass5tiledEPfi(`), `.rodata` strings, section names. PTX
/// parameter names (`..._param_0`) are reduced to the function's name.
inline std::vector<std::string> mangled_tokens(std::string_view text) {
  std::vector<std::string> out;
  // `$` separates: ptxas joins a caller's and a callee's names with it.
  for (auto at = text.find("_Z"); at != std::string_view::npos; at = text.find("_Z", at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    std::size_t end = at;
    while (end < text.size() && (is_identifier_char(text[end]) || text[end] == '.')) ++end;
    std::string token(text.substr(at, end - at));
    if (const auto p = token.rfind("_param_"); p != std::string::npos) token.resize(p);
    if (token.size() > 2) out.push_back(std::move(token));
    at = end == at ? at : end - 1;
  }
  return out;
}

/// @brief Shell-style match of `text` against `pattern` with `*` (any run) and `?` (one char).
inline bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

/// @brief The last component of a path (`/usr/lib/libcudnn.so.9` -> `libcudnn.so.9`).
inline std::string_view path_basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// @brief `text` with every byte outside printable ASCII written as `\xNN`: names in a hostile
/// binary can hold any bytes, and evidence must stay valid UTF-8 for the JSON report.
inline std::string printable(std::string_view text) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c <= 0x7e) {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(digits[c >> 4]);
      out.push_back(digits[c & 0xf]);
    }
  }
  return out;
}

/// @brief Shortens long names (CUTLASS template instances run to kilobytes) for evidence text.
inline std::string abbreviate(std::string_view text, std::size_t limit = 240) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...(" + std::to_string(text.size()) + " chars)";
}

}  // namespace socratic::detail
