#pragma once
/// @file
/// @brief Reading the device code that nvcc embeds in a host binary: `.nv_fatbin` containers,
/// their entries (PTX text and cubins, raw or compressed), and the cubins' own ELF tables.
///
/// Layout (measured with nvcc 13.0, see FIELD-NOTES section 3), all little-endian:
/// - container: u32 magic 0xBA55ED50, u16 version 1, u16 header size (16), u64 size of the
///   entries that follow the header;
/// - entry: u16 kind (1 PTX, 2 cubin), u32 header size at +4, u64 payload size at +8, u32
///   compressed size at +16, u32 SM architecture at +28 (90 = sm_90), u64 flags at +40 (0x8000:
///   zstd frame; 0x2000: LZ4 block), u64 decompressed size at +56; the payload follows the header
///   and may be padded beyond the compressed size.
///
/// Raw and LZ4 entries are decoded here; zstd entries need an external decoder (the scanner uses
/// the `zstd` program or `cuobjdump`, see scanner.hpp). Light: no Boost.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/scan/detail/byte_source.hpp"
#include "socratic/scan/detail/lz4_block.hpp"
#include "socratic/scan/elf.hpp"

namespace socratic {

namespace fatbin {
inline constexpr std::uint32_t container_magic = 0xBA55ED50;
inline constexpr std::uint16_t kind_ptx = 1, kind_cubin = 2;
inline constexpr std::uint64_t flag_zstd = 0x8000, flag_lz4 = 0x2000;
inline constexpr std::size_t container_header_size = 16, min_entry_header_size = 32;
/// Decompressed entries larger than this are refused (a hostile header could ask for anything).
inline constexpr std::uint64_t max_decompressed_size = 512ull << 20;
}  // namespace fatbin

enum class FatbinEntryKind { ptx, cubin, other };
enum class FatbinCompression { none, zstd, lz4, unknown };

inline const char* to_string(FatbinCompression c) {
  switch (c) {
    case FatbinCompression::none:
      return "raw";
    case FatbinCompression::zstd:
      return "zstd";
    case FatbinCompression::lz4:
      return "lz4";
    default:
      return "unknown compression";
  }
}

/// @brief One entry of a fatbin container, with its payload as stored.
struct FatbinEntry {
  std::size_t number = 0;         ///< position among all entries of the binary, from 0
  std::uint64_t file_offset = 0;  ///< of the entry header, in the host binary
  std::uint16_t raw_kind = 0;
  FatbinEntryKind kind = FatbinEntryKind::other;
  unsigned arch = 0;  ///< 90 for sm_90
  std::uint64_t flags = 0;
  FatbinCompression compression = FatbinCompression::none;
  std::uint64_t payload_size = 0, compressed_size = 0, decompressed_size = 0;
  std::string payload;  ///< the stored bytes (trimmed to compressed_size if compressed)

  /// @brief `fatbin entry 3 (sm_90 cubin, zstd)`: how notes and evidence name the entry.
  std::string label() const {
    std::string what = kind == FatbinEntryKind::ptx     ? "PTX"
                       : kind == FatbinEntryKind::cubin ? "cubin"
                                                        : "kind " + std::to_string(raw_kind);
    return "fatbin entry " + std::to_string(number) + " (sm_" + std::to_string(arch) + " " + what +
           ", " + to_string(compression) + ")";
  }
};

/// @brief A container and where it was found.
struct FatbinContainer {
  std::uint64_t file_offset = 0, size = 0;  ///< size of the entries after the 16-byte header
  std::string section;                      ///< the section holding it, or `(no section)`
  std::vector<FatbinEntry> entries;
};

/// @brief Every container in a binary, and what could not be parsed (as sentences for notes).
struct FatbinContents {
  std::vector<FatbinContainer> containers;
  std::vector<std::string> problems;
  std::size_t entry_count() const {
    std::size_t n = 0;
    for (const auto& c : containers) n += c.entries.size();
    return n;
  }
};

namespace detail {

inline FatbinCompression compression_of(std::uint64_t flags, std::uint64_t compressed_size,
                                        std::string_view payload) {
  if (flags & fatbin::flag_zstd) return FatbinCompression::zstd;
  if (flags & fatbin::flag_lz4) return FatbinCompression::lz4;
  if (compressed_size != 0) return FatbinCompression::unknown;
  // Unflagged but starting with a zstd frame magic: say so rather than misread it as raw.
  if (payload.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4))
    return FatbinCompression::zstd;
  return FatbinCompression::none;
}

/// The section that holds file offset `offset`, for evidence and notes.
inline std::string section_at(const ElfFile& file, std::uint64_t offset) {
  for (const auto& s : file.sections())
    if (s.has_file_bytes() && offset >= s.offset && offset - s.offset < s.size && !s.name.empty())
      return s.name;
  return "(no section)";
}

}  // namespace detail

/// @brief Parses the container whose header starts at `offset` in `file`; entries are numbered
/// from `first_number`. Throws input_error naming the container and entry when malformed.
inline FatbinContainer parse_fatbin_container(const ElfFile& file, std::uint64_t offset,
                                              std::size_t first_number = 0) {
  const std::string where = "fatbin container at " + detail::hex(offset);
  const std::string head = file.read(offset, fatbin::container_header_size, where);
  const detail::le_view h(head, file.name(), where);
  if (h.u32(0) != fatbin::container_magic)
    throw input_error(file.name(), where, "no fatbin magic 0xBA55ED50");
  const std::uint16_t header_size = h.u16(6);
  if (header_size < fatbin::container_header_size)
    throw input_error(file.name(), where, "header size " + std::to_string(header_size) + " < 16");
  FatbinContainer c;
  c.file_offset = offset;
  c.size = h.u64(8);
  c.section = detail::section_at(file, offset);
  const std::string body = file.read(offset + header_size, c.size, where + " (entries)");
  const detail::le_view b(body, file.name(), where);
  std::uint64_t at = 0;
  while (at < body.size()) {
    const std::string entry_where = where + " entry " +
                                    std::to_string(first_number + c.entries.size()) + " at " +
                                    detail::hex(offset + header_size + at);
    const detail::le_view e(std::string_view(body).substr(static_cast<std::size_t>(at)),
                            file.name(), entry_where);
    FatbinEntry entry;
    entry.number = first_number + c.entries.size();
    entry.file_offset = offset + header_size + at;
    entry.raw_kind = e.u16(0);
    const std::uint32_t entry_header = e.u32(4);
    if (entry_header < fatbin::min_entry_header_size)
      throw input_error(file.name(), entry_where,
                        "entry header size " + std::to_string(entry_header) + " is too small");
    e.require(0, entry_header);
    entry.payload_size = e.u64(8);
    e.require(entry_header, entry.payload_size);
    entry.compressed_size = e.u32(16);
    entry.arch = e.u32(28);
    if (entry_header >= 48) entry.flags = e.u64(40);
    if (entry_header >= 64) entry.decompressed_size = e.u64(56);
    entry.kind = entry.raw_kind == fatbin::kind_ptx     ? FatbinEntryKind::ptx
                 : entry.raw_kind == fatbin::kind_cubin ? FatbinEntryKind::cubin
                                                        : FatbinEntryKind::other;
    std::string_view payload = e.sub(entry_header, entry.payload_size);
    entry.compression = detail::compression_of(entry.flags, entry.compressed_size, payload);
    if (entry.compression != FatbinCompression::none && entry.compressed_size != 0) {
      if (entry.compressed_size > entry.payload_size)
        throw input_error(file.name(), entry_where,
                          "compressed size " + std::to_string(entry.compressed_size) +
                              " exceeds the payload (" + std::to_string(entry.payload_size) + ")");
      payload = payload.substr(0, entry.compressed_size);  // the rest is alignment padding
    }
    entry.payload = std::string(payload);
    c.entries.push_back(std::move(entry));
    at += entry_header + c.entries.back().payload_size;
  }
  return c;
}

/// @brief Finds every fatbin container in `file`: those in `.nv_fatbin` / `__nv_relfatbin`, and
/// any other copy of the container magic anywhere in the file (a container moved to another
/// section, or a file without section headers). Malformed containers become `problems`.
inline FatbinContents find_fatbin_containers(const ElfFile& file) {
  FatbinContents out;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> covered;  // [begin, end) already parsed
  std::size_t next_number = 0;
  auto try_container = [&](std::uint64_t offset) -> std::optional<std::uint64_t> {
    try {
      FatbinContainer c = parse_fatbin_container(file, offset, next_number);
      const std::uint64_t end = offset + fatbin::container_header_size + c.size;
      next_number += c.entries.size();
      covered.emplace_back(offset, end);
      out.containers.push_back(std::move(c));
      return end;
    } catch (const input_error& e) {
      out.problems.push_back(std::string("fatbin container at ") + detail::hex(offset) +
                             " could not be parsed: " + e.what());
      return std::nullopt;
    }
  };

  // 1. The sections nvcc puts them in, read in sequence (zero padding between containers).
  for (const auto& s : file.sections()) {
    if ((s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") || !s.has_file_bytes()) continue;
    std::uint64_t at = s.offset;
    const std::uint64_t end = s.offset + s.size;
    while (at < end && end - at >= fatbin::container_header_size) {
      const std::string word = file.read(at, 4, ElfFile::describe(s));
      if (detail::load_le<std::uint32_t>(word.data()) == fatbin::container_magic) {
        const auto next = try_container(at);
        if (!next) break;
        at = *next;
      } else if (word == std::string(4, '\0')) {
        at += 4;
      } else {
        out.problems.push_back("section " + s.name + ": unexpected bytes at " + detail::hex(at) +
                               " (no fatbin container magic); the rest was searched by magic");
        break;
      }
    }
  }

  // 2. The magic anywhere else, read in overlapping chunks (never the whole of a large file).
  const std::string magic("\x50\xed\x55\xba", 4);
  constexpr std::uint64_t chunk = 16u << 20;
  for (std::uint64_t base = 0; base < file.file_size(); base += chunk) {
    const std::uint64_t length = std::min<std::uint64_t>(chunk + 3, file.file_size() - base);
    const std::string bytes = file.read(base, length, "whole-file search for fatbin containers");
    for (std::size_t hit = bytes.find(magic); hit != std::string::npos;
         hit = bytes.find(magic, hit + 1)) {
      const std::uint64_t offset = base + hit;
      if (hit >= chunk) break;  // the overlap belongs to the next chunk
      bool seen = false;
      for (const auto& [b, e] : covered) seen = seen || (offset >= b && offset < e);
      if (seen) continue;
      // Only a plausible header (version 1, 16-byte header) counts; other copies of these four
      // bytes are data.
      if (file.file_size() - offset < fatbin::container_header_size) continue;
      const std::string head = file.read(offset, fatbin::container_header_size, "fatbin search");
      if (detail::load_le<std::uint16_t>(head.data() + 4) != 1 ||
          detail::load_le<std::uint16_t>(head.data() + 6) != fatbin::container_header_size)
        continue;
      try_container(offset);
    }
  }
  return out;
}

/// @brief The entry's contents when they can be decoded without external tools (raw, or LZ4);
/// nullopt with `why` set otherwise (zstd, unknown compression, or a corrupt LZ4 block).
inline std::optional<std::string> decode_fatbin_entry(const FatbinEntry& entry, std::string& why) {
  switch (entry.compression) {
    case FatbinCompression::none:
      return entry.payload;
    case FatbinCompression::lz4: {
      if (entry.decompressed_size == 0 || entry.decompressed_size > fatbin::max_decompressed_size) {
        why = "implausible decompressed size " + std::to_string(entry.decompressed_size);
        return std::nullopt;
      }
      std::string lz4_why;
      auto out = detail::decompress_lz4_block(
          entry.payload, static_cast<std::size_t>(entry.decompressed_size), lz4_why);
      if (!out) {
        why = "LZ4 block is corrupt: " + lz4_why;
        return std::nullopt;
      }
      if (out->size() != entry.decompressed_size) {
        why = "LZ4 block decoded to " + std::to_string(out->size()) + " bytes, the header says " +
              std::to_string(entry.decompressed_size);
        return std::nullopt;
      }
      return out;
    }
    case FatbinCompression::zstd:
      why = "zstd-compressed (needs the zstd program or cuobjdump)";
      return std::nullopt;
    default:
      why = "compressed with an unknown method (flags " + detail::hex(entry.flags) + ")";
      return std::nullopt;
  }
}

}  // namespace socratic
