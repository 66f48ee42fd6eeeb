#pragma once
/// @file
/// @brief When and how long to wait before retrying a model call: pure logic, no transport.
///
/// The rules follow the official OpenAI and Anthropic SDKs: retry 408, 409, 429, 5xx and
/// connection errors; honour `retry-after-ms` / `retry-after` when the server asks for at most
/// a minute; otherwise wait min(0.5 s * 2^n, 30 s), shortened by up to a quarter at random so
/// that many clients do not retry in lockstep. Unlike the SDKs' two retries, a campaign keeps
/// retrying a transient failure for a time (ten minutes by default): an overload that lasts a
/// minute must not end hours of work. Whether a 429 is a spend limit (never retried) is the
/// backend's call: it depends on the provider's error body.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "socratic/http/detail/text.hpp"

namespace socratic::http {

/// @brief How a backend retries.
struct RetryPolicy {
  int max_retries = 100;  ///< retries after the first attempt, at most (max_retry_time usually ends them first)
  /// The longest one call keeps retrying, attempts and waits together: no retry starts whose
  /// wait would end past it. Zero: only `max_retries` limits.
  std::chrono::milliseconds max_retry_time{600'000};
  std::chrono::milliseconds initial_delay{500};     ///< first backoff step
  std::chrono::milliseconds max_delay{30'000};      ///< backoff ceiling
  std::chrono::milliseconds max_retry_after{60000}; ///< a longer server-asked wait is not honoured
  double jitter = 0.25;  ///< the backoff is scaled by a factor drawn from [1 - jitter, 1]
  /// Connections refused this many times in a row end the retries at once: nothing listens at
  /// the address (a server not started, a wrong port), and waiting out `max_retry_time` would
  /// only hide that. With the default backoff, five refusals span about 7 s, time enough for a
  /// server that is starting. Zero: refusals are retried like any transient failure.
  int max_refused_in_a_row = 5;
};

/// @brief True for statuses worth retrying: 408 (timeout), 409 (lock), 429 (rate), 5xx.
constexpr bool is_retryable_status(int status) noexcept {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

namespace detail {

/// A non-negative decimal number ("1", "0.25"); nullopt for anything else.
inline std::optional<double> parse_non_negative(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  double value = 0, scale = 0;
  bool digits = false;
  for (char c : s) {
    if (c == '.' && scale == 0) {
      scale = 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
      if (scale == 0) {
        value = value * 10 + (c - '0');
      } else {
        scale /= 10;
        value += (c - '0') * scale;
      }
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  return value;
}

/// An IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT") as seconds since the epoch.
inline std::optional<std::time_t> parse_http_date(std::string_view s) {
  s = trim(s);
  static constexpr std::string_view months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  // "Www, DD Mon YYYY HH:MM:SS GMT": 29 characters.
  if (s.size() != 29 || s[3] != ',' || s.substr(26) != "GMT") return std::nullopt;
  auto number = [&](std::size_t pos, std::size_t len) -> int {
    int v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  std::tm tm{};
  tm.tm_mday = number(5, 2);
  tm.tm_mon = -1;
  for (int m = 0; m < 12; ++m)
    if (s.substr(8, 3) == months[m]) tm.tm_mon = m;
  tm.tm_year = number(12, 4) - 1900;
  tm.tm_hour = number(17, 2);
  tm.tm_min = number(20, 2);
  tm.tm_sec = number(23, 2);
  if (tm.tm_mday < 1 || tm.tm_mon < 0 || tm.tm_year < 70 || tm.tm_hour < 0 || tm.tm_min < 0 ||
      tm.tm_sec < 0)
    return std::nullopt;
  return ::timegm(&tm);
}

}  // namespace detail

/// @brief The wait a server asked for: `retry-after-ms` (milliseconds) first, else `retry-after`
/// (seconds, or an HTTP date relative to `now`). nullopt when absent or unreadable.
inline std::optional<std::chrono::milliseconds> server_retry_delay(
    std::string_view retry_after_ms, std::string_view retry_after,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) {
  using std::chrono::milliseconds;
  if (auto ms = detail::parse_non_negative(retry_after_ms))
    return milliseconds(static_cast<long long>(std::llround(*ms)));
  if (auto s = detail::parse_non_negative(retry_after))
    return milliseconds(static_cast<long long>(std::llround(*s * 1000)));
  if (auto date = detail::parse_http_date(retry_after)) {
    const auto then = std::chrono::system_clock::from_time_t(*date);
    return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(then - now));
  }
  return std::nullopt;
}

/// @brief The exponential backoff before retry number `retry` (0 for the first retry).
/// @param unit_random a number in [0, 1) that picks the jitter.
inline std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry,
                                               double unit_random) {
  const double base = static_cast<double>(policy.initial_delay.count()) *
                      std::pow(2.0, std::clamp(retry, 0, 30));
  const double capped = std::min(base, static_cast<double>(policy.max_delay.count()));
  const double factor = 1.0 - policy.jitter * std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<long long>(std::llround(capped * factor)));
}

/// @brief The wait before retry number `retry`: the server's, when it asked for one within
/// `policy.max_retry_after`, else the backoff.
inline std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int retry,
                                             std::optional<std::chrono::milliseconds> server_delay,
                                             double unit_random) {
  if (server_delay && *server_delay <= policy.max_retry_after) return *server_delay;
  return backoff_delay(policy, retry, unit_random);
}

}  // namespace socratic::http
