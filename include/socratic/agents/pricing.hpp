#pragma once
/// @file
/// @brief PriceTable: what a model's tokens cost, and how large its context window is,
/// configurable (nothing is built in: prices and models change, and a stale figure is worse
/// than none). Light.

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"

namespace socratic {

/// @brief Prices in US dollars per million tokens. Cache prices default to the input price.
struct ModelPrice {
  double input = 0;
  double output = 0;
  std::optional<double> cache_read;
  std::optional<double> cache_write;
  friend bool operator==(const ModelPrice&, const ModelPrice&) = default;
};

/// @brief Model name (or prefix ending in `*`) to price.
///
/// File format (USD per million tokens):
/// @code{.json}
/// {"schema_version": 1,
///  "models": {"gpt-4.1": {"input": 2.0, "output": 8.0, "cache_read": 0.5, "context_window": 1047576},
///             "claude-sonnet-4*": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}}}
/// @endcode
class PriceTable {
 public:
  /// @brief Sets the price of `pattern`: a model name, or a prefix followed by `*`.
  void set(std::string pattern, ModelPrice price) { prices_[std::move(pattern)] = price; }
  bool empty() const noexcept { return prices_.empty(); }

  /// @brief The price of `model`: an exact entry first, else the longest matching prefix.
  std::optional<ModelPrice> find(std::string_view model) const { return lookup(prices_, model); }

  /// @brief Sets the context window (tokens) of `pattern`: a model name, or a prefix and `*`.
  void set_context_window(std::string pattern, long long tokens) { windows_[std::move(pattern)] = tokens; }

  /// @brief The context window of `model` when the table states one (exact name first, else the
  /// longest matching prefix): the LLM agent's default window for it.
  std::optional<long long> context_window(std::string_view model) const { return lookup(windows_, model); }

  /// @brief The cost of `usage` for the first of `models` that has a price; nullopt when none has.
  std::optional<double> cost(std::initializer_list<std::string_view> models, const Usage& usage) const {
    for (auto m : models) {
      if (m.empty()) continue;
      if (auto p = find(m)) {
        const double per = 1e-6;
        return per * (static_cast<double>(usage.input_tokens) * p->input +
                      static_cast<double>(usage.output_tokens) * p->output +
                      static_cast<double>(usage.cache_read_tokens) * p->cache_read.value_or(p->input) +
                      static_cast<double>(usage.cache_write_tokens) * p->cache_write.value_or(p->input));
      }
    }
    return std::nullopt;
  }

  /// @brief Reads the format above. @throws input_error naming the file, model and field.
  static PriceTable from_json(const json& j, const std::string& file = {}) {
    try {
      check_schema_version(j, "price table");
    } catch (const input_error& e) {
      throw input_error(file, e.where(), e.message());
    }
    if (!j.is_object() || !j.contains("models") || !j["models"].is_object())
      throw input_error(file, "price table", "expected an object with a \"models\" object");
    PriceTable t;
    for (const auto& [model, entry] : j["models"].items()) {
      const std::string where = "model \"" + model + "\"";
      if (!entry.is_object()) throw input_error(file, where, "expected an object");
      ModelPrice p;
      reject_unknown_fields(entry, {"input", "output", "cache_read", "cache_write", "context_window"}, file, where);
      for (const auto& [field, value] : entry.items()) {
        if (field == "context_window") {
          if (!value.is_number_integer() || value.get<long long>() < 1024)
            throw input_error(file, where + " field \"context_window\"", "expected a number of tokens (at least 1024)");
          t.set_context_window(model, value.get<long long>());
          continue;
        }
        if (!value.is_number() || value.get<double>() < 0)
          throw input_error(file, where + " field \"" + field + "\"",
                            "expected a non-negative number (USD per million tokens)");
        const double v = value.get<double>();
        if (field == "input") p.input = v;
        else if (field == "output") p.output = v;
        else if (field == "cache_read") p.cache_read = v;
        else if (field == "cache_write") p.cache_write = v;
      }
      if (!entry.contains("input") || !entry.contains("output"))
        throw input_error(file, where, "needs both \"input\" and \"output\"");
      t.set(model, p);
    }
    return t;
  }

  /// @brief Reads a price file. @throws input_error naming the file.
  static PriceTable from_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw input_error(path.string(), "price table", "cannot be read");
    json j;
    try {
      j = json::parse(in);
    } catch (const json::parse_error& e) {
      throw input_error(path.string(), "price table", std::string("not valid JSON: ") + e.what());
    }
    return from_json(j, path.string());
  }

  /// @brief The file named by `$SOCRATIC_PRICES`, or an empty table when it is unset.
  static PriceTable from_environment() {
    const char* path = std::getenv("SOCRATIC_PRICES");
    return path && *path ? from_file(path) : PriceTable{};
  }

 private:
  template <class Value>
  static std::optional<Value> lookup(const std::map<std::string, Value, std::less<>>& table, std::string_view model) {
    if (auto it = table.find(model); it != table.end()) return it->second;
    std::optional<Value> best;
    std::size_t best_length = 0;
    for (const auto& [pattern, value] : table) {
      if (pattern.empty() || pattern.back() != '*') continue;
      const std::string_view prefix(pattern.data(), pattern.size() - 1);
      if (model.substr(0, prefix.size()) == prefix && (!best || prefix.size() > best_length)) {
        best = value;
        best_length = prefix.size();
      }
    }
    return best;
  }

  std::map<std::string, ModelPrice, std::less<>> prices_;
  std::map<std::string, long long, std::less<>> windows_;
};

}  // namespace socratic
