#pragma once
// The socratic tool's command line on CLI11 (Debian libcli11-dev, header-only): the conventions
// every command follows, the help layout, and the one-line errors with a hint.
//
// Conventions (docs/tool.md, "Command-line conventions"):
//   -h, --help          on every command and subcommand
//   -o, --output PATH   where a command writes what it makes (a report, a JSON file, a folder)
//   --json              print the machine-readable form on stdout instead of text
// Old spellings stay accepted as hidden aliases (add_hidden_alias) where scripts rely on them.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace socratic::tool {

/// A mistake in the command line (not in the data it names): printed as one line with a hint.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A whole number of at least `min` given to `option`; a usage_error on anything else ("3x", "-1").
inline long long parse_whole_number(const std::string& option, const std::string& text, long long min = 0) {
  try {
    std::size_t used = 0;
    const long long n = std::stoll(text, &used);
    if (used == text.size() && n >= min) return n;
  } catch (const std::exception&) {
  }
  throw usage_error(option + " needs a whole number of at least " + std::to_string(min) + ", got \"" + text + "\"");
}

/// A number given to `option` (all of `text`, "1.5", "2e3").
inline double parse_number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw usage_error(option + " needs a number, got \"" + text + "\"");
}

/// An unsigned 64-bit seed given to `option`.
inline std::uint64_t parse_seed(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(text, &used);
    if (used == text.size() && !text.empty() && text.front() != '-') return v;
  } catch (const std::exception&) {
  }
  throw usage_error(option + " needs a non-negative integer, got \"" + text + "\"");
}

/// `-o, --output PATH`: where the command writes what it makes.
inline CLI::Option* add_output_option(CLI::App& app, std::string& path, const std::string& what) {
  return app.add_option("-o,--output", path, what)->type_name("PATH");
}

/// `--json`: the machine-readable form on stdout instead of text.
inline CLI::Option* add_json_flag(CLI::App& app, bool& on, const std::string& what) {
  return app.add_flag("--json", on, what);
}

/// An old spelling of an option, still accepted, not listed in --help.
inline CLI::Option* add_hidden_alias(CLI::App& app, const std::string& name, std::string& value) {
  return app.add_option(name, value)->group("");
}

/// A string option that takes exactly one value per occurrence (repeatable, values may start with -).
inline CLI::Option* add_repeatable(CLI::App& app, const std::string& name, std::vector<std::string>& values,
                                   const std::string& what) {
  return app.add_option(name, values, what)->allow_extra_args(false);
}

namespace detail {

/// Levenshtein distance, for "did you mean".
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// The closest of `known` to `given` when it is close enough to be a typo; empty otherwise.
inline std::string closest(const std::string& given, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, given.size() / 3) + 1;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(given, k);
    if (d < best_distance || (d == best_distance && !best.empty() && k < best)) {
      if (d < best_distance) best_distance = d;
      best = k;
    }
  }
  return best;
}

inline std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden aliases are not suggested
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

inline std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands({})) names.push_back(s->get_name());
  return names;
}

inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

}  // namespace detail

/// The help layout: usage first, then the summary, the details, the arguments and the options.
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() {
    column_width(34);
    label("REQUIRED", "(required)");
  }
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string out = make_usage(app, std::move(name));
    if (!app->get_description().empty()) out += "\n" + app->get_description() + "\n";
    std::string details = app->get_footer();
    while (!details.empty() && details.back() == '\n') details.pop_back();
    const bool top = app->get_parent() == nullptr;  // the command list first, then how to go on
    if (!details.empty() && !top) out += "\n" + details + "\n";
    out += make_positionals(app);
    out += make_groups(app, mode);
    out += make_subcommands(app, mode);
    if (!details.empty() && top) out += "\n" + details + "\n";
    return out;
  }
};

/// Where `args` lead in `app`: the command path ("socratic bank lint"), the deepest subcommand
/// named, and the arguments after its name.
struct CommandPath {
  std::string path;
  const CLI::App* app = nullptr;
  std::vector<std::string> rest;
};
inline CommandPath command_path(const CLI::App& app, const std::vector<std::string>& args) {
  CommandPath out{app.get_name(), &app, {}};
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a.front() == '-') break;
    const CLI::App* next = nullptr;
    for (const CLI::App* s : out.app->get_subcommands({}))
      if (s->get_name() == a) next = s;
    if (!next) break;
    out.app = next;
    out.path += " " + a;
  }
  out.rest.assign(args.begin() + static_cast<long>(i), args.end());
  return out;
}

/// "unknown option --x; did you mean --y?" for the first option in `args` that `app` does not know.
inline std::string unknown_option_in(const CLI::App& app, const std::vector<std::string>& args) {
  const std::vector<std::string> known = detail::long_option_names(app);
  for (const auto& a : args) {
    if (a == "--") break;
    if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
    const std::string name = a.substr(0, a.find('='));
    bool found = false;
    for (const CLI::Option* o : app.get_options())
      for (const auto& l : o->get_lnames()) found = found || "--" + l == name;
    if (found) continue;
    const std::string guess = detail::closest(name, known);
    return "unknown option " + name + (guess.empty() ? "" : "; did you mean " + guess + "?");
  }
  return {};
}

/// A CLI11 parse error as one line, in the tool's words, with "did you mean" where it can tell.
/// `failing` is the deepest (sub)command named in `args`; `rest` the arguments after its name.
inline std::string describe_parse_error(const CLI::ParseError& e, const CLI::App& failing,
                                        const std::vector<std::string>& rest) {
  std::string what = e.what();
  // A required option reported missing is often a misspelt one: name the misspelling first.
  if (auto unknown = unknown_option_in(failing, rest); !unknown.empty()) return unknown;
  const auto after_colon = [&](const std::string& prefix) {
    return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : std::string();
  };
  if (auto extras = !after_colon("The following argument was not expected: ").empty()
                        ? after_colon("The following argument was not expected: ")
                        : after_colon("The following arguments were not expected: ");
      !extras.empty()) {
    const std::string first = extras.substr(0, extras.find(' '));
    if (!first.empty() && first.front() == '-') {
      const std::string name = first.substr(0, first.find('='));
      const std::string guess = detail::closest(name, detail::long_option_names(failing));
      return "unknown option " + name + (guess.empty() ? "" : "; did you mean " + guess + "?");
    }
    const auto subs = detail::subcommand_names(failing);
    if (!subs.empty()) {
      const std::string guess = detail::closest(first, subs);
      return "unknown subcommand \"" + first + "\"" + (guess.empty() ? "" : "; did you mean " + guess + "?") +
             " (one of: " + detail::join(subs, ", ") + ")";
    }
    return "unexpected argument \"" + first + "\"";
  }
  if (what == "A subcommand is required" || what.rfind("Requires at least", 0) == 0) {
    const auto subs = detail::subcommand_names(failing);
    if (!rest.empty() && !rest.front().empty() && rest.front().front() != '-') {
      const std::string guess = detail::closest(rest.front(), subs);
      return "unknown subcommand \"" + rest.front() + "\"" + (guess.empty() ? "" : "; did you mean " + guess + "?") +
             " (one of: " + detail::join(subs, ", ") + ")";
    }
    return "needs a subcommand: " + detail::join(subs, ", ");
  }
  if (const auto suffix = std::string(" is required");
      what.size() > suffix.size() && what.compare(what.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string name = what.substr(0, what.size() - suffix.size());
    return name.front() == '-' ? "missing required option " + name : "missing " + name;
  }
  if (what.find(" required ") != std::string::npos && what.find(" missing") != std::string::npos) {
    const std::string name = what.substr(0, what.find(':'));  // "--problem: 1 required NAME missing"
    return name + " needs a value";
  }
  return what;
}

}  // namespace socratic::tool
