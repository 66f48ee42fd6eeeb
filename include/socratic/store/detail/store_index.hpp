#pragma once
/// @file
/// @brief The store's index line: tab-separated fields, parsed without a JSON parser so that a
/// store of 100,000 records opens in well under 2 s. Text fields are percent-encoded where they
/// hold a separator (`%`, tab, newline, carriage return, `,`, space, `=`, `:`). Notes are kept
/// as their JSON (which never holds a raw tab or newline). Format: docs/store.md, "Index".

#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/store/store_record.hpp"

namespace socratic::detail::store_index {

inline bool needs_escape(char c) {
  return c == '%' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ' ' || c == '=' || c == ':';
}

inline void put(std::string& out, std::string_view text) {
  static const char hex[] = "0123456789ABCDEF";
  for (char c : text) {
    if (needs_escape(c)) {
      out += '%';
      out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
      out += hex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
}

inline std::string take(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && digit(text[i + 1]) >= 0 && digit(text[i + 2]) >= 0) {
      out += static_cast<char>(digit(text[i + 1]) * 16 + digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

inline void put_number(std::string& out, double x) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", x);
  out.append(buf, static_cast<std::size_t>(n));
}

inline double number(std::string_view s) {
  if (s == "nan" || s == "-nan") return detail::nan;
  double x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) throw error("index: bad number \"" + std::string(s) + "\"");
  return x;
}

template <class I>
I integer(std::string_view s) {
  I x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) throw error("index: bad integer \"" + std::string(s) + "\"");
  return x;
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

/// @brief The index line of a candidate record (with its newline).
inline std::string candidate_line(const RecordSummary& s, std::uintmax_t offset, std::size_t length) {
  std::string out = "c\t";
  out += std::to_string(s.seq) + '\t' + std::to_string(offset) + '\t' + std::to_string(length) + '\t';
  put(out, s.id);
  out += '\t';
  put(out, s.key);
  out += '\t';
  put(out, s.agent);
  out += '\t';
  for (std::size_t i = 0; i < s.parents.size(); ++i) {
    if (i) out += ',';
    put(out, s.parents[i]);
  }
  out += '\t';
  out += to_string(s.origin);
  out += '\t';
  put(out, s.question_id);
  out += '\t';
  put(out, s.hash);
  out += '\t';
  out += to_string(s.verdict);
  out += '\t';
  put_number(out, s.unix_s);
  out += '\t';
  put(out, s.reason);
  out += '\t';
  bool first = true;
  for (const auto& [id, f] : s.scenarios) {
    if (!first) out += ' ';
    first = false;
    put(out, id);
    out += '=';
    out += f.correct ? '1' : '0';
    out += ':';
    put_number(out, f.candidate_ms);
    out += ':';
    put_number(out, f.speedup);
  }
  out += '\n';
  return out;
}

/// @brief The index line of a note (with its newline).
inline std::string note_line(const StoreNote& n, std::uintmax_t offset, std::size_t length) {
  return "n\t" + std::to_string(n.seq) + '\t' + std::to_string(offset) + '\t' + std::to_string(length) + '\t' +
         json(n).dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

/// @brief One parsed index line.
struct Entry {
  bool is_note = false;
  std::int64_t seq = -1;
  std::uintmax_t offset = 0;
  std::size_t length = 0;
  RecordSummary summary;
  StoreNote note;
};

/// @brief Parses one index line (without its newline). @throws error when it is not one.
inline Entry parse_line(std::string_view line) {
  const auto f = split(line, '\t');
  if (f.size() < 5) throw error("index: too few fields");
  Entry e;
  e.seq = integer<std::int64_t>(f[1]);
  e.offset = integer<std::uintmax_t>(f[2]);
  e.length = integer<std::size_t>(f[3]);
  if (f[0] == "n") {
    if (f.size() != 5) throw error("index: a note line has 5 fields");
    e.is_note = true;
    e.note = json::parse(f[4]).get<StoreNote>();
    return e;
  }
  if (f[0] != "c" || f.size() != 15) throw error("index: not a candidate line of 15 fields");
  RecordSummary& s = e.summary;
  s.seq = e.seq;
  s.id = take(f[4]);
  s.key = take(f[5]);
  s.agent = take(f[6]);
  if (!f[7].empty())
    for (auto p : split(f[7], ',')) s.parents.push_back(take(p));
  s.origin = parse_origin_kind(f[8]);
  s.question_id = take(f[9]);
  s.hash = take(f[10]);
  s.verdict = parse_gate_outcome(f[11]);
  s.unix_s = number(f[12]);
  s.reason = take(f[13]);
  if (!f[14].empty())
    for (auto token : split(f[14], ' ')) {
      const auto eq = token.find('=');
      if (eq == std::string_view::npos) throw error("index: a scenario without '='");
      const auto parts = split(token.substr(eq + 1), ':');
      if (parts.size() != 3) throw error("index: a scenario needs correct:ms:speedup");
      s.scenarios[take(token.substr(0, eq))] = ScenarioFigure{parts[0] == "1", number(parts[1]), number(parts[2])};
    }
  return e;
}

}  // namespace socratic::detail::store_index
