#pragma once
/// @file
/// @brief Url: the parts of an `http://` or `https://` URL that a client needs. Light.

#include <cctype>
#include <string>
#include <string_view>

#include "socratic/core/error.hpp"
#include "socratic/http/detail/text.hpp"

namespace socratic::http {

/// @brief A parsed absolute URL. Only `http` and `https` are accepted.
struct Url {
  std::string scheme;    ///< `http` or `https`, lower case
  std::string userinfo;  ///< `user:password` before the host (proxies), percent-decoded
  std::string host;      ///< host name or IP literal, without brackets, lower case
  unsigned short port = 0;  ///< explicit port, else 80 / 443
  std::string target;    ///< path and query, at least `/`

  bool is_https() const noexcept { return scheme == "https"; }
  /// @brief `host:port` for CONNECT and Host headers (IPv6 literals in brackets).
  std::string authority() const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return h + ":" + std::to_string(port);
  }
  /// @brief The Host header value: the port only when it is not the scheme's default.
  std::string host_header() const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    const bool default_port = (is_https() && port == 443) || (!is_https() && port == 80);
    return default_port ? h : h + ":" + std::to_string(port);
  }
  /// @brief The URL without credentials, safe for messages and logs.
  std::string redacted() const { return scheme + "://" + host_header() + target; }
  /// @brief True when the host is an IPv4 or IPv6 literal (no SNI, IP verification).
  bool host_is_ip_literal() const {
    if (host.find(':') != std::string::npos) return true;
    if (host.empty()) return false;
    for (char c : host)
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
    return true;
  }
};


/// @brief Parses `scheme://[user[:password]@]host[:port][/path][?query]`.
/// @param what names the URL's origin in errors (e.g. `base_url`, `HTTPS_PROXY`).
/// @throws input_error naming `what` and the problem; the message never repeats credentials.
inline Url parse_url(std::string_view text, std::string_view what = "url") {
  auto fail = [&](const std::string& why) -> Url {
    throw input_error({}, std::string(what), why);
  };
  Url url;
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos)
    return fail("\"" + std::string(text.substr(0, 64)) +
                "\" is not an absolute URL (expected http://HOST or https://HOST)");
  url.scheme = detail::lower(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https")
    return fail("unsupported scheme \"" + url.scheme + "\" (http or https)");
  std::string_view rest = text.substr(scheme_end + 3);
  const auto path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  std::string_view path = path_start == std::string_view::npos ? "" : rest.substr(path_start);
  if (auto hash = path.find('#'); hash != std::string_view::npos) path = path.substr(0, hash);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.userinfo = detail::percent_decode(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("unterminated IPv6 literal in the host");
    url.host = detail::lower(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail("unexpected text after the IPv6 literal");
      port_text = after.substr(1);
    }
  } else {
    const auto colon = authority.rfind(':');
    url.host = detail::lower(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return fail("the URL has no host");
  url.port = url.is_https() ? 443 : 80;
  if (!port_text.empty()) {
    unsigned long port = 0;
    for (char c : port_text) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || port > 65535)
        return fail("invalid port \"" + std::string(port_text) + "\"");
      port = port * 10 + static_cast<unsigned long>(c - '0');
    }
    if (port == 0 || port > 65535) return fail("invalid port \"" + std::string(port_text) + "\"");
    url.port = static_cast<unsigned short>(port);
  }
  url.target = path.empty() ? "/" : std::string(path);
  if (url.target.front() == '?') url.target.insert(url.target.begin(), '/');
  return url;
}

/// @brief Joins a base URL (which may end in a path such as `/v1`) and a path (`/chat/completions`)
/// with exactly one slash between them.
inline std::string join_url(std::string_view base, std::string_view path) {
  std::string out(base);
  while (!out.empty() && out.back() == '/') out.pop_back();
  if (!path.empty() && path.front() != '/') out.push_back('/');
  out.append(path);
  return out;
}

}  // namespace socratic::http
