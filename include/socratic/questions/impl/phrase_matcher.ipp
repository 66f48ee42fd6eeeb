#pragma once
/// @file
/// @brief Definitions for socratic/questions/detail/phrase_matcher.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/detail/phrase_matcher.hpp"

namespace socratic::detail {

SOCRATIC_DECL Phrase::Phrase(std::string l, const std::string& re)
    : label(std::move(l)), pattern(re, std::regex::ECMAScript | std::regex::icase) {}

SOCRATIC_DECL std::vector<Clause> split_clauses(std::string_view message) {
  std::vector<Clause> out;
  std::vector<std::string> current_sentence_clauses;
  std::string clause;
  auto flush_clause = [&] {
    const auto b = clause.find_first_not_of(" \t\r\"'*-`>");
    const auto e = clause.find_last_not_of(" \t\r\"'*`");
    if (b != std::string::npos) current_sentence_clauses.push_back(clause.substr(b, e - b + 1));
    clause.clear();
  };
  auto flush_sentence = [&](bool question) {
    flush_clause();
    for (auto& c : current_sentence_clauses) out.push_back({std::move(c), question});
    current_sentence_clauses.clear();
  };
  auto starts_word = [&](std::size_t i, std::string_view w) {
    if (i + w.size() > message.size()) return false;
    for (std::size_t k = 0; k < w.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(message[i + k])) != w[k]) return false;
    const bool before_ok = i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1]));
    const bool after_ok = i + w.size() == message.size() ||
                          !std::isalnum(static_cast<unsigned char>(message[i + w.size()]));
    return before_ok && after_ok;
  };
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    const bool at_end = i + 1 == message.size();
    const bool next_space = at_end || std::isspace(static_cast<unsigned char>(message[i + 1])) ||
                            message[i + 1] == '"' || message[i + 1] == ')';
    if (c == '\n') {
      flush_sentence(false);
    } else if ((c == '.' || c == '!' || c == '?') && next_space) {
      flush_sentence(c == '?');
    } else if (c == ',' || c == ';' || (c == ':' && next_space)) {
      flush_clause();
    } else if (starts_word(i, "but") || starts_word(i, "however") || starts_word(i, "although")) {
      flush_clause();
      clause += c;
    } else {
      clause += c;
      if (clause.size() >= 2000) flush_clause();
    }
  }
  flush_sentence(false);
  return out;
}

SOCRATIC_DECL std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || c == '-') {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

SOCRATIC_DECL bool negated_by(std::string_view prefix, std::size_t window) {
  const auto words = words_of(prefix);
  const std::size_t from = words.size() > window ? words.size() - window : 0;
  for (std::size_t i = from; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool negator = w == "not" || w == "no" || w == "never" || w == "nor" || w == "without" ||
                         w == "hardly" || w == "neither" ||
                         (w.size() > 3 && w.compare(w.size() - 3, 3, "n't") == 0) ||
                         (w == "far" && i + 1 < words.size() && words[i + 1] == "from") ||
                         (w == "rather" && i + 1 < words.size() && words[i + 1] == "than") ||
                         (w == "instead" && i + 1 < words.size() && words[i + 1] == "of");
    if (negator) return true;
  }
  return false;
}

SOCRATIC_DECL std::vector<PhraseMatch> find_phrases(std::string_view message, const std::vector<Phrase>& phrases,
                                                    std::size_t max_matches) {
  std::vector<PhraseMatch> out;
  for (const auto& clause : split_clauses(message)) {
    if (clause.question) continue;
    for (const auto& phrase : phrases) {
      std::smatch m;
      auto begin = clause.text.cbegin();
      auto flags = std::regex_constants::match_default;
      while (std::regex_search(begin, clause.text.cend(), m, phrase.pattern, flags)) {
        const auto pos = static_cast<std::size_t>(m[0].first - clause.text.cbegin());
        if (!negated_by(std::string_view(clause.text).substr(0, pos))) {
          out.push_back({phrase.label, m[0].str(), clause.text});
          break;
        }
        begin = m[0].second;
        if (begin == clause.text.cend() || m[0].length() == 0) break;
        flags = std::regex_constants::match_prev_avail;  // \b sees the character before `begin`
      }
      if (out.size() >= max_matches) return out;
    }
  }
  return out;
}

}  // namespace socratic::detail
