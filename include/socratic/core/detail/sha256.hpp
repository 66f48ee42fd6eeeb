#pragma once
/// @file
/// @brief SHA-256 hex digests of bytes and files (OpenSSL's EVP), for content-addressed caches,
/// candidate snapshots and integrity checks.

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic::detail {

/// @brief Incremental SHA-256.
class sha256 {
 public:
  sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw error("sha256: cannot initialise OpenSSL digest");
  }
  sha256& update(std::string_view bytes) {
    if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1)
      throw error("sha256: digest update failed");
    return *this;
  }
  /// @brief Hex digest; the object must not be updated afterwards.
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md.data(), &len) != 1) throw error("sha256: final failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(len * 2);
    for (unsigned i = 0; i < len; ++i) {
      out.push_back(digits[md[i] >> 4]);
      out.push_back(digits[md[i] & 15]);
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

SOCRATIC_DECL std::string sha256_hex(std::string_view bytes);

SOCRATIC_DECL std::string sha256_file(const std::filesystem::path& path);

}  // namespace socratic::detail

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/sha256.ipp"
#endif
