#pragma once
// A certificate authority and a server certificate made during the test (OpenSSL API), so the
// TLS tests never depend on files or on the network.

#include <string>
#include <vector>

namespace socratic::testing {

struct TestPki {
  std::string ca_cert_pem;      ///< the authority the client is told to trust
  std::string server_cert_pem;  ///< signed by the authority
  std::string server_key_pem;
};

/// @brief A fresh CA and a server certificate for the given DNS names and IP addresses.
TestPki make_test_pki(const std::vector<std::string>& dns_names,
                      const std::vector<std::string>& ip_addresses);

}  // namespace socratic::testing
