#pragma once
/// @file
/// @brief ElfFile: a bounds-checked reader of 64-bit little-endian ELF files (x86-64 and aarch64
/// hosts, CUDA cubins): sections, segments, DT_NEEDED and DT_SONAME, `.dynsym` with symbol
/// versions, `.symtab`, raw section bytes, and printable strings.
///
/// Written for the banned-library scanner, which reads untrusted binaries: every offset and size
/// taken from the file is checked before use, and a malformed file raises an input_error that
/// names the file and what was being read, never undefined behaviour. Large shared libraries are
/// read on demand (only the tables asked for), never whole.
///
/// When a file has no section headers (removed to hide its tables), the dynamic information and
/// the dynamic symbols are read through the program headers (`PT_DYNAMIC`), as the loader does.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/scan/detail/byte_source.hpp"

namespace socratic {

/// @brief The ELF constants the reader and the scanner use (values from the System V ABI).
namespace elf {
inline constexpr std::uint16_t et_rel = 1, et_exec = 2, et_dyn = 3;
inline constexpr std::uint16_t em_x86_64 = 62, em_aarch64 = 183, em_cuda = 190;
inline constexpr std::uint32_t sht_null = 0, sht_progbits = 1, sht_symtab = 2, sht_strtab = 3,
                               sht_dynamic = 6, sht_nobits = 8, sht_dynsym = 11,
                               sht_gnu_verdef = 0x6ffffffd, sht_gnu_verneed = 0x6ffffffe,
                               sht_gnu_versym = 0x6fffffff;
inline constexpr std::uint64_t shf_write = 0x1, shf_alloc = 0x2, shf_execinstr = 0x4;
inline constexpr std::uint32_t pt_load = 1, pt_dynamic = 2;
inline constexpr std::uint32_t pf_x = 0x1;
inline constexpr std::int64_t dt_null = 0, dt_needed = 1, dt_hash = 4, dt_strtab = 5, dt_symtab = 6,
                              dt_strsz = 10, dt_syment = 11, dt_soname = 14, dt_rpath = 15,
                              dt_runpath = 29, dt_gnu_hash = 0x6ffffef5, dt_versym = 0x6ffffff0,
                              dt_verdef = 0x6ffffffc, dt_verdefnum = 0x6ffffffd,
                              dt_verneed = 0x6ffffffe, dt_verneednum = 0x6fffffff;
inline constexpr std::uint16_t shn_undef = 0, shn_xindex = 0xffff;
inline constexpr std::size_t ehdr_size = 64, shdr_size = 64, phdr_size = 56, sym_size = 24;
}  // namespace elf

/// @brief One section header, with its name resolved.
struct ElfSection {
  std::size_t index = 0;
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0, address = 0, offset = 0, size = 0, entry_size = 0;
  std::uint32_t link = 0, info = 0;

  bool allocated() const noexcept { return (flags & elf::shf_alloc) != 0; }
  bool executable() const noexcept { return (flags & elf::shf_execinstr) != 0; }
  bool writable() const noexcept { return (flags & elf::shf_write) != 0; }
  /// @brief False for SHT_NOBITS (.bss): such a section occupies no bytes in the file.
  bool has_file_bytes() const noexcept { return type != elf::sht_nobits && type != elf::sht_null; }
};

/// @brief One program header (segment).
struct ElfSegment {
  std::uint32_t type = 0, flags = 0;
  std::uint64_t offset = 0, address = 0, file_size = 0, memory_size = 0;
};

enum class SymbolBinding : std::uint8_t { local, global, weak, other };
enum class SymbolType : std::uint8_t { none, object, function, section, file, common, tls, other };

/// @brief `local`, `global`, `weak` or `other`.
inline const char* to_string(SymbolBinding b) {
  switch (b) {
    case SymbolBinding::local:
      return "local";
    case SymbolBinding::global:
      return "global";
    case SymbolBinding::weak:
      return "weak";
    default:
      return "other";
  }
}
/// @brief `function`, `object`, ... as the scanner's evidence text spells them.
inline const char* to_string(SymbolType t) {
  switch (t) {
    case SymbolType::none:
      return "symbol";
    case SymbolType::object:
      return "object";
    case SymbolType::function:
      return "function";
    case SymbolType::section:
      return "section symbol";
    case SymbolType::file:
      return "file symbol";
    case SymbolType::common:
      return "common object";
    case SymbolType::tls:
      return "thread-local object";
    default:
      return "symbol";
  }
}

/// @brief One entry of a symbol table.
struct ElfSymbol {
  std::string name;
  SymbolBinding binding = SymbolBinding::local;
  SymbolType type = SymbolType::none;
  bool defined = false;             ///< false for imports (st_shndx == SHN_UNDEF)
  std::uint16_t section_index = 0;  ///< st_shndx as stored
  std::uint64_t value = 0, size = 0;
  std::string version;       ///< symbol version name, e.g. `libcublas.so.13` (dynamic symbols)
  std::string version_file;  ///< for an import: the library that must provide `version`
};

/// @brief What `.dynamic` (or `PT_DYNAMIC`) says about the libraries a binary needs.
struct ElfDynamicInfo {
  std::vector<std::string> needed;   ///< DT_NEEDED, in order
  std::string soname;                ///< DT_SONAME, empty if none
  std::vector<std::string> runpath;  ///< DT_RUNPATH and DT_RPATH entries
  bool present = false;              ///< the file has a dynamic section at all
};

/// @brief Printable runs (bytes 0x20..0x7e and tab) of at least `min_length` bytes, as the
/// `strings` tool finds them. Used on `.rodata`-style sections.
inline std::vector<std::string> printable_strings(std::string_view bytes,
                                                  std::size_t min_length = 4) {
  std::vector<std::string> out;
  std::size_t start = 0;
  auto flush = [&](std::size_t end) {
    if (end - start >= min_length) out.emplace_back(bytes.substr(start, end - start));
  };
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if ((c >= 0x20 && c <= 0x7e) || c == '\t') continue;
    flush(i);
    start = i + 1;
  }
  flush(bytes.size());
  return out;
}

/// @brief A 64-bit little-endian ELF file, read on demand with every access bounds-checked.
///
/// Errors are input_error with `file()` the path (or the name given to from_bytes) and
/// `where()` the structure being read, e.g. `section header #12` or `.dynsym entry 40`.
/// Not thread-safe (reads share one file stream); copies share the source.
class ElfFile {
 public:
  /// @brief Opens and validates the ELF header, section headers and program headers of `path`.
  static ElfFile open(const std::filesystem::path& path) {
    return ElfFile(detail::byte_source::from_file(path));
  }
  /// @brief Reads an ELF image held in memory (e.g. a cubin); `name` is used in errors.
  static ElfFile from_bytes(std::string bytes, std::string name) {
    return ElfFile(detail::byte_source::from_bytes(std::move(bytes), std::move(name)));
  }
  /// @brief True when `bytes` starts with the ELF magic.
  static bool has_elf_magic(std::string_view bytes) noexcept {
    return bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view(
                                                          "\x7f"
                                                          "ELF",
                                                          4);
  }

  const std::string& name() const noexcept { return source_->name(); }
  std::uint64_t file_size() const noexcept { return source_->size(); }
  std::uint16_t type() const noexcept { return type_; }
  std::uint16_t machine() const noexcept { return machine_; }
  std::uint8_t os_abi() const noexcept { return os_abi_; }
  const std::vector<ElfSection>& sections() const noexcept { return sections_; }
  const std::vector<ElfSegment>& segments() const noexcept { return segments_; }

  /// @brief The first section called `name`, or nullptr.
  const ElfSection* section(std::string_view name) const {
    for (const auto& s : sections_)
      if (s.name == name) return &s;
    return nullptr;
  }
  /// @brief Every section of type `type` (e.g. elf::sht_symtab).
  std::vector<const ElfSection*> sections_of_type(std::uint32_t type) const {
    std::vector<const ElfSection*> out;
    for (const auto& s : sections_)
      if (s.type == type) out.push_back(&s);
    return out;
  }

  /// @brief The bytes of `s` in the file (empty for SHT_NOBITS).
  std::string section_bytes(const ElfSection& s) const {
    if (!s.has_file_bytes()) return {};
    return source_->read(s.offset, s.size, describe(s));
  }
  /// @brief Raw bytes of the file; `what` names them in a possible error.
  std::string read(std::uint64_t offset, std::uint64_t size, const std::string& what) const {
    return source_->read(offset, size, what);
  }

  /// @brief DT_NEEDED, DT_SONAME and run paths, from `.dynamic` or else from `PT_DYNAMIC`.
  ElfDynamicInfo dynamic() const {
    ElfDynamicInfo info;
    const auto tables = dynamic_tables();
    if (!tables) return info;
    info.present = true;
    const detail::le_view strtab(tables->strtab, name(), tables->strtab_where);
    for (const auto& [tag, value] : tables->entries) {
      if (tag == elf::dt_needed) info.needed.emplace_back(strtab.c_string(value));
      if (tag == elf::dt_soname) info.soname = std::string(strtab.c_string(value));
      if (tag == elf::dt_runpath || tag == elf::dt_rpath)
        info.runpath.emplace_back(strtab.c_string(value));
    }
    return info;
  }
  /// @brief The DT_NEEDED entries, in order.
  std::vector<std::string> needed() const { return dynamic().needed; }

  /// @brief The dynamic symbol table (`.dynsym`, else the one `PT_DYNAMIC` points at), with
  /// symbol versions resolved (`cublasCreate_v2` version `libcublas.so.13` from that file).
  std::vector<ElfSymbol> dynamic_symbols() const {
    const auto tables = dynamic_tables();
    if (!tables || tables->symtab.empty()) return {};
    auto symbols = parse_symbols(tables->symtab, tables->symtab_strtab, tables->symtab_where,
                                 tables->strtab_where);
    apply_versions(symbols, *tables);
    return symbols;
  }

  /// @brief Every symbol of every `SHT_SYMTAB` section (none once the file is stripped).
  std::vector<ElfSymbol> static_symbols() const {
    std::vector<ElfSymbol> out;
    for (const ElfSection* s : sections_of_type(elf::sht_symtab)) {
      const ElfSection& strtab = linked_section(*s);
      auto part =
          parse_symbols(section_bytes(*s), section_bytes(strtab), describe(*s), describe(strtab));
      out.insert(out.end(), std::make_move_iterator(part.begin()),
                 std::make_move_iterator(part.end()));
    }
    return out;
  }

  /// @brief `section ".rodata" (#17)`: how errors and evidence name a section.
  static std::string describe(const ElfSection& s) {
    return "section \"" + s.name + "\" (#" + std::to_string(s.index) + ")";
  }

 private:
  explicit ElfFile(std::shared_ptr<const detail::byte_source> source) : source_(std::move(source)) {
    parse_headers();
  }

  void parse_headers() {
    const std::uint64_t size = source_->size();
    const std::string head =
        source_->read(0, std::min<std::uint64_t>(size, elf::ehdr_size), "ELF header");
    if (!has_elf_magic(head)) throw input_error(name(), {}, "not an ELF file (no \\x7fELF magic)");
    if (head.size() < elf::ehdr_size)
      throw input_error(name(), "ELF header",
                        "file is truncated: " + std::to_string(head.size()) +
                            " bytes, the header alone needs 64");
    const detail::le_view h(head, name(), "ELF header");
    if (h.u8(4) != 2)
      throw input_error(name(), "ELF header",
                        "not a 64-bit ELF file (EI_CLASS " + std::to_string(h.u8(4)) + ")");
    if (h.u8(5) != 1)
      throw input_error(name(), "ELF header",
                        "not a little-endian ELF file (EI_DATA " + std::to_string(h.u8(5)) + ")");
    os_abi_ = h.u8(7);
    type_ = h.u16(16);
    machine_ = h.u16(18);
    const std::uint64_t phoff = h.u64(32), shoff = h.u64(40);
    const std::uint16_t phentsize = h.u16(54), phnum = h.u16(56), shentsize = h.u16(58);
    std::uint64_t shnum = h.u16(60);
    std::uint32_t shstrndx = h.u16(62);

    if (phoff != 0 && phnum != 0) {
      if (phentsize != elf::phdr_size)
        throw input_error(name(), "ELF header",
                          "program header size " + std::to_string(phentsize) + ", expected 56");
      const std::string table =
          source_->read(phoff, std::uint64_t{phnum} * elf::phdr_size, "program header table");
      const detail::le_view t(table, name(), "program header table");
      for (std::uint64_t i = 0; i < phnum; ++i) {
        const std::uint64_t o = i * elf::phdr_size;
        segments_.push_back(ElfSegment{t.u32(o), t.u32(o + 4), t.u64(o + 8), t.u64(o + 16),
                                       t.u64(o + 32), t.u64(o + 40)});
      }
    }

    if (shoff == 0) return;  // no section headers: only the program headers describe the file
    if (shentsize != elf::shdr_size)
      throw input_error(name(), "ELF header",
                        "section header size " + std::to_string(shentsize) + ", expected 64");
    // Section #0 holds the real count and string-table index when they overflow 16 bits.
    const std::string first = source_->read(shoff, elf::shdr_size, "section header #0");
    const detail::le_view f(first, name(), "section header #0");
    if (shnum == 0) shnum = f.u64(32);
    if (shstrndx == elf::shn_xindex) shstrndx = f.u32(40);
    if (shnum > size / elf::shdr_size)
      throw input_error(name(), "ELF header",
                        std::to_string(shnum) + " section headers cannot fit in a file of " +
                            std::to_string(size) + " bytes");
    const std::string table = source_->read(shoff, shnum * elf::shdr_size, "section header table");
    const detail::le_view t(table, name(), "section header table");
    sections_.reserve(static_cast<std::size_t>(shnum));
    for (std::uint64_t i = 0; i < shnum; ++i) {
      const std::uint64_t o = i * elf::shdr_size;
      ElfSection s;
      s.index = static_cast<std::size_t>(i);
      s.type = t.u32(o + 4);
      s.flags = t.u64(o + 8);
      s.address = t.u64(o + 16);
      s.offset = t.u64(o + 24);
      s.size = t.u64(o + 32);
      s.link = t.u32(o + 40);
      s.info = t.u32(o + 44);
      s.entry_size = t.u64(o + 56);
      name_offsets_.push_back(t.u32(o));
      if (s.has_file_bytes() && (s.offset > size || s.size > size - s.offset))
        throw input_error(name(), "section header #" + std::to_string(i),
                          "section bytes [" + detail::hex(s.offset) + ", +" +
                              std::to_string(s.size) + ") lie beyond the end of the file (" +
                              std::to_string(size) + " bytes); the file is truncated");
      sections_.push_back(std::move(s));
    }
    if (shstrndx == 0) return;  // no section names
    if (shstrndx >= sections_.size())
      throw input_error(name(), "ELF header",
                        "section-name table index " + std::to_string(shstrndx) + " but only " +
                            std::to_string(sections_.size()) + " sections");
    const std::string names =
        source_->read(sections_[shstrndx].offset, sections_[shstrndx].size, "section-name table");
    const detail::le_view n(names, name(), "section-name table");
    for (std::size_t i = 0; i < sections_.size(); ++i)
      sections_[i].name = std::string(n.c_string(name_offsets_[i]));
  }

  const ElfSection& linked_section(const ElfSection& s) const {
    if (s.link == 0 || s.link >= sections_.size())
      throw input_error(name(), describe(s),
                        "sh_link " + std::to_string(s.link) + " names no section (there are " +
                            std::to_string(sections_.size()) + ")");
    return sections_[s.link];
  }

  /// The dynamic tables, from sections when the file has them, else from PT_DYNAMIC.
  struct dynamic_tables_t {
    std::vector<std::pair<std::int64_t, std::uint64_t>> entries;  // (d_tag, d_val) up to DT_NULL
    std::string strtab, strtab_where;                             // for entries
    std::string symtab, symtab_strtab, symtab_where;              // the dynamic symbol table
    std::string versym, verneed, verdef;
    std::uint64_t verneed_count = 0, verdef_count = 0;
  };

  static std::vector<std::pair<std::int64_t, std::uint64_t>> parse_dynamic_entries(
      const detail::le_view& v) {
    std::vector<std::pair<std::int64_t, std::uint64_t>> out;
    for (std::uint64_t o = 0; o + 16 <= v.size(); o += 16) {
      const auto tag = static_cast<std::int64_t>(v.u64(o));
      if (tag == elf::dt_null) break;
      out.emplace_back(tag, v.u64(o + 8));
    }
    return out;
  }

  std::optional<dynamic_tables_t> dynamic_tables() const {
    dynamic_tables_t t;
    const auto dyn_sections = sections_of_type(elf::sht_dynamic);
    const auto dynsym_sections = sections_of_type(elf::sht_dynsym);
    if (!dyn_sections.empty() || !dynsym_sections.empty()) {
      if (!dyn_sections.empty()) {
        const ElfSection& d = *dyn_sections.front();
        const std::string bytes = section_bytes(d);
        t.entries = parse_dynamic_entries(detail::le_view(bytes, name(), describe(d)));
        const ElfSection& s = linked_section(d);
        t.strtab = section_bytes(s);
        t.strtab_where = describe(s);
      }
      if (!dynsym_sections.empty()) {
        const ElfSection& d = *dynsym_sections.front();
        t.symtab = section_bytes(d);
        t.symtab_where = describe(d);
        const ElfSection& s = linked_section(d);
        t.symtab_strtab = section_bytes(s);
        if (t.strtab_where.empty()) t.strtab_where = describe(s);
      }
      if (const auto v = sections_of_type(elf::sht_gnu_versym); !v.empty())
        t.versym = section_bytes(*v.front());
      if (const auto v = sections_of_type(elf::sht_gnu_verneed); !v.empty()) {
        t.verneed = section_bytes(*v.front());
        t.verneed_count = v.front()->info;
      }
      if (const auto v = sections_of_type(elf::sht_gnu_verdef); !v.empty()) {
        t.verdef = section_bytes(*v.front());
        t.verdef_count = v.front()->info;
      }
      return t;
    }
    // No dynamic sections (or no section headers at all): read what the loader reads.
    const ElfSegment* dyn = nullptr;
    for (const auto& s : segments_)
      if (s.type == elf::pt_dynamic) dyn = &s;
    if (!dyn) return std::nullopt;
    const std::string bytes = source_->read(dyn->offset, dyn->file_size, "PT_DYNAMIC segment");
    t.entries = parse_dynamic_entries(detail::le_view(bytes, name(), "PT_DYNAMIC segment"));
    std::map<std::int64_t, std::uint64_t> tag;
    for (const auto& [k, v] : t.entries) tag.emplace(k, v);  // first occurrence wins
    auto value = [&](std::int64_t k) -> std::optional<std::uint64_t> {
      auto it = tag.find(k);
      if (it == tag.end()) return std::nullopt;
      return it->second;
    };
    if (!value(elf::dt_strtab) || !value(elf::dt_strsz))
      throw input_error(name(), "PT_DYNAMIC segment", "DT_STRTAB or DT_STRSZ missing");
    t.strtab = read_at_address(*value(elf::dt_strtab), *value(elf::dt_strsz), "DT_STRTAB");
    t.strtab_where = "DT_STRTAB";
    if (const auto symtab = value(elf::dt_symtab)) {
      const std::uint64_t count =
          dynamic_symbol_count(value(elf::dt_hash), value(elf::dt_gnu_hash));
      t.symtab = read_at_address(*symtab, count * elf::sym_size, "DT_SYMTAB");
      t.symtab_strtab = t.strtab;
      t.symtab_where = "DT_SYMTAB";
      if (const auto v = value(elf::dt_versym))
        t.versym = read_at_address(*v, count * 2, "DT_VERSYM");
    }
    // Version tables are walked with bounds checks; read up to the end of their segment.
    if (const auto v = value(elf::dt_verneed)) {
      t.verneed = read_rest_of_segment(*v, "DT_VERNEED");
      t.verneed_count = value(elf::dt_verneednum).value_or(0);
    }
    if (const auto v = value(elf::dt_verdef)) {
      t.verdef = read_rest_of_segment(*v, "DT_VERDEF");
      t.verdef_count = value(elf::dt_verdefnum).value_or(0);
    }
    return t;
  }

  /// File offset of virtual address `address`, through the PT_LOAD segments.
  std::pair<std::uint64_t, std::uint64_t> locate(std::uint64_t address,
                                                 const std::string& what) const {
    for (const auto& s : segments_) {
      if (s.type != elf::pt_load) continue;
      if (address >= s.address && address - s.address < s.file_size)
        return {s.offset + (address - s.address), s.file_size - (address - s.address)};
    }
    throw input_error(name(), what,
                      "address " + detail::hex(address) + " lies in no loaded segment");
  }
  std::string read_at_address(std::uint64_t address, std::uint64_t size,
                              const std::string& what) const {
    const auto [offset, available] = locate(address, what);
    if (size > available)
      throw input_error(name(), what,
                        std::to_string(size) + " bytes at " + detail::hex(address) +
                            " run past the end of their segment");
    return source_->read(offset, size, what);
  }
  std::string read_rest_of_segment(std::uint64_t address, const std::string& what) const {
    const auto [offset, available] = locate(address, what);
    return source_->read(offset, std::min<std::uint64_t>(available, 1 << 20), what);
  }

  /// The number of dynamic symbols, from DT_HASH (nchain) or DT_GNU_HASH (highest chain end).
  std::uint64_t dynamic_symbol_count(std::optional<std::uint64_t> sysv_hash,
                                     std::optional<std::uint64_t> gnu_hash) const {
    if (sysv_hash) {
      const std::string h = read_at_address(*sysv_hash, 8, "DT_HASH");
      return detail::le_view(h, name(), "DT_HASH").u32(4);
    }
    if (!gnu_hash)
      throw input_error(name(), "PT_DYNAMIC segment", "DT_SYMTAB without a hash table");
    const auto [offset, available] = locate(*gnu_hash, "DT_GNU_HASH");
    // The chains end somewhere in this segment; 64 MiB bounds the read for a hostile file.
    const std::string h =
        source_->read(offset, std::min<std::uint64_t>(available, 64u << 20), "DT_GNU_HASH");
    const detail::le_view v(h, name(), "DT_GNU_HASH");
    const std::uint64_t nbuckets = v.u32(0), symoffset = v.u32(4), bloom_words = v.u32(8);
    const std::uint64_t buckets = 16 + bloom_words * 8;
    v.require(buckets, nbuckets * 4);
    std::uint64_t last = 0;
    for (std::uint64_t b = 0; b < nbuckets; ++b)
      last = std::max<std::uint64_t>(last, v.u32(buckets + 4 * b));
    if (last < symoffset) return symoffset;
    const std::uint64_t chains = buckets + nbuckets * 4;
    // Walk the last chain to its end marker (low bit set); each step is bounds-checked.
    while ((v.u32(chains + 4 * (last - symoffset)) & 1) == 0) ++last;
    return last + 1;
  }

  std::vector<ElfSymbol> parse_symbols(const std::string& table, const std::string& strtab,
                                       const std::string& table_where,
                                       const std::string& strtab_where) const {
    const detail::le_view t(table, name(), table_where);
    const detail::le_view s(strtab, name(), strtab_where);
    std::vector<ElfSymbol> out;
    const std::size_t count = table.size() / elf::sym_size;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t o = i * elf::sym_size;
      ElfSymbol sym;
      const std::uint32_t name_offset = t.u32(o);
      try {
        sym.name = std::string(s.c_string(name_offset));
      } catch (const input_error&) {
        throw input_error(name(), table_where + " entry " + std::to_string(i),
                          "name offset " + detail::hex(name_offset) + " is outside " +
                              strtab_where + " (" + std::to_string(strtab.size()) + " bytes)");
      }
      const std::uint8_t info = t.u8(o + 4);
      switch (info >> 4) {
        case 0:
          sym.binding = SymbolBinding::local;
          break;
        case 1:
          sym.binding = SymbolBinding::global;
          break;
        case 2:
          sym.binding = SymbolBinding::weak;
          break;
        default:
          sym.binding = SymbolBinding::other;
      }
      switch (info & 0xf) {
        case 0:
          sym.type = SymbolType::none;
          break;
        case 1:
          sym.type = SymbolType::object;
          break;
        case 2:
          sym.type = SymbolType::function;
          break;
        case 3:
          sym.type = SymbolType::section;
          break;
        case 4:
          sym.type = SymbolType::file;
          break;
        case 5:
          sym.type = SymbolType::common;
          break;
        case 6:
          sym.type = SymbolType::tls;
          break;
        default:
          sym.type = SymbolType::other;
      }
      sym.section_index = t.u16(o + 6);
      sym.defined = sym.section_index != elf::shn_undef;
      sym.value = t.u64(o + 8);
      sym.size = t.u64(o + 16);
      out.push_back(std::move(sym));
    }
    return out;
  }

  /// Resolves `.gnu.version` indices through `.gnu.version_r` (imports) and `.gnu.version_d`.
  void apply_versions(std::vector<ElfSymbol>& symbols, const dynamic_tables_t& t) const {
    if (t.versym.empty()) return;
    struct version_name {
      std::string name, file;
    };
    std::map<std::uint16_t, version_name> versions;
    const detail::le_view strtab(t.symtab_strtab, name(), "dynamic string table");
    if (!t.verneed.empty()) {
      const detail::le_view v(t.verneed, name(), "version-needed table");
      std::uint64_t at = 0;
      for (std::uint64_t n = 0; n < t.verneed_count; ++n) {
        const std::uint16_t aux_count = v.u16(at + 2);
        const std::string file(strtab.c_string(v.u32(at + 4)));
        std::uint64_t aux = at + v.u32(at + 8);
        for (std::uint16_t a = 0; a < aux_count; ++a) {
          const std::uint16_t index = v.u16(aux + 6) & 0x7fff;
          versions[index] = {std::string(strtab.c_string(v.u32(aux + 8))), file};
          const std::uint32_t next = v.u32(aux + 12);
          if (next == 0) break;
          aux += next;
        }
        const std::uint32_t next = v.u32(at + 12);
        if (next == 0) break;
        at += next;
      }
    }
    if (!t.verdef.empty()) {
      const detail::le_view v(t.verdef, name(), "version-definition table");
      std::uint64_t at = 0;
      for (std::uint64_t n = 0; n < t.verdef_count; ++n) {
        const std::uint16_t index = v.u16(at + 4) & 0x7fff;
        const std::uint32_t aux = v.u32(at + 12);
        versions.try_emplace(index,
                             version_name{std::string(strtab.c_string(v.u32(at + aux))), ""});
        const std::uint32_t next = v.u32(at + 16);
        if (next == 0) break;
        at += next;
      }
    }
    const detail::le_view versym(t.versym, name(), "symbol-version table");
    const std::size_t count = std::min(symbols.size(), t.versym.size() / 2);
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint16_t index = versym.u16(2 * i) & 0x7fff;
      if (index <= 1) continue;  // local or unversioned global
      if (auto it = versions.find(index); it != versions.end()) {
        symbols[i].version = it->second.name;
        symbols[i].version_file = it->second.file;
      }
    }
  }

  std::shared_ptr<const detail::byte_source> source_;
  std::uint16_t type_ = 0, machine_ = 0;
  std::uint8_t os_abi_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<std::uint32_t> name_offsets_;
  std::vector<ElfSegment> segments_;
};

}  // namespace socratic
