#pragma once
/// @file
/// @brief Negation-aware phrase matching over an agent's message, for the rule-based claim
/// classifier and the explained-away detector.
///
/// The message is cut into sentences and each sentence into clauses (at `,;:` and "but",
/// "however", "although"). A phrase (an ECMAScript regular expression, case-insensitive) matches
/// in a clause unless one of the few words just before it negates it ("not optimal yet", "far
/// from the hardware limit", "rather than relax the tolerance"). Sentences that end with a
/// question mark are skipped: "Is this optimal?" claims nothing. A negated belief negates what
/// follows ("I don't think it's optimal" claims nothing); phrases that carry their own negation
/// ("I don't think it can be improved") are written as phrases of their own.

#include <algorithm>
#include <cctype>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace socratic::detail {

/// @brief A phrase: its pattern and a short label recorded as evidence.
struct Phrase {
  std::string label;
  std::regex pattern;
  Phrase(std::string l, const std::string& re)
      : label(std::move(l)), pattern(re, std::regex::ECMAScript | std::regex::icase) {}
};

/// @brief A phrase found in a message.
struct PhraseMatch {
  std::string label;  ///< the phrase's label
  std::string text;   ///< the words that matched
  std::string clause; ///< the clause it was found in, trimmed
};

/// @brief One clause, with whether its sentence was a question.
struct Clause {
  std::string text;
  bool question = false;
};

/// Sentences end at `.`, `!`, `?` followed by a space or the end, and at line breaks; clauses
/// end at `,`, `;`, `:` and before "but"/"however"/"although". Long clauses are cut at 2000
/// characters so that regex search stays cheap.
inline std::vector<Clause> split_clauses(std::string_view message) {
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

/// @brief Lower-case words of `text`, apostrophes kept ("don't").
inline std::vector<std::string> words_of(std::string_view text) {
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

/// @brief Whether the last `window` words of `prefix` negate what follows them.
inline bool negated_by(std::string_view prefix, std::size_t window = 5) {
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

/// @brief Non-negated matches, clause by clause in message order, at most one per phrase and
/// clause and at most `max_matches` in all; empty when none.
inline std::vector<PhraseMatch> find_phrases(std::string_view message, const std::vector<Phrase>& phrases,
                                             std::size_t max_matches = 4) {
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
