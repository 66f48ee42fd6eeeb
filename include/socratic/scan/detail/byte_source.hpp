#pragma once
/// @file
/// @brief Bounds-checked random access to the bytes of a file or of a buffer, and little-endian
/// integer decoding. Every read that would leave the data throws an input_error naming the file
/// and what was being read, so a truncated or corrupted file can never cause out-of-bounds access.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "socratic/core/error.hpp"

namespace socratic::detail {

/// @brief `n` as `0x...`, for offsets in error messages.
inline std::string hex(std::uint64_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[n & 0xf]);
    n >>= 4;
  } while (n != 0);
  return "0x" + out;
}

/// @brief Little-endian unsigned integer of `sizeof(T)` bytes at `p` (no alignment needed).
template <class T>
T load_le(const char* p) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i);
  return value;
}

/// @brief Little-endian reads inside one string_view; out-of-range reads throw.
///
/// `file` and `what` only serve the error message ("FILE: WHAT: offset 0x40 + 8 bytes is
/// beyond the end (0x3c bytes)").
class le_view {
 public:
  le_view(std::string_view bytes, std::string file, std::string what)
      : bytes_(bytes), file_(std::move(file)), what_(std::move(what)) {}

  std::size_t size() const noexcept { return bytes_.size(); }
  std::string_view bytes() const noexcept { return bytes_; }

  /// @brief Throws unless [offset, offset + length) lies inside the view.
  void require(std::uint64_t offset, std::uint64_t length) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset)
      throw input_error(file_, what_,
                        "offset " + hex(offset) + " + " + std::to_string(length) +
                            " bytes is beyond the end (" + hex(bytes_.size()) + " bytes)");
  }
  template <class T>
  T get(std::uint64_t offset) const {
    require(offset, sizeof(T));
    return load_le<T>(bytes_.data() + offset);
  }
  std::uint8_t u8(std::uint64_t o) const { return get<std::uint8_t>(o); }
  std::uint16_t u16(std::uint64_t o) const { return get<std::uint16_t>(o); }
  std::uint32_t u32(std::uint64_t o) const { return get<std::uint32_t>(o); }
  std::uint64_t u64(std::uint64_t o) const { return get<std::uint64_t>(o); }
  std::string_view sub(std::uint64_t offset, std::uint64_t length) const {
    require(offset, length);
    return bytes_.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
  }
  /// @brief The NUL-terminated string starting at `offset`; throws if no NUL ends it.
  std::string_view c_string(std::uint64_t offset) const {
    require(offset, 0);
    const std::size_t start = static_cast<std::size_t>(offset);
    const std::size_t end = bytes_.find('\0', start);
    if (end == std::string_view::npos)
      throw input_error(file_, what_, "string at offset " + hex(offset) + " is not terminated");
    return bytes_.substr(start, end - start);
  }
  const std::string& file() const noexcept { return file_; }
  const std::string& what() const noexcept { return what_; }

 private:
  std::string_view bytes_;
  std::string file_, what_;
};

/// @brief Where bytes come from: a file read on demand (large shared libraries are never read
/// whole) or a buffer in memory (a cubin taken out of a fatbin).
class byte_source {
 public:
  /// @brief Opens `path` for reading; throws input_error when it cannot.
  static std::shared_ptr<const byte_source> from_file(const std::filesystem::path& path) {
    auto src = std::shared_ptr<byte_source>(new byte_source(path.string()));
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw input_error(path.string(), {}, "is a folder, not a file");
    src->stream_ = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*src->stream_) throw input_error(path.string(), {}, "cannot open file for reading");
    src->stream_->seekg(0, std::ios::end);
    const auto end = src->stream_->tellg();
    if (end < 0) throw input_error(path.string(), {}, "cannot determine the file's size");
    src->size_ = static_cast<std::uint64_t>(end);
    return src;
  }
  /// @brief Owns `bytes`; `name` is used in error messages.
  static std::shared_ptr<const byte_source> from_bytes(std::string bytes, std::string name) {
    auto src = std::shared_ptr<byte_source>(new byte_source(std::move(name)));
    src->size_ = bytes.size();
    src->buffer_ = std::move(bytes);
    return src;
  }

  std::uint64_t size() const noexcept { return size_; }
  const std::string& name() const noexcept { return name_; }

  /// @brief Bytes [offset, offset + length); throws input_error naming `what` when out of range.
  std::string read(std::uint64_t offset, std::uint64_t length, const std::string& what) const {
    if (offset > size_ || length > size_ - offset)
      throw input_error(name_, what,
                        "offset " + hex(offset) + " + " + std::to_string(length) +
                            " bytes is beyond the end of the file (" + std::to_string(size_) +
                            " bytes); the file is truncated or corrupted");
    if (!stream_)
      return buffer_.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    std::string out(static_cast<std::size_t>(length), '\0');
    stream_->clear();
    stream_->seekg(static_cast<std::streamoff>(offset));
    stream_->read(out.data(), static_cast<std::streamsize>(length));
    if (static_cast<std::uint64_t>(stream_->gcount()) != length)
      throw input_error(name_, what, "read error at offset " + hex(offset));
    return out;
  }

 private:
  explicit byte_source(std::string name) : name_(std::move(name)) {}
  std::string name_;
  std::uint64_t size_ = 0;
  std::string buffer_;
  // Reads on a const source move the stream position: the stream is state, not value.
  std::unique_ptr<std::ifstream> stream_;
};

}  // namespace socratic::detail
