#pragma once
/// @file
/// @brief The bank's lint: everything loading checks, plus duplicate ids, near-duplicate texts,
/// the shape of a good question, group balance, and counts per group, trigger and architecture.
///
/// Rules (errors fail `socratic bank lint`, warnings are printed):
/// - error: any loading error (file, entry, field), a duplicate id;
/// - error: two texts whose content-word sets have Jaccard similarity >= 0.7
///   (`near_duplicate_threshold`; see text_similarity());
/// - error: a text that is not one question ending with '?', longer than 35 words
///   (`max_words`), or that gives its answer away ("you should", "the fix is", "because", ...);
/// - warning: an entry without `checks`; a trigger no entry serves; a trigger no entry for any
///   problem (no `kinds`) serves, so that a problem of unknown kinds would get nothing then; a
///   kind outside known_problem_kinds() (a typo); a group above `max_group_share` of the bank
///   (an error with `targets`); an entry for any problem (no `kinds`) whose text or checks name
///   a GPU-only term (detail::lint::gpu_only_terms(): ncu, SASS, warps, ...; an error with
///   `targets`), which a CPU problem would be asked.
/// With `targets` set (the shipped bank), the content targets are errors when unmet: at least
/// 100 entries in at least 10 groups, 5 needing a reference, 18 architecture-specific, no group
/// above 20 %, every trigger served by at least 10 entries and by at least 4 entries for any
/// problem (no `kinds`).

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/questions/bank.hpp"

namespace socratic {

/// @brief Content targets of a bank (the shipped bank must meet the defaults).
struct BankTargets {
  std::size_t min_entries = 100;
  std::size_t min_groups = 10;
  std::size_t min_requires_reference = 5;
  std::size_t min_arch_specific = 18;
  double max_group_share = 0.20;
  std::size_t min_per_trigger = 10;
  std::size_t min_any_problem_per_trigger = 4;  ///< entries without `kinds`, per trigger
};

/// @brief Lint thresholds.
struct LintOptions {
  double near_duplicate_threshold = 0.7;  ///< Jaccard similarity of content-word sets
  std::size_t max_words = 35;             ///< a question longer than this is not short
  double max_group_share = 0.25;          ///< a larger group dominates (warning)
  std::optional<BankTargets> targets;     ///< check content targets as errors
};

/// @brief Counts over a bank.
struct BankCounts {
  std::size_t entries = 0;
  std::size_t requires_reference = 0;
  std::size_t arch_specific = 0;
  std::map<std::string, std::size_t> by_group;
  std::map<std::string, std::size_t> by_trigger;   ///< every trigger, zero included
  std::map<std::string, std::size_t> by_arch;      ///< `any` for entries without arch
  std::map<std::string, std::size_t> by_evidence;
  std::map<std::string, std::size_t> by_kind;                 ///< `any` for entries without kinds
  std::map<std::string, std::size_t> any_problem_by_trigger;  ///< entries without kinds, every trigger
};

inline void to_json(json& j, const BankCounts& c) {
  j = json{{"entries", c.entries},       {"requires_reference", c.requires_reference},
           {"arch_specific", c.arch_specific}, {"by_group", c.by_group},
           {"by_trigger", c.by_trigger}, {"by_arch", c.by_arch},
           {"by_evidence", c.by_evidence}, {"by_kind", c.by_kind},
           {"any_problem_by_trigger", c.any_problem_by_trigger}};
}

/// @brief What the lint found.
struct LintReport {
  std::vector<BankIssue> issues;
  BankCounts counts;
  std::size_t errors() const {
    return static_cast<std::size_t>(std::count_if(issues.begin(), issues.end(), [](const BankIssue& i) { return i.is_error(); }));
  }
  std::size_t warnings() const { return issues.size() - errors(); }
};

/// @brief Counts per group, trigger, architecture and evidence.
inline BankCounts count_bank(const Bank& bank) {
  BankCounts c;
  for (Trigger t : all_triggers) c.by_trigger[std::string(to_string(t))] = 0;
  for (Trigger t : all_triggers) c.any_problem_by_trigger[std::string(to_string(t))] = 0;
  for (const auto& e : bank.entries) {
    ++c.entries;
    ++c.by_group[e.group];
    for (Trigger t : e.triggers) ++c.by_trigger[std::string(to_string(t))];
    if (e.arch.empty())
      ++c.by_arch["any"];
    else
      for (const auto& a : e.arch) ++c.by_arch[a];
    if (!e.arch.empty()) ++c.arch_specific;
    if (e.requires_reference) ++c.requires_reference;
    ++c.by_evidence[e.evidence];
    if (e.kinds.empty()) {
      ++c.by_kind["any"];
      for (Trigger t : e.triggers) ++c.any_problem_by_trigger[std::string(to_string(t))];
    }
    for (const auto& k : e.kinds) ++c.by_kind[k];
  }
  return c;
}

namespace detail::lint {

/// Words that carry no content, left out of similarity.
inline const std::set<std::string>& stopwords() {
  static const std::set<std::string> words = {
      "a",    "an",   "the",  "is",   "are",  "was",   "were", "be",   "been", "do",    "does",
      "did",  "of",   "to",   "in",   "on",   "at",    "for",  "by",   "with", "from",  "and",
      "or",   "it",   "its",  "this", "that", "these", "those", "your", "you", "what", "which",
      "how",  "many", "much", "any",  "each", "every", "as",   "than", "there", "has",  "have",
      "can",  "could", "would", "will", "if", "into", "per",  "one",  "only", "not",   "when",
      "where", "while", "does", "so",  "same", "other", "more", "less", "most"};
  return words;
}

/// Content words of a text: lower-case alphanumeric runs, stopwords dropped, a plural 's'
/// stripped from words longer than three letters.
inline std::set<std::string> content_words(std::string_view text) {
  std::set<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty() && !stopwords().count(w)) {
      if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
      out.insert(w);
    }
    w.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      flush();
  }
  flush();
  return out;
}

/// Phrases that give the answer instead of asking: advice, fixes, explanations.
inline const std::vector<std::string>& answer_phrases() {
  static const std::vector<std::string> phrases = {
      "you should", "you must", "you need to", "make sure", "the answer", "the fix", "the solution",
      "because",    "instead, use", "just use", "try using", "the trick", "the reason is"};
  return phrases;
}

/// Terms that only a GPU problem can act on: its tools, its hardware, its libraries. An entry
/// that names one serves only problems of kind `gpu`.
inline const std::vector<std::string>& gpu_only_terms() {
  static const std::vector<std::string> terms = {
      "gpu",   "cuda",        "ncu",         "nsys",          "nsight",      "compute-sanitizer", "cuobjdump",
      "sass",  "ptx",         "warp",        "warps",         "tensor core", "tensor-core",       "shared memory",
      "smem",  "occupancy",   "cudnn",       "cublas",        "cutlass",     "wgmma",             "hbm"};
  return terms;
}

/// The first GPU-only term `text` names as a word (any case), or empty.
inline std::string first_gpu_only_term(std::string_view text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const auto& term : gpu_only_terms())
    for (std::size_t at = lower.find(term); at != std::string::npos; at = lower.find(term, at + 1)) {
      const std::size_t end = at + term.size();
      if ((at == 0 || !word_char(lower[at - 1])) && (end == lower.size() || !word_char(lower[end]))) return term;
    }
  return {};
}

}  // namespace detail::lint

/// @brief Similarity of two question texts: Jaccard index |A ∩ B| / |A ∪ B| of their content-word
/// sets (lower case, stopwords and plural 's' removed). 1 for the same words in any order.
inline double text_similarity(std::string_view a, std::string_view b) {
  const auto wa = detail::lint::content_words(a), wb = detail::lint::content_words(b);
  if (wa.empty() && wb.empty()) return 1;
  std::size_t common = 0;
  for (const auto& w : wa) common += wb.count(w);
  return static_cast<double>(common) / static_cast<double>(wa.size() + wb.size() - common);
}

/// @brief Lints a bank already read (its read issues are included).
inline LintReport lint_bank(const BankReadResult& read, const LintOptions& options = {}) {
  LintReport r;
  r.issues = read.issues;
  const Bank& bank = read.bank;
  r.counts = count_bank(bank);
  auto add = [&](BankIssue::Severity s, const BankEntry* e, std::string field, std::string message) {
    r.issues.push_back({s, e ? e->file : std::string(), e ? e->where() : std::string(), std::move(field), std::move(message)});
  };
  const auto error = BankIssue::Severity::error, warning = BankIssue::Severity::warning;

  for (const auto& e : bank.entries) {
    const std::string& t = e.text;
    const auto last = t.find_last_not_of(" \t\r\n");
    if (last == std::string::npos || t[last] != '?')
      add(error, &e, "text", "is not a question (must end with '?')");
    else if (std::count(t.begin(), t.end(), '?') > 1)
      add(error, &e, "text", "asks more than one question (one '?' only: a question must be bounded)");
    std::size_t words = 0;
    bool in_word = false;
    for (char c : t) {
      const bool space = std::isspace(static_cast<unsigned char>(c));
      if (!space && !in_word) ++words;
      in_word = !space;
    }
    if (words > options.max_words)
      add(error, &e, "text", std::to_string(words) + " words, more than " + std::to_string(options.max_words) +
                                 " (a question must be short)");
    std::string lower;
    for (char c : t) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& phrase : detail::lint::answer_phrases())
      if (lower.find(phrase) != std::string::npos)
        add(error, &e, "text", "contains \"" + phrase + "\": a question names a hypothesis, it never gives the answer");
    if (e.checks.empty())
      add(warning, &e, "checks", "missing: say which measurement or reading answers the question");
    for (const auto& k : e.kinds)
      if (!known_problem_kinds().count(k))
        add(warning, &e, "kinds", "\"" + k + "\" is not a known problem kind (" + known_kinds_list() + "): a typo?");
    // An entry for any problem is asked of CPU problems too: it must not speak GPU.
    if (e.kinds.empty())
      for (const auto* part : {&e.text, &e.checks})
        if (const std::string term = detail::lint::first_gpu_only_term(*part); !term.empty()) {
          add(options.targets ? error : warning, &e, part == &e.text ? "text" : "checks",
              "names \"" + term + "\" but has no \"kinds\": an entry for any problem is asked of CPU problems too "
              "(give it \"kinds\": [\"gpu\"], or word it for any hardware)");
          break;
        }
  }

  for (std::size_t i = 0; i < bank.entries.size(); ++i)
    for (std::size_t j = i + 1; j < bank.entries.size(); ++j) {
      const double sim = text_similarity(bank.entries[i].text, bank.entries[j].text);
      if (sim >= options.near_duplicate_threshold) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", sim);
        add(error, &bank.entries[j], "text",
            "near-duplicate of " + bank.entries[i].file + " " + bank.entries[i].where() + " (similarity " + buf +
                " >= " + std::to_string(options.near_duplicate_threshold).substr(0, 4) + ")");
      }
    }

  for (const auto& [trigger, n] : r.counts.by_trigger)
    if (n == 0 && r.counts.entries > 0) add(warning, nullptr, "", "no entry serves trigger " + trigger);
  for (const auto& [trigger, n] : r.counts.any_problem_by_trigger)
    if (n == 0 && r.counts.by_trigger[trigger] > 0)
      add(warning, nullptr, "", "no entry for any problem (without \"kinds\") serves trigger " + trigger);

  const double share_limit = options.targets ? options.targets->max_group_share : options.max_group_share;
  for (const auto& [group, n] : r.counts.by_group) {
    const double share = r.counts.entries ? static_cast<double>(n) / static_cast<double>(r.counts.entries) : 0;
    if (r.counts.by_group.size() > 1 && share > share_limit)
      add(options.targets ? error : warning, nullptr, "",
          "group \"" + group + "\" holds " + std::to_string(n) + " of " + std::to_string(r.counts.entries) +
              " entries, more than " + std::to_string(static_cast<int>(share_limit * 100)) + "% (no group may dominate)");
  }

  if (options.targets) {
    const BankTargets& t = *options.targets;
    const auto& c = r.counts;
    auto target = [&](bool ok, const std::string& message) {
      if (!ok) add(error, nullptr, "", "target unmet: " + message);
    };
    target(c.entries >= t.min_entries, std::to_string(c.entries) + " entries, need " + std::to_string(t.min_entries));
    target(c.by_group.size() >= t.min_groups,
           std::to_string(c.by_group.size()) + " groups, need " + std::to_string(t.min_groups));
    target(c.requires_reference >= t.min_requires_reference,
           std::to_string(c.requires_reference) + " entries need a reference, need " + std::to_string(t.min_requires_reference));
    target(c.arch_specific >= t.min_arch_specific,
           std::to_string(c.arch_specific) + " architecture-specific entries, need " + std::to_string(t.min_arch_specific));
    for (const auto& [trigger, n] : c.by_trigger)
      target(n >= t.min_per_trigger,
             "trigger " + trigger + " served by " + std::to_string(n) + " entries, need " + std::to_string(t.min_per_trigger));
    for (const auto& [trigger, n] : c.any_problem_by_trigger)
      target(n >= t.min_any_problem_per_trigger,
             "trigger " + trigger + " served by " + std::to_string(n) + " entries for any problem (no \"kinds\"), need " +
                 std::to_string(t.min_any_problem_per_trigger));
  }
  return r;
}

/// @brief Reads and lints a bank folder.
inline LintReport lint_bank(const std::filesystem::path& dir, const LintOptions& options = {}) {
  return lint_bank(read_bank(dir), options);
}

}  // namespace socratic
