#pragma once
/// @file
/// @brief ClaimClassifier: reads an agent's last words and says whether they claim a limit
/// ("hardware limit", "cannot be improved", "optimal") or completion ("done", "goal met").
///
/// The classifier never decides whether the work is finished: the goal predicate does. It only
/// tells the claimed-limit detector which kind of claim was made, so that the question source can
/// pick a question that fits it. Replace the rule-based default by deriving from ClaimClassifier
/// (an LLM judge, a classifier trained on your own traces) and passing it to
/// ClaimedLimitDetector.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/questions/detail/phrase_matcher.hpp"

namespace socratic {

/// @brief What an agent's message claims.
enum class ClaimKind {
  limit,       ///< a limit: hardware, theoretical, "cannot be improved", "optimal"
  completion,  ///< completion: "done", "finished", "goal met"
};

constexpr std::string_view to_string(ClaimKind k) noexcept {
  return k == ClaimKind::limit ? "limit" : "completion";
}

/// @brief A claim found in a message, with the words that made it.
struct Claim {
  ClaimKind kind = ClaimKind::limit;
  std::string phrase;  ///< the words that matched, as written
  std::string rule;    ///< which rule matched (for the trace)
};

/// @brief The classifier interface.
class ClaimClassifier {
 public:
  virtual ~ClaimClassifier() = default;
  /// @brief The claim `message` makes, or nullopt when it makes none.
  virtual std::optional<Claim> classify(std::string_view message) const = 0;
};

/// @brief The default classifier: English phrases, negation-aware ("not optimal yet" is no
/// claim), questions ignored ("Is this optimal?"). A limit claim wins over a completion claim
/// in the same message, since "done, it is at the hardware limit" argues from the limit.
///
/// The phrase lists are public members: add to them, or clear them and write your own.
class RuleBasedClaimClassifier : public ClaimClassifier {
 public:
  std::vector<detail::Phrase> limit_phrases = {
      {"hardware-limit",
       R"(\b(hardware|physical|theoretical|fundamental|architectural|bandwidth|memory|compute|throughput|tensor[- ]core)[- ](limits?|ceilings?|bounds?|maximum|peak)\b)"},
      {"cannot-improve",
       R"(\b(cannot|can ?not|can't|couldn't|could not) be (further |much |meaningfully |significantly )?(improved|optimi[sz]ed|made (any )?faster|sped up|beaten|reduced)\b)"},
      {"cannot-improve",
       R"(\b(don't|do not|doesn't|does not) (think|believe|see how|expect) (it|this|that|the kernel|we|the code) (can|could) (be )?(further |much |meaningfully )?(improved|optimi[sz]ed|made faster|sped up|go faster|get faster|be beaten)\b)"},
      {"optimal", R"(\b(optimal|optimum|optimally)\b)"},
      {"at-the-limit", R"(\b(at|reached|hit|hitting|reaching) (the )?(roofline|peak|limit|ceiling|speed of light)\b)"},
      {"no-further-gain",
       R"(\bno (further|more|additional|significant) (improvements?|optimi[sz]ations?|gains?|speedups?|headroom)\b)"},
      {"nothing-left", R"(\bnothing (left|more|else) to (gain|optimi[sz]e|improve|squeeze)\b)"},
      {"diminishing-returns", R"(\bdiminishing returns\b)"},
      {"as-fast-as-possible", R"(\bas fast as (it|this|the (gpu|hardware|kernel)) (can|gets|allows|will)\b|\bas fast as possible\b)"},
      {"best-possible", R"(\bbest (possible|achievable|attainable)\b)"},
      {"saturated", R"(\b(saturat(es|ed|ing)|maxe[sd] out|maxing out)\b)"},
      {"bound-by", R"(\b(entirely|fully|purely|completely) (memory|bandwidth|compute|latency)[- ]bound\b)"},
  };
  std::vector<detail::Phrase> completion_phrases = {
      {"done", R"(\b(i am|i'm|we are|we're|it is|it's|work is|task is|everything is|all|now|kernel is) (done|complete|completed|finished)\b)"},
      {"done-alone", R"(^(done|finished|complete)$)"},
      {"task-complete", R"(\b(task|work|optimi[sz]ation|job|implementation) (is |has been )?(complete|completed|finished|done)\b)"},
      {"final-version", R"(\bfinal (version|kernel|answer|implementation|result)\b)"},
      {"goal-met", R"(\b(goal|target|objective|requirements?) (is |are |has been |have been )?(met|achieved|reached|satisfied)\b)"},
      {"ready", R"(\bready (for review|to ship|to merge|for production)\b)"},
      {"stopping", R"(\b(i('ll| will) stop|stopping) here\b|\bthat concludes\b)"},
  };

  std::optional<Claim> classify(std::string_view message) const override {
    if (auto m = detail::find_phrases(message, limit_phrases, 1); !m.empty())
      return Claim{ClaimKind::limit, m.front().text, m.front().label};
    if (auto m = detail::find_phrases(message, completion_phrases, 1); !m.empty())
      return Claim{ClaimKind::completion, m.front().text, m.front().label};
    return std::nullopt;
  }
};

}  // namespace socratic
