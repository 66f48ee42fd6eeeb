#pragma once
// A small command-line parser for the socratic tool: `--flag`, `--option VALUE`,
// `--option=VALUE` and positionals, with errors that name the offending argument.

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace socratic::tool {

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class parsed_args {
 public:
  /// @param flags    options without a value (e.g. "--json")
  /// @param options  options that take a value (e.g. "--problem"); may repeat
  parsed_args(const std::vector<std::string>& args, std::set<std::string> flags,
              std::set<std::string> options) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--") {
        positionals_.insert(positionals_.end(), args.begin() + static_cast<long>(i) + 1, args.end());
        break;
      }
      if (a.rfind("--", 0) == 0 && a.size() > 2) {
        std::string name = a, value;
        bool has_value = false;
        if (auto eq = a.find('='); eq != std::string::npos) {
          name = a.substr(0, eq);
          value = a.substr(eq + 1);
          has_value = true;
        }
        if (flags.count(name)) {
          if (has_value) throw usage_error(name + " takes no value");
          flags_.insert(name);
        } else if (options.count(name)) {
          if (!has_value) {
            if (i + 1 >= args.size()) throw usage_error(name + " needs a value");
            value = args[++i];
          }
          values_[name].push_back(value);
        } else {
          throw usage_error("unknown option " + name);
        }
      } else {
        positionals_.push_back(a);
      }
    }
  }

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
  }
  std::string value_or(const std::string& name, std::string fallback) const {
    auto v = value(name);
    return v ? *v : fallback;
  }
  std::string required(const std::string& name) const {
    auto v = value(name);
    if (!v) throw usage_error("missing required option " + name);
    return *v;
  }
  std::vector<std::string> values(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
  }
  const std::vector<std::string>& positionals() const { return positionals_; }

  /// A whole-number option at least `min`; a clear usage error on anything else ("3x", "-1").
  long long integer(const std::string& name, long long fallback, long long min = 0) const {
    auto v = value(name);
    if (!v) return fallback;
    try {
      std::size_t used = 0;
      const long long n = std::stoll(*v, &used);
      if (used == v->size() && n >= min) return n;
    } catch (const std::exception&) {
    }
    throw usage_error(name + " needs a whole number of at least " + std::to_string(min) + ", got \"" + *v + "\"");
  }

 private:
  std::set<std::string> flags_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
};

}  // namespace socratic::tool
