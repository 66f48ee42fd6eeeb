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

#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic::detail {

/// @brief A phrase: its pattern and a short label recorded as evidence.
struct Phrase {
  std::string label;
  std::regex pattern;
  // Out of line: compiling a pattern instantiates the whole regex compiler.
  SOCRATIC_DECL Phrase(std::string l, const std::string& re);
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
SOCRATIC_DECL std::vector<Clause> split_clauses(std::string_view message);

/// @brief Lower-case words of `text`, apostrophes kept ("don't").
SOCRATIC_DECL std::vector<std::string> words_of(std::string_view text);

/// @brief Whether the last `window` words of `prefix` negate what follows them.
SOCRATIC_DECL bool negated_by(std::string_view prefix, std::size_t window = 5);

/// @brief Non-negated matches, clause by clause in message order, at most one per phrase and
/// clause and at most `max_matches` in all; empty when none.
SOCRATIC_DECL std::vector<PhraseMatch> find_phrases(std::string_view message, const std::vector<Phrase>& phrases,
                                                    std::size_t max_matches = 4);

}  // namespace socratic::detail

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/phrase_matcher.ipp"
#endif
