#pragma once
/// @file
/// @brief Url: the parts of an `http://` or `https://` URL that a client needs, parsed by
/// Boost.URL (a compiled library in Boost 1.81: link Boost::url, which the SDK's CMake target does).

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

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


namespace detail {

/// `text` with the userinfo of its authority (`user:password@`) replaced by `***@`, for errors
/// about a URL that did not parse (its parts are then unknown).
inline std::string without_credentials(std::string_view text) {
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return std::string(text);
  const auto authority_start = scheme_end + 3;
  const auto authority_end = std::min(text.find_first_of("/?#", authority_start), text.size());
  const auto at = text.substr(0, authority_end).rfind('@');
  if (at == std::string_view::npos || at < authority_start) return std::string(text);
  return std::string(text.substr(0, authority_start)) + "***" + std::string(text.substr(at));
}

}  // namespace detail

/// @brief Parses `scheme://[user[:password]@]host[:port][/path][?query]` (RFC 3986, with
/// Boost.URL); the fragment is dropped.
/// @param what names the URL's origin in errors (e.g. `base_url`, `HTTPS_PROXY`).
/// @throws input_error naming `what` and the problem; the message never repeats credentials.
inline Url parse_url(std::string_view text, std::string_view what = "url") {
  auto fail = [&](const std::string& why) -> Url { throw input_error({}, std::string(what), why); };
  // Checked before parsing: `localhost:8000` is a valid URI (scheme `localhost`), not the
  // address its writer meant.
  if (text.find("://") == std::string_view::npos)
    return fail("\"" + detail::without_credentials(text.substr(0, 64)) +
                "\" is not an absolute URL (expected http://HOST or https://HOST)");
  const boost::system::result<boost::urls::url_view> parsed =
      boost::urls::parse_uri(boost::urls::string_view(text.data(), text.size()));
  auto invalid = [&](const std::string& why) {
    return fail("\"" + detail::without_credentials(text.substr(0, 128)) + "\" is not a valid URL (" + why + ")");
  };
  if (!parsed) return invalid(parsed.error().message());
  const boost::urls::url_view& u = *parsed;
  // Boost 1.81 reads `host:80x/v1` as port 80 and path `x/v1`; after an authority a path starts
  // with a slash (RFC 3986, path-abempty).
  if (const auto path = u.encoded_path(); !path.empty() && path.front() != '/')
    return invalid("unexpected \"" + std::string(path) + "\" after the host and port");
  Url url;
  url.scheme = detail::lower(std::string_view(u.scheme().data(), u.scheme().size()));
  if (url.scheme != "http" && url.scheme != "https")
    return fail("unsupported scheme \"" + url.scheme + "\" (http or https)");
  if (u.has_userinfo()) url.userinfo = u.userinfo();
  switch (u.host_type()) {
    case boost::urls::host_type::name:
    case boost::urls::host_type::ipv4:
    case boost::urls::host_type::ipv6: url.host = detail::lower(u.host_address()); break;
    case boost::urls::host_type::ipvfuture: return fail("unsupported IP literal in the host (IPv4 or IPv6)");
    case boost::urls::host_type::none: break;
  }
  if (url.host.empty()) return fail("the URL has no host");
  url.port = url.is_https() ? 443 : 80;
  if (const auto port_text = u.port(); !port_text.empty()) {  // `host:` keeps the default
    unsigned long port = 0;
    for (char c : port_text) {
      port = port * 10 + static_cast<unsigned long>(c - '0');  // digits: the grammar's
      if (port > 65535) break;
    }
    if (port == 0 || port > 65535) return fail("invalid port \"" + std::string(port_text) + "\"");
    url.port = static_cast<unsigned short>(port);
  }
  url.target = u.encoded_path().empty() ? "/" : std::string(u.encoded_path());
  if (u.has_query()) url.target += "?" + std::string(u.encoded_query());
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
