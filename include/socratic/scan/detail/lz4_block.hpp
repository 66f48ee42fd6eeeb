#pragma once
/// @file
/// @brief A bounds-checked decoder of the LZ4 *block* format (no frame), which nvcc uses for
/// fatbin entries compressed in "speed" mode (entry flag 0x2000).
///
/// Format (public LZ4 block specification): a sequence of (token, literals, offset, match):
/// the token's high nibble is the literal count and its low nibble the match length minus 4,
/// each extended by bytes of 255 when 15; the offset is 16-bit little-endian, counted back from
/// the end of the output; the last sequence has literals only.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace socratic::detail {

/// @brief Decodes `in`; at most `max_output` bytes are produced. Returns nullopt with `why` set
/// when the input is not a valid block (offset before the start, truncated sequence, too long).
inline std::optional<std::string> decompress_lz4_block(std::string_view in, std::size_t max_output,
                                                       std::string& why) {
  std::string out;
  out.reserve(std::min(max_output, in.size() * 4));  // max_output may come from a hostile header
  std::size_t ip = 0;
  auto read_length = [&](std::size_t base) -> std::optional<std::size_t> {
    std::size_t length = base;
    if (base != 15) return length;
    for (;;) {
      if (ip >= in.size()) return std::nullopt;
      const auto b = static_cast<unsigned char>(in[ip++]);
      length += b;
      if (length > max_output) return std::nullopt;
      if (b != 255) return length;
    }
  };
  while (ip < in.size()) {
    const auto token = static_cast<unsigned char>(in[ip++]);
    const auto literals = read_length(token >> 4);
    if (!literals) {
      why = "literal length runs past the input or the output limit";
      return std::nullopt;
    }
    if (*literals > in.size() - ip || *literals > max_output - out.size()) {
      why = "literals at input offset " + std::to_string(ip) + " run past the input or output";
      return std::nullopt;
    }
    out.append(in.substr(ip, *literals));
    ip += *literals;
    if (ip == in.size()) return out;  // the last sequence carries literals only
    if (in.size() - ip < 2) {
      why = "match offset truncated at input offset " + std::to_string(ip);
      return std::nullopt;
    }
    const std::size_t offset =
        static_cast<unsigned char>(in[ip]) |
        (static_cast<std::size_t>(static_cast<unsigned char>(in[ip + 1])) << 8);
    ip += 2;
    if (offset == 0 || offset > out.size()) {
      why = "match offset " + std::to_string(offset) + " points before the start of the output";
      return std::nullopt;
    }
    const auto extra = read_length(token & 0x0f);
    if (!extra || *extra + 4 > max_output - out.size()) {
      why = "match length runs past the input or the output limit";
      return std::nullopt;
    }
    // Byte by byte: a match may overlap the bytes it produces (offset < length).
    std::size_t from = out.size() - offset;
    for (std::size_t i = 0; i < *extra + 4; ++i) out.push_back(out[from++]);
  }
  return out;
}

}  // namespace socratic::detail
