#pragma once
/// @file
/// @brief Which proxy (if any) a request goes through: `HTTPS_PROXY`, `HTTP_PROXY` and
/// `NO_PROXY`, read the way curl reads them. Light: no transport.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "socratic/http/url.hpp"

namespace socratic::http {

namespace detail {

inline std::optional<std::uint32_t> parse_ipv4(std::string_view s) {
  std::uint32_t out = 0;
  int parts = 0;
  while (!s.empty()) {
    std::size_t n = 0;
    unsigned value = 0;
    while (n < s.size() && n < 4 && std::isdigit(static_cast<unsigned char>(s[n])))
      value = value * 10 + static_cast<unsigned>(s[n++] - '0');
    if (n == 0 || value > 255) return std::nullopt;
    out = (out << 8) | value;
    ++parts;
    s.remove_prefix(n);
    if (s.empty()) break;
    if (s.front() != '.' || parts == 4) return std::nullopt;
    s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
  }
  if (parts != 4) return std::nullopt;
  return out;
}

/// One NO_PROXY entry against a host and port: `*`, a domain (`example.com` and `.example.com`
/// both match the domain and its subdomains), an IP literal, an IPv4 CIDR block, each with an
/// optional `:port`.
inline bool no_proxy_entry_matches(std::string_view entry, const Url& target) {
  entry = trim(entry);
  if (entry.empty()) return false;
  if (entry == "*") return true;
  std::string pattern = lower(entry);
  // An optional port: the last colon when what follows is all digits (IPv6 entries are
  // compared whole, in brackets or not).
  if (pattern.front() == '[') {
    const auto close = pattern.find(']');
    if (close == std::string::npos) return false;
    std::string rest = pattern.substr(close + 1);
    pattern = pattern.substr(1, close - 1);
    if (!rest.empty()) {
      if (rest.front() != ':' || rest.substr(1) != std::to_string(target.port)) return false;
    }
    return pattern == target.host;
  }
  if (auto colon = pattern.rfind(':');
      colon != std::string::npos && pattern.find(':') == colon && colon + 1 < pattern.size()) {
    const std::string port = pattern.substr(colon + 1);
    if (port.find_first_not_of("0123456789") == std::string::npos) {
      if (port != std::to_string(target.port)) return false;
      pattern.resize(colon);
    }
  }
  if (pattern.empty()) return false;
  if (auto slash = pattern.find('/'); slash != std::string::npos) {
    const auto network = parse_ipv4(std::string_view(pattern).substr(0, slash));
    const auto host = parse_ipv4(target.host);
    const std::string bits_text = pattern.substr(slash + 1);
    if (!network || !host || bits_text.empty() ||
        bits_text.find_first_not_of("0123456789") != std::string::npos)
      return false;
    const int bits = std::stoi(bits_text);
    if (bits < 0 || bits > 32) return false;
    const std::uint32_t mask = bits == 0 ? 0u : ~std::uint32_t{0} << (32 - bits);
    return (*network & mask) == (*host & mask);
  }
  if (pattern.front() == '*' && pattern.size() > 1 && pattern[1] == '.') pattern.erase(0, 1);
  if (pattern.front() == '.') pattern.erase(0, 1);
  if (pattern.empty()) return false;
  if (target.host == pattern) return true;
  return target.host.size() > pattern.size() &&
         target.host.compare(target.host.size() - pattern.size(), pattern.size(), pattern) == 0 &&
         target.host[target.host.size() - pattern.size() - 1] == '.';
}

inline std::string getenv_string(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace detail

/// @brief True when `no_proxy` (a comma-separated NO_PROXY value) exempts `target`.
inline bool no_proxy_matches(std::string_view no_proxy, const Url& target) {
  while (!no_proxy.empty()) {
    const auto comma = no_proxy.find(',');
    if (detail::no_proxy_entry_matches(no_proxy.substr(0, comma), target)) return true;
    if (comma == std::string_view::npos) break;
    no_proxy.remove_prefix(comma + 1);
  }
  return false;
}

/// @brief Proxy settings. Empty strings mean "no proxy".
///
/// An `https://` target goes through `https_proxy` with a CONNECT tunnel; an `http://` target
/// goes through `http_proxy` with an absolute-form request. A proxy URL without a scheme is
/// taken as `http://`. Credentials in the proxy URL (`http://user:pass@host:port`) are sent as
/// Basic `Proxy-Authorization` and never appear in messages.
struct ProxySettings {
  std::string https_proxy;
  std::string http_proxy;
  std::string no_proxy;

  /// @brief From the environment: lower-case names first (`https_proxy`, `http_proxy`,
  /// `no_proxy`), then upper case, as curl does.
  static ProxySettings from_environment() {
    auto pick = [](const char* lower_name, const char* upper_name) {
      std::string v = detail::getenv_string(lower_name);
      return v.empty() ? detail::getenv_string(upper_name) : v;
    };
    ProxySettings s;
    s.https_proxy = pick("https_proxy", "HTTPS_PROXY");
    s.http_proxy = pick("http_proxy", "HTTP_PROXY");
    s.no_proxy = pick("no_proxy", "NO_PROXY");
    return s;
  }

  /// @brief The proxy to use for `target`, or nullopt for a direct connection.
  /// @throws input_error when the configured proxy URL is malformed or is `https://`.
  std::optional<Url> proxy_for(const Url& target) const {
    const std::string& configured = target.is_https() ? https_proxy : http_proxy;
    if (configured.empty() || no_proxy_matches(no_proxy, target)) return std::nullopt;
    const char* name = target.is_https() ? "HTTPS_PROXY" : "HTTP_PROXY";
    std::string text = configured;
    if (text.find("://") == std::string::npos) text = "http://" + text;
    Url proxy = parse_url(text, name);
    if (proxy.is_https())
      throw input_error({}, name,
                        "a proxy reached over TLS (https://) is not supported; give its "
                        "http:// address (the tunnel to the API is still TLS end to end)");
    if (configured.find("://") == std::string::npos || proxy.target == "/") proxy.target = "/";
    return proxy;
  }
};

}  // namespace socratic::http
