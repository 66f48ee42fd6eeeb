#pragma once
/// @file
/// @brief Whether a built shared object exports a symbol: its ELF dynamic symbol table read on
/// the host, so a candidate without the problem's entry point (problem.json's `entry_point`) is
/// refused after its build, naming the symbol and the file that requires it, before any GPU is
/// asked for. Light: standard library only; 64-bit little-endian ELF (what nvcc builds here).

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/files.hpp"

namespace socratic {

namespace detail {
template <class T>
T elf_read(const std::string& bytes, std::size_t at) {
  T v{};
  if (at + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}
}  // namespace detail

/// @brief Whether the ELF shared object `file` defines `symbol` as a global or weak, visible
/// symbol in its dynamic symbol table (what dlsym finds). nullopt when `file` is not a 64-bit
/// little-endian ELF object (a test's stand-in compiler writes text): nothing could be checked.
/// @throws error when the file cannot be read.
inline std::optional<bool> elf_exports(const std::filesystem::path& file, std::string_view symbol) {
  const std::string bytes = read_file_bytes(file);
  if (bytes.size() < 64 || bytes.compare(0, 4, "\x7f" "ELF") != 0 || bytes[4] != 2 /* ELFCLASS64 */ ||
      bytes[5] != 1 /* little-endian */)
    return std::nullopt;
  using detail::elf_read;
  const auto shoff = elf_read<std::uint64_t>(bytes, 0x28);
  const auto shentsize = elf_read<std::uint16_t>(bytes, 0x3A);
  const auto shnum = elf_read<std::uint16_t>(bytes, 0x3C);
  if (shentsize < 64 || shoff + std::uint64_t(shentsize) * shnum > bytes.size()) return false;
  auto section = [&](std::size_t i) { return shoff + i * shentsize; };
  for (std::size_t i = 0; i < shnum; ++i) {
    if (elf_read<std::uint32_t>(bytes, section(i) + 4) != 11 /* SHT_DYNSYM */) continue;
    const auto offset = elf_read<std::uint64_t>(bytes, section(i) + 0x18);
    const auto size = elf_read<std::uint64_t>(bytes, section(i) + 0x20);
    const auto link = elf_read<std::uint32_t>(bytes, section(i) + 0x28);
    const auto entsize = elf_read<std::uint64_t>(bytes, section(i) + 0x38);
    if (link >= shnum || entsize < 24 || offset + size > bytes.size()) return false;
    const auto strings = elf_read<std::uint64_t>(bytes, section(link) + 0x18);
    const auto strings_size = elf_read<std::uint64_t>(bytes, section(link) + 0x20);
    if (strings + strings_size > bytes.size()) return false;
    for (std::uint64_t at = offset; at + 24 <= offset + size; at += entsize) {
      const auto name = elf_read<std::uint32_t>(bytes, at);
      const auto info = elf_read<std::uint8_t>(bytes, at + 4);
      const auto other = elf_read<std::uint8_t>(bytes, at + 5);
      const auto shndx = elf_read<std::uint16_t>(bytes, at + 6);
      const int binding = info >> 4, visibility = other & 3;
      if (shndx == 0 /* undefined */ || (binding != 1 && binding != 2) || (visibility != 0 && visibility != 3)) continue;
      if (name >= strings_size) continue;
      const char* text = bytes.data() + strings + name;
      const std::size_t room = static_cast<std::size_t>(strings_size - name);
      if (std::string_view(text, strnlen(text, room)) == symbol) return true;
    }
  }
  return false;
}

}  // namespace socratic
