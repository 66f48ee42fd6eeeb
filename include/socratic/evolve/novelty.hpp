#pragma once
/// @file
/// @brief Novelty: identical or near-identical children are not evaluated twice.
///
/// Sources are normalised before hashing (comments removed, runs of white space collapsed, white
/// space between punctuation dropped), so a child that differs from a known candidate only in
/// comments or layout has the same hash. Near-duplicates are measured on the normalised token
/// stream: the Jaccard similarity of its token 4-grams (shingles). A child at or above the
/// threshold (0.97 by default: renaming one variable in a 40-line kernel stays below it) is a
/// near-duplicate of the known candidate it resembles most.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "socratic/core/detail/sha256.hpp"

namespace socratic::evolve {

/// @brief The tokens of a C/C++/CUDA source with comments removed: identifiers and numbers,
/// string and character literals whole, and every other non-space character alone.
inline std::vector<std::string> source_tokens(std::string_view src) {
  std::vector<std::string> out;
  std::size_t i = 0;
  const std::size_t n = src.size();
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  while (i < n) {
    const char c = src[i];
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      const auto end = src.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < n && src[j] != c) j += src[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, n);
      out.emplace_back(src.substr(i, j - i));
      i = j;
    } else if (word(c)) {
      std::size_t j = i;
      while (j < n && word(src[j])) ++j;
      out.emplace_back(src.substr(i, j - i));
      i = j;
    } else {
      out.emplace_back(1, c);
      ++i;
    }
  }
  return out;
}

/// @brief The normalised source: its tokens joined by single spaces.
inline std::string normalised_source(std::string_view src) {
  std::string out;
  for (const auto& t : source_tokens(src)) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

/// @brief SHA-256 of the normalised source: equal for sources that differ only in comments and
/// layout.
inline std::string code_hash(std::string_view src) { return detail::sha256_hex(normalised_source(src)); }

/// @brief The set of hashed token 4-grams (a source shorter than 4 tokens: its tokens as one).
inline std::vector<std::uint64_t> shingles(const std::vector<std::string>& tokens, std::size_t k = 4) {
  std::vector<std::uint64_t> out;
  std::hash<std::string> h;
  auto mix = [](std::uint64_t a, std::uint64_t b) { return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)); };
  if (tokens.size() < k) {
    std::uint64_t v = 0;
    for (const auto& t : tokens) v = mix(v, h(t));
    if (!tokens.empty()) out.push_back(v);
    return out;
  }
  out.reserve(tokens.size() - k + 1);
  for (std::size_t i = 0; i + k <= tokens.size(); ++i) {
    std::uint64_t v = 0;
    for (std::size_t j = 0; j < k; ++j) v = mix(v, h(tokens[i + j]));
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// @brief Jaccard similarity of two sorted, unique shingle sets (1 for two empty sets).
inline double jaccard(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.empty() && b.empty()) return 1;
  std::size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) ++common, ++i, ++j;
    else if (a[i] < b[j]) ++i;
    else ++j;
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

/// @brief The similarity of two sources (token 4-gram Jaccard after normalisation).
inline double source_similarity(std::string_view a, std::string_view b) {
  return jaccard(shingles(source_tokens(a)), shingles(source_tokens(b)));
}

/// @brief The verdict on one child.
struct NoveltyVerdict {
  bool novel = true;
  bool identical = false;     ///< same normalised source as `similar_to`
  std::string similar_to;     ///< the known candidate it duplicates (empty when novel)
  double similarity = 0;      ///< the highest similarity to a known candidate
  std::string hash;           ///< the child's code hash
};

/// @brief The candidates seen so far, by code hash and shingles.
class NoveltyFilter {
 public:
  explicit NoveltyFilter(double near_threshold = 0.97) : threshold_(near_threshold) {}
  double threshold() const { return threshold_; }
  std::size_t size() const { return known_.size(); }

  /// @brief Judges `source` against everything known, without remembering it.
  NoveltyVerdict check(std::string_view source) const {
    NoveltyVerdict v;
    const auto tokens = source_tokens(source);
    std::string norm;
    for (const auto& t : tokens) norm += (norm.empty() ? "" : " ") + t;
    v.hash = detail::sha256_hex(norm);
    if (auto it = by_hash_.find(v.hash); it != by_hash_.end()) {
      v.novel = false, v.identical = true, v.similar_to = known_[it->second].id, v.similarity = 1;
      return v;
    }
    const auto sh = shingles(tokens);
    for (const auto& k : known_) {
      const double s = jaccard(sh, k.shingles);
      if (s > v.similarity) {
        v.similarity = s;
        if (s >= threshold_) v.similar_to = k.id;
      }
    }
    v.novel = v.similar_to.empty();
    return v;
  }

  /// @brief Remembers a candidate (evaluated, or the start); returns its code hash.
  std::string add(const std::string& id, std::string_view source) {
    const auto tokens = source_tokens(source);
    std::string norm;
    for (const auto& t : tokens) norm += (norm.empty() ? "" : " ") + t;
    std::string hash = detail::sha256_hex(norm);
    if (by_hash_.emplace(hash, known_.size()).second) known_.push_back({id, shingles(tokens)});
    return hash;
  }

 private:
  struct Known {
    std::string id;
    std::vector<std::uint64_t> shingles;
  };
  double threshold_;
  std::vector<Known> known_;
  std::unordered_map<std::string, std::size_t> by_hash_;
};

}  // namespace socratic::evolve
