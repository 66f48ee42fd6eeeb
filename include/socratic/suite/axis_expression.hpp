#pragma once
/// @file
/// @brief A small, safe integer evaluator for the `expr` axes of a definition
/// (`"hidden_size // num_heads"`): integer literals, axis names, `+ - * / // % **`, unary `+ -`
/// and parentheses, with Python's meaning (`//` floors, `%` takes the divisor's sign). `/` must
/// divide exactly (an axis is a whole number). Overflow, division by zero and a negative power are
/// errors that quote the expression; nothing else is ever evaluated.

#include <cctype>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"

namespace socratic::suite {

/// @brief Looks up an axis by name: its value, or nothing when the name is unknown.
using AxisLookup = std::function<std::optional<std::int64_t>(std::string_view name)>;

namespace detail {

class AxisExpressionParser {
 public:
  AxisExpressionParser(std::string_view text, const AxisLookup* lookup, std::vector<std::string>* names)
      : text_(text), lookup_(lookup), names_(names) {}

  std::int64_t parse() {
    const std::int64_t value = sum();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected \"" + std::string(text_.substr(pos_, 1)) + "\"");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error({}, {}, "expression \"" + std::string(text_) + "\": " + what + " at column " +
                                  std::to_string(pos_ + 1));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(std::string_view op) {
    skip_space();
    if (text_.substr(pos_, op.size()) != op) return false;
    // `*` is not `**` and `/` is not `//`
    if ((op == "*" || op == "/") && text_.substr(pos_ + 1, 1) == op) return false;
    pos_ += op.size();
    return true;
  }
  // Collecting names only (no lookup): values are placeholders, so arithmetic never fails.
  bool collecting() const { return lookup_ == nullptr; }
  std::int64_t checked(bool overflowed, std::int64_t value) const {
    if (overflowed && !collecting()) fail("the value overflows 64 bits");
    return value;
  }
  std::int64_t add(std::int64_t a, std::int64_t b) const {
    std::int64_t out = 0;
    const bool overflowed = __builtin_add_overflow(a, b, &out);  // before `out` is read
    return checked(overflowed, out);
  }
  std::int64_t subtract(std::int64_t a, std::int64_t b) const {
    std::int64_t out = 0;
    const bool overflowed = __builtin_sub_overflow(a, b, &out);  // before `out` is read
    return checked(overflowed, out);
  }
  std::int64_t multiply(std::int64_t a, std::int64_t b) const {
    std::int64_t out = 0;
    const bool overflowed = __builtin_mul_overflow(a, b, &out);  // before `out` is read
    return checked(overflowed, out);
  }
  std::int64_t sum() {
    std::int64_t value = product();
    for (;;) {
      if (take("+")) {
        value = add(value, product());
      } else if (take("-")) {
        value = subtract(value, product());
      } else {
        return value;
      }
    }
  }
  std::int64_t product() {
    std::int64_t value = unary();
    for (;;) {
      if (take("*")) {
        value = multiply(value, unary());
      } else if (take("//")) {
        value = floor_divide(value, divisor(unary()));
      } else if (take("/")) {
        const std::int64_t r = divisor(unary());
        if (value % r != 0 && !collecting())
          fail(std::to_string(value) + " / " + std::to_string(r) + " is not a whole number (use // to floor)");
        value = floor_divide(value, r);
      } else if (take("%")) {
        const std::int64_t r = divisor(unary());
        value = subtract(value, multiply(floor_divide(value, r), r));
      } else {
        return value;
      }
    }
  }
  std::int64_t divisor(std::int64_t r) const {
    if (r == 0 && collecting()) return 1;
    if (r == 0) fail("division by zero");
    return r;
  }
  std::int64_t floor_divide(std::int64_t a, std::int64_t b) const {
    if (a == INT64_MIN && b == -1) return checked(true, 0);
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  std::int64_t unary() {
    if (take("-")) {
      const std::int64_t v = unary();
      if (v == INT64_MIN) return checked(true, 0);
      return -v;
    }
    if (take("+")) return unary();
    return power();
  }
  std::int64_t power() {
    const std::int64_t base = atom();
    if (!take("**")) return base;
    const std::int64_t exponent = unary();
    if (exponent < 0) fail("a negative power is not a whole number");
    if (base == 0) return exponent == 0 ? 1 : 0;
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 ? -1 : 1;
    std::int64_t value = 1;  // |base| >= 2: overflows within 64 steps
    for (std::int64_t i = 0; i < exponent; ++i) value = multiply(value, base);
    return value;
  }
  std::int64_t atom() {
    skip_space();
    if (pos_ >= text_.size()) fail("a value is missing");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const std::int64_t value = sum();
      if (!take(")")) fail("\")\" is missing");
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const std::int64_t digit = text_[pos_] - '0';
        if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, digit, &value))
          fail("the literal overflows 64 bits");
        ++pos_;
      }
      if (pos_ < text_.size() && (text_[pos_] == '.' || std::isalpha(static_cast<unsigned char>(text_[pos_]))))
        fail("only whole-number literals are allowed");
      return value;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string name(text_.substr(start, pos_ - start));
      if (names_) names_->push_back(name);
      if (!lookup_) return 1;  // collecting names only
      const std::optional<std::int64_t> value = (*lookup_)(name);
      if (!value) {
        pos_ = start;
        fail("axis \"" + name + "\" is not defined");
      }
      return *value;
    }
    fail("unexpected \"" + std::string(1, c) + "\"");
  }

  std::string_view text_;
  const AxisLookup* lookup_;
  std::vector<std::string>* names_;
  std::size_t pos_ = 0;
};

}  // namespace detail

/// @brief The value of `expression` with the axes `lookup` gives. Throws input_error (no file, no
/// field: the caller adds them) whose message quotes the expression, names what failed and where.
inline std::int64_t evaluate_axis_expression(std::string_view expression, const AxisLookup& lookup) {
  return detail::AxisExpressionParser(expression, &lookup, nullptr).parse();
}

/// @brief The axis names `expression` uses, in order; checks its syntax only (no values needed).
inline std::vector<std::string> axis_expression_names(std::string_view expression) {
  std::vector<std::string> names;
  detail::AxisExpressionParser(expression, nullptr, &names).parse();
  return names;
}

}  // namespace socratic::suite
