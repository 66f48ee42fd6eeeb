// The runner's options (docs/runner-protocol.md, "Running"). The host writes them on the
// runner's standard input (`runner --options-stdin`, one word a line), never on its command
// line: every process of the machine can read a command line (/proc/PID/cmdline), a worker
// included, and the seed, the tolerance and the sampling rules are the judge's alone. Plain
// C++17, no CUDA: the parsing is unit-tested on machines without a GPU
// (tests/gpu/test_runner_logic.cpp).
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sides.hpp"

namespace socratic::harness {

/// Everything the runner can be told. Defaults are the protocol's.
struct RunnerOptions {
  /// --baseline: the baseline shared object, or pytorch_eager / pytorch_compile (the problem's
  /// PyTorch reference as every scenario's baseline; sides.hpp)
  std::string baseline;
  std::string candidate;          ///< --candidate: the candidate shared object
  std::string scenarios;          ///< --scenarios: scenario-set JSON file
  std::vector<std::string> only;  ///< --only: scenario ids to run (all when empty)
  /// --seed: a reproducible run, whose inputs, poisons and schedule derive from this seed. Unset
  /// (the default): a fresh secret key per run (secret.hpp), never written anywhere.
  std::optional<std::uint64_t> seed;
  double k = 2.0;                 ///< --k: FA-style multiplier of the baseline's error
  bool timing = true;             ///< --no-timing: correctness only
  int min_samples = 12;           ///< --min-samples: timed samples before the noise rule may stop
  int max_samples = 200;          ///< --max-samples: cap on timed samples per implementation
  double target_noise = 0.005;    ///< --target-noise: stop when the median's relative error < this
  double max_ms_per_scenario = 3000;  ///< --max-ms-per-scenario: wall-clock cap on timing
  // Extensions (documented in docs/runner-protocol.md and docs/harness.md).
  int trials = 3;                      ///< --trials: correctness trials (input scales) per scenario
  int warmup = 2;                      ///< --warmup: untimed calls per implementation before timing
  /// --recheck-every N: each timed sample gets the full reference check with probability 1/N,
  /// drawn from the judge's secret after the sample ran (every timed output is also compared
  /// with the baseline's output of the same sample, always).
  int recheck_every = 8;
  /// --no-launch-hold: time each call from an idle GPU (its host-side launch in the interval)
  /// instead of behind the worker's hold kernel (timing.cuh, "the hold").
  bool launch_hold = true;
  std::size_t guard_elements = 16384;  ///< --guard-elements: guard band per side, elements
  double scenario_timeout_s = 120;     ///< --scenario-timeout-s: watchdog per scenario (0 = off)
  int placements = 3;                  ///< --placements: buffer allocations the samples rotate over
};

namespace detail {

inline std::string need_value(int argc, char** argv, int& i) {
  const std::string name = argv[i];
  if (i + 1 >= argc) throw std::invalid_argument("option " + name + " needs a value");
  return argv[++i];
}

inline double parse_number(const std::string& name, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v))
    throw std::invalid_argument("option " + name + ": expected a number, got \"" + text + "\"");
  return v;
}

inline long long parse_integer(const std::string& name, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0)
    throw std::invalid_argument("option " + name + ": expected an integer, got \"" + text + "\"");
  return v;
}

inline std::vector<std::string> split_ids(const std::string& name, const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      if (item.empty())
        throw std::invalid_argument("option " + name + ": empty scenario id in \"" + text + "\"");
      out.push_back(item);
      item.clear();
    } else {
      item += text[i];
    }
  }
  return out;
}

}  // namespace detail

/// Parses the option words (argv without the program); throws std::invalid_argument naming
/// the option that was wrong.
inline RunnerOptions parse_runner_words(const std::vector<std::string>& words) {
  std::vector<char*> pointers{const_cast<char*>("socratic-runner")};
  for (const auto& w : words) pointers.push_back(const_cast<char*>(w.c_str()));
  const int argc = static_cast<int>(pointers.size());
  char** argv = pointers.data();
  RunnerOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto integer = [&](long long lo, long long hi) {
      const long long v = detail::parse_integer(a, detail::need_value(argc, argv, i));
      if (v < lo || v > hi)
        throw std::invalid_argument("option " + a + ": " + std::to_string(v) + " is outside [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return v;
    };
    auto positive = [&]() {
      const double v = detail::parse_number(a, detail::need_value(argc, argv, i));
      if (!(v > 0)) throw std::invalid_argument("option " + a + ": must be > 0");
      return v;
    };
    if (a == "--baseline") {
      o.baseline = detail::need_value(argc, argv, i);
    } else if (a == "--candidate") {
      o.candidate = detail::need_value(argc, argv, i);
    } else if (a == "--scenarios") {
      o.scenarios = detail::need_value(argc, argv, i);
    } else if (a == "--only") {
      for (auto& id : detail::split_ids(a, detail::need_value(argc, argv, i))) o.only.push_back(id);
    } else if (a == "--seed") {
      const std::string text = detail::need_value(argc, argv, i);
      errno = 0;
      char* end = nullptr;
      const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
      if (text.empty() || text[0] == '-' || end != text.c_str() + text.size() || errno != 0)
        throw std::invalid_argument("option --seed: expected an unsigned integer, got \"" + text +
                                    "\"");
      o.seed = v;
    } else if (a == "--options-stdin") {
      throw std::invalid_argument("--options-stdin must be the only word of the command line");
    } else if (a == "--k") {
      o.k = positive();
    } else if (a == "--no-launch-hold") {
      o.launch_hold = false;
    } else if (a == "--no-timing") {
      o.timing = false;
    } else if (a == "--min-samples") {
      o.min_samples = static_cast<int>(integer(1, 1000000));
    } else if (a == "--max-samples") {
      o.max_samples = static_cast<int>(integer(1, 1000000));
    } else if (a == "--target-noise") {
      o.target_noise = positive();
    } else if (a == "--max-ms-per-scenario") {
      o.max_ms_per_scenario = positive();
    } else if (a == "--trials") {
      o.trials = static_cast<int>(integer(2, 1000));
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(integer(0, 1000));
    } else if (a == "--recheck-every") {
      o.recheck_every = static_cast<int>(integer(1, 1000000));
    } else if (a == "--guard-elements") {
      o.guard_elements = static_cast<std::size_t>(integer(1, 1LL << 30));
    } else if (a == "--placements") {
      o.placements = static_cast<int>(integer(1, 16));
    } else if (a == "--scenario-timeout-s") {
      const double v = detail::parse_number(a, detail::need_value(argc, argv, i));
      if (v < 0) throw std::invalid_argument("option --scenario-timeout-s: must be >= 0");
      o.scenario_timeout_s = v;
    } else {
      throw std::invalid_argument("unknown option \"" + a + "\" (see docs/runner-protocol.md)");
    }
  }
  if (o.baseline.empty()) throw std::invalid_argument("missing --baseline BASE.so");
  baseline_option(o.baseline);  // "native" is refused by name
  if (o.candidate.empty()) throw std::invalid_argument("missing --candidate CAND.so");
  if (o.scenarios.empty()) throw std::invalid_argument("missing --scenarios FILE.json");
  if (o.min_samples > o.max_samples)
    throw std::invalid_argument("--min-samples (" + std::to_string(o.min_samples) +
                                ") is larger than --max-samples (" + std::to_string(o.max_samples) +
                                ")");
  return o;
}

/// Parses argv (for a person at a terminal; the host uses --options-stdin).
inline RunnerOptions parse_runner_options(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i]);
  return parse_runner_words(words);
}

/// The option words of `--options-stdin`: one a line (a path may hold spaces), a final newline
/// optional, no empty word.
inline std::vector<std::string> option_words_from_text(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      if (word.empty())
        throw std::invalid_argument("--options-stdin: empty line " + std::to_string(words.size() + 1));
      words.push_back(word);
      word.clear();
    } else {
      word += text[i];
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

}  // namespace socratic::harness
