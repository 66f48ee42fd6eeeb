#pragma once
/// @file
/// @brief The banned-library scanner: finds CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN (or whatever
/// a BanPolicy names) in a built binary, and in the list of shared objects a process mapped.
///
/// What a binary is checked for (docs/scanner.md has the full account):
/// - DT_NEEDED (and DT_SONAME) entries that name a banned library file;
/// - `.dynsym` and `.symtab`: API symbols (`cublasGemmEx`) that are imported, or defined with
///   global or weak binding (a statically linked library); any symbol in a banned C++
///   namespace (`cutlass::`, `cute::`), including kernel names inside `__device_stub__` names;
/// - strings in `.rodata`-style sections: a library file name (`libcudnn.so.9` for dlopen) and
///   mangled names in a banned namespace (the kernel names nvcc registers, which survive strip);
/// - device code: every fatbin entry (cubins through their `.symtab`, PTX through its names),
///   decoded here when raw or LZ4, through the `zstd` program or `cuobjdump` when zstd.
///
/// Rules that keep a clean candidate clean: free text is never matched by words (a message
/// "unlike cuBLAS, ..." passes); API patterns need the exact prefix (`cudnn[A-Z]`, so a helper
/// `cudnn_style_softmax` passes) and ignore local symbols; namespaces must be followed by `::`
/// (a variable `cutlass_like_tile` passes).

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/scan/ban_policy.hpp"
#include "socratic/scan/detail/device_code_tools.hpp"
#include "socratic/scan/detail/symbol_names.hpp"
#include "socratic/scan/elf.hpp"
#include "socratic/scan/fatbin.hpp"

namespace socratic {

/// @brief How a scan may use external programs, and how much it reports.
struct ScanOptions {
  /// Program that decompresses zstd fatbin entries; empty: never run it.
  std::string zstd_program = "zstd";
  /// cuobjdump, run (`-xelf all`, `-xptx all`) when some entry could not be decoded otherwise;
  /// empty: never run it.
  std::string cuobjdump_program = "cuobjdump";
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(60)};
  /// At most this many findings per library and per place (e.g. cudnn in `.dynsym`); the rest
  /// are counted in one more finding. A statically linked library has thousands of symbols.
  std::size_t max_findings_per_source = 8;
};

/// @brief What a scan of one binary found, and what it could not inspect.
struct BinaryScan {
  std::string file;
  std::vector<BannedFinding> findings;
  /// Sentences about what was not inspected or looked odd (a stripped `.symtab`, a fatbin entry
  /// that could not be decompressed, a malformed container). Notes are not findings.
  std::vector<std::string> notes;
  bool clean() const noexcept { return findings.empty(); }
};

namespace detail {

/// The policy, compiled: regular expressions built once per scan.
class ban_matcher {
 public:
  explicit ban_matcher(const BanPolicy& policy) : policy_(policy) {
    validate(policy);
    for (const auto& library : policy_.libraries)
      for (const auto& pattern : library.symbols)
        symbols_.push_back({&library, pattern, std::regex(pattern, std::regex::ECMAScript)});
  }

  struct hit {
    const BannedLibrary* library = nullptr;
    std::string pattern;  ///< the file pattern, symbol pattern or namespace that matched
    std::string shown;    ///< for C++ names: how the evidence shows the name
  };

  /// A library file name (no folders) that matches a `files` pattern.
  std::optional<hit> file_name(std::string_view name) const {
    for (const auto& library : policy_.libraries)
      for (const auto& pattern : library.files)
        if (glob_match(pattern, name)) return hit{&library, pattern, {}};
    return std::nullopt;
  }

  /// A symbol name (version suffix ignored) that starts with a banned API pattern.
  std::optional<hit> api_symbol(std::string_view name) const {
    const std::string base(without_version(name));
    for (const auto& s : symbols_)
      if (std::regex_search(base, s.regex, std::regex_constants::match_continuous))
        return hit{s.library, s.pattern, {}};
    return std::nullopt;
  }

  /// A mangled C++ name (a symbol, a string, a PTX name) in a banned namespace. Names that
  /// ptxas joins with `$` (`$_Z14apply_epiloguePf$_ZN4cute15scaled_epilogueEf`, a device
  /// function kept out of line) are read part by part.
  std::optional<hit> cxx_name(std::string_view raw) const {
    const std::string_view name = without_version(raw);
    // Every form of the name spells the namespace literally: skip the demangler otherwise.
    bool candidate = false;
    for (const auto& library : policy_.libraries)
      for (const auto& ns : library.namespaces) candidate = candidate || name.find(ns) != name.npos;
    if (!candidate) return std::nullopt;
    std::size_t start = 0;
    while (start <= name.size()) {
      const auto end = std::min(name.find('$', start), name.size());
      if (auto h = cxx_name_part(name.substr(start, end - start))) {
        if (end - start != name.size()) h->shown = abbreviate(name) + ": " + h->shown;
        return h;
      }
      start = end + 1;
    }
    return std::nullopt;
  }

 private:
  std::optional<hit> cxx_name_part(std::string_view name) const {
    if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::nullopt;
    if (const auto kernel = stub_kernel_name(name)) {
      const auto demangled = demangle(*kernel);
      for (const auto& library : policy_.libraries)
        for (const auto& ns : library.namespaces)
          if (demangled ? names_namespace(*demangled, ns) : mangled_names_namespace(*kernel, ns))
            return hit{&library, ns,
                       abbreviate(name) + " (host stub of kernel " +
                           abbreviate(demangled ? *demangled : *kernel) + ")"};
    }
    const auto demangled = demangle(name);
    for (const auto& library : policy_.libraries)
      for (const auto& ns : library.namespaces) {
        if (demangled && names_namespace(*demangled, ns))
          return hit{&library, ns, abbreviate(name) + " = " + abbreviate(*demangled)};
        if (!demangled && mangled_names_namespace(name, ns))
          return hit{&library, ns,
                     abbreviate(name) + " (not demangled; names namespace " + ns + ")"};
      }
    return std::nullopt;
  }

  struct compiled_symbol {
    const BannedLibrary* library;
    std::string pattern;
    std::regex regex;
  };
  const BanPolicy& policy_;
  std::vector<compiled_symbol> symbols_;
};

/// Collects findings for one file: exact duplicates dropped, at most `cap` per library and
/// place (all device code counting as one place), the rest counted.
class finding_sink {
 public:
  finding_sink(std::string file, std::size_t cap) : file_(std::move(file)), cap_(cap) {}

  void add(const std::string& library, const std::string& place, std::string evidence) {
    evidence = printable(evidence);
    if (!seen_.insert({library, evidence}).second) return;
    auto& count = counts_[{library, group_of(place)}];
    if (++count > cap_) return;
    findings_.push_back({file_, library, std::move(evidence)});
  }

  /// Device code is capped as a whole: a library's binary can hold a thousand cubins.
  static std::string group_of(const std::string& place) {
    if (place.starts_with("fatbin entry") || place.starts_with("cuobjdump:")) return "device code";
    return place;
  }

  std::vector<BannedFinding> finish() {
    for (const auto& [key, count] : counts_)
      if (count > cap_)
        findings_.push_back({file_, key.first,
                             key.second + ": " + std::to_string(count - cap_) +
                                 " more pieces of evidence like the ones above (not listed)"});
    return std::move(findings_);
  }

 private:
  std::string file_;
  std::size_t cap_;
  std::set<std::pair<std::string, std::string>> seen_;
  std::map<std::pair<std::string, std::string>, std::size_t> counts_;
  std::vector<BannedFinding> findings_;
};

/// Symbols of one table: API imports or global definitions, and banned namespaces.
inline void scan_symbols(const std::vector<ElfSymbol>& symbols, const std::string& place,
                         const ban_matcher& matcher, finding_sink& sink) {
  for (const auto& sym : symbols) {
    if (sym.name.empty() || sym.type == SymbolType::section || sym.type == SymbolType::file)
      continue;
    std::string shown_name = sym.name;
    if (!sym.version.empty() && sym.name.find('@') == std::string::npos)
      shown_name += "@" + sym.version;
    if (const auto api = matcher.api_symbol(sym.name)) {
      if (!sym.defined) {
        std::string from;
        if (!sym.version_file.empty() && sym.version_file != sym.version)
          from = " from " + sym.version_file;
        sink.add(api->library->name, place,
                 place + ": imported symbol " + shown_name + from + " (API pattern " +
                     api->pattern + ")");
      } else if (sym.binding == SymbolBinding::global || sym.binding == SymbolBinding::weak) {
        sink.add(api->library->name, place,
                 place + ": " + to_string(sym.binding) + " " + to_string(sym.type) + " " +
                     shown_name + " is defined in the binary (API pattern " + api->pattern +
                     "; the library is linked in statically)");
      }
    }
    if (const auto ns = matcher.cxx_name(sym.name)) {
      const std::string what = sym.defined
                                   ? std::string(to_string(sym.binding)) + " " + to_string(sym.type)
                                   : "imported symbol";
      sink.add(ns->library->name, place, place + ": " + what + " " + ns->shown);
    }
  }
}

/// Tokens of a string that could be a file name: split on blanks, quotes and punctuation.
inline std::vector<std::string_view> file_name_tokens(std::string_view text) {
  std::vector<std::string_view> out;
  static constexpr std::string_view separators = " \t\"'`,;:=()[]{}<>|";
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find_first_of(separators, start);
    const auto stop = end == std::string_view::npos ? text.size() : end;
    if (stop > start) out.push_back(text.substr(start, stop - start));
    start = stop + 1;
  }
  return out;
}

/// Strings of one section or segment: library file names and mangled names in banned namespaces.
inline void scan_strings(const std::string& bytes, const std::string& place,
                         const ban_matcher& matcher, finding_sink& sink) {
  for (const auto& text : printable_strings(bytes, 4)) {
    for (const auto token : file_name_tokens(text))
      if (const auto f = matcher.file_name(path_basename(token)))
        sink.add(f->library->name, place,
                 place + ": string \"" + abbreviate(text, 160) + "\" names the library file " +
                     std::string(token) + " (pattern " + f->pattern + ")");
    for (const auto& token : mangled_tokens(text))
      if (const auto ns = matcher.cxx_name(token))
        sink.add(ns->library->name, place, place + ": mangled name " + ns->shown);
  }
}

/// PTX text: the names it declares and uses.
inline void scan_ptx(const std::string& text, const std::string& place, const ban_matcher& matcher,
                     finding_sink& sink) {
  for (const auto& token : mangled_tokens(text))
    if (const auto ns = matcher.cxx_name(token))
      sink.add(ns->library->name, place, place + ": PTX name " + ns->shown);
}

/// A cubin (device ELF): its symbol table. Returns a note when it cannot be read.
inline std::optional<std::string> scan_cubin(const std::string& bytes, const std::string& place,
                                             const ban_matcher& matcher, finding_sink& sink) {
  try {
    const ElfFile cubin = ElfFile::from_bytes(bytes, place);
    scan_symbols(cubin.static_symbols(), place + ": .symtab", matcher, sink);
    scan_symbols(cubin.dynamic_symbols(), place + ": .dynsym", matcher, sink);
  } catch (const input_error& e) {
    return place + " could not be read as a cubin: " + e.what();
  }
  return std::nullopt;
}

/// The bytes in which a binary keeps its strings: non-executable sections with contents (the
/// fatbin excepted), or, without section headers, the non-executable loaded segments.
inline std::vector<std::pair<std::string, std::string>> string_regions(const ElfFile& elf) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!elf.sections().empty()) {
    for (const auto& s : elf.sections()) {
      if (s.type != elf::sht_progbits || s.executable() || s.size == 0) continue;
      if (s.name == ".nv_fatbin" || s.name == "__nv_relfatbin" || s.name == ".nvFatBinSegment")
        continue;  // device code is read entry by entry, not as text
      out.emplace_back(s.name.empty() ? ElfFile::describe(s) : s.name, elf.section_bytes(s));
    }
    return out;
  }
  for (std::size_t i = 0; i < elf.segments().size(); ++i) {
    const auto& seg = elf.segments()[i];
    if (seg.type != elf::pt_load || (seg.flags & elf::pf_x) || seg.file_size == 0) continue;
    const std::string where = "PT_LOAD segment #" + std::to_string(i);
    out.emplace_back(where, elf.read(seg.offset, seg.file_size, where));
  }
  return out;
}

}  // namespace detail

/// @brief Scans one built binary (executable, shared object, object file) for banned libraries.
///
/// @param path    the binary
/// @param policy  what is banned (default_ban_policy() unless configured)
/// @param options external decoders and reporting limits
/// @return findings (file, library, evidence) and notes about what could not be inspected
/// @throws input_error when the file cannot be read, is not an ELF file, or its ELF structure
///   is malformed (the message names the file and the structure). A caller judging a
///   candidate must treat that as a failure, never as clean.
inline BinaryScan scan_binary_report(const std::filesystem::path& path,
                                     const BanPolicy& policy = default_ban_policy(),
                                     const ScanOptions& options = {}) {
  BinaryScan scan;
  scan.file = path.string();
  const ElfFile elf = ElfFile::open(path);
  const detail::ban_matcher matcher(policy);
  detail::finding_sink sink(scan.file, options.max_findings_per_source);

  // 1. The libraries the loader will map.
  const ElfDynamicInfo dyn = elf.dynamic();
  for (const auto& needed : dyn.needed)
    if (const auto f = matcher.file_name(detail::path_basename(needed)))
      sink.add(f->library->name, "DT_NEEDED", "DT_NEEDED " + needed);
  if (!dyn.soname.empty())
    if (const auto f = matcher.file_name(dyn.soname))
      sink.add(f->library->name, "DT_SONAME", "DT_SONAME " + dyn.soname);

  // 2. Symbols.
  detail::scan_symbols(elf.dynamic_symbols(), ".dynsym", matcher, sink);
  if (elf.sections_of_type(elf::sht_symtab).empty())
    scan.notes.push_back(
        "no .symtab (stripped): local symbols were not inspected; .dynsym, "
        "strings and device code were");
  else
    detail::scan_symbols(elf.static_symbols(), ".symtab", matcher, sink);
  if (elf.sections().empty())
    scan.notes.push_back(
        "no section headers: dynamic symbols were read through PT_DYNAMIC and "
        "strings from the loaded segments");

  // 3. Strings.
  for (const auto& [place, bytes] : detail::string_regions(elf))
    detail::scan_strings(bytes, place, matcher, sink);

  // 4. Device code.
  const FatbinContents fat = find_fatbin_containers(elf);
  scan.notes.insert(scan.notes.end(), fat.problems.begin(), fat.problems.end());
  std::set<std::string> cubins_seen;  // hashes: cuobjdump's copies of decoded cubins are skipped
  std::vector<std::pair<const FatbinEntry*, std::string>> undecoded;  // entry, why
  auto scan_decoded = [&](const FatbinEntry& entry, const std::string& place,
                          const std::string& bytes) {
    if (entry.kind == FatbinEntryKind::cubin || ElfFile::has_elf_magic(bytes)) {
      cubins_seen.insert(detail::sha256_hex(bytes));
      if (auto note = detail::scan_cubin(bytes, place, matcher, sink)) scan.notes.push_back(*note);
    } else {
      detail::scan_ptx(bytes, place, matcher, sink);
    }
  };
  // zstd entries go to the zstd program in batches (one process per batch, bounded memory).
  std::vector<std::pair<const FatbinEntry*, std::string>> batch;  // entry, place
  std::uint64_t batch_bytes = 0;
  auto flush_batch = [&] {
    if (batch.empty()) return;
    std::vector<std::string> frames;
    std::vector<std::uint64_t> sizes;
    for (const auto& [e, place] : batch) {
      frames.push_back(e->payload);
      sizes.push_back(e->decompressed_size);
    }
    std::string why;
    const auto contents =
        detail::zstd_decompress_all(options.zstd_program, frames, sizes, options.tool_timeout, why);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (contents)
        scan_decoded(*batch[i].first, batch[i].second, (*contents)[i]);
      else
        undecoded.emplace_back(batch[i].first, "zstd-compressed, and " + why);
    }
    batch.clear();
    batch_bytes = 0;
  };
  for (const auto& container : fat.containers) {
    for (const auto& entry : container.entries) {
      const std::string place = entry.label() + " in " + container.section;
      std::string why;
      if (const auto bytes = decode_fatbin_entry(entry, why)) {
        scan_decoded(entry, place, *bytes);
      } else if (entry.compression == FatbinCompression::zstd) {
        batch.emplace_back(&entry, place);
        batch_bytes += entry.decompressed_size;
        if (batch_bytes > (16u << 20)) flush_batch();
      } else {
        undecoded.emplace_back(&entry, why);
      }
    }
  }
  flush_batch();
  if (!undecoded.empty()) {
    std::string why;
    const auto files =
        detail::cuobjdump_extract(options.cuobjdump_program, path, options.tool_timeout, why);
    if (files) {
      std::string which;
      for (std::size_t i = 0; i < undecoded.size() && i < 20; ++i)
        which += (which.empty() ? "" : ", ") + std::to_string(undecoded[i].first->number);
      if (undecoded.size() > 20) which += " and " + std::to_string(undecoded.size() - 20) + " more";
      scan.notes.push_back("fatbin entries " + which +
                           " could not be decoded here; every cubin and PTX of the binary was "
                           "inspected through cuobjdump instead (" +
                           std::to_string(files->size()) + " files)");
      for (const auto& f : *files) {
        const std::string place = "cuobjdump: " + f.name;
        if (ElfFile::has_elf_magic(f.bytes)) {
          if (!cubins_seen.insert(detail::sha256_hex(f.bytes)).second) continue;
          if (auto note = detail::scan_cubin(f.bytes, place, matcher, sink))
            scan.notes.push_back(*note);
        } else {
          detail::scan_ptx(f.bytes, place, matcher, sink);
        }
      }
    } else {
      constexpr std::size_t listed = 10;
      for (std::size_t i = 0; i < undecoded.size() && i < listed; ++i)
        scan.notes.push_back(undecoded[i].first->label() +
                             " was not inspected: " + undecoded[i].second + "; " + why);
      if (undecoded.size() > listed)
        scan.notes.push_back(std::to_string(undecoded.size() - listed) +
                             " more fatbin entries were not inspected, for the same reasons");
    }
  }

  scan.findings = sink.finish();
  for (auto& note : scan.notes) note = detail::printable(note);
  return scan;
}

/// @brief The findings of scan_binary_report(), for callers that only need them (the evaluator).
/// @throws input_error as scan_binary_report() does.
inline std::vector<BannedFinding> scan_binary(const std::filesystem::path& path,
                                              const BanPolicy& policy = default_ban_policy()) {
  return scan_binary_report(path, policy).findings;
}

/// @brief The files mapped into a process, from the text of `/proc/PID/maps`: each path once,
/// in order of first appearance (pseudo-entries such as `[heap]` and anonymous maps left out;
/// a ` (deleted)` suffix kept, since it says something).
inline std::vector<std::string> mapped_files_from_proc_maps(std::string_view maps) {
  std::vector<std::string> out;
  std::set<std::string, std::less<>> seen;
  std::size_t start = 0;
  while (start < maps.size()) {
    auto end = maps.find('\n', start);
    if (end == std::string_view::npos) end = maps.size();
    const std::string_view line = maps.substr(start, end - start);
    start = end + 1;
    // address perms offset dev inode path: the path starts after the fifth field.
    std::size_t at = 0;
    for (int field = 0; field < 5 && at != std::string_view::npos; ++field) {
      at = line.find_first_not_of(' ', at);
      if (at == std::string_view::npos) break;
      at = line.find(' ', at);
    }
    if (at == std::string_view::npos) continue;
    at = line.find_first_not_of(' ', at);
    if (at == std::string_view::npos) continue;
    const std::string_view path = line.substr(at);
    if (path.empty() || path.front() == '[') continue;
    if (seen.insert(std::string(path)).second) out.emplace_back(path);
  }
  return out;
}

/// @brief Run-time check: the shared objects a process mapped (the runner reports them from
/// `/proc/self/maps`). A path whose file name matches a banned library is a finding; so is a
/// mapped ELF file, whatever its name, whose DT_SONAME names one or that exports its API or
/// namespace symbols (a renamed copy of the library). Findings have `file` = `process`.
inline std::vector<BannedFinding> scan_mapped_libraries(
    const std::vector<std::string>& paths, const BanPolicy& policy = default_ban_policy()) {
  const detail::ban_matcher matcher(policy);
  detail::finding_sink sink("process", 8);
  for (const auto& raw : paths) {
    std::string path = raw;
    static constexpr std::string_view deleted = " (deleted)";
    if (path.size() > deleted.size() && path.ends_with(deleted))
      path.resize(path.size() - deleted.size());
    std::string_view name = detail::path_basename(path);
    if (name.starts_with("memfd:")) name.remove_prefix(6);  // memfd_create's chosen name
    if (const auto f = matcher.file_name(name))
      sink.add(f->library->name, raw, "mapped " + raw + " (file name matches " + f->pattern + ")");

    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    try {
      const ElfFile elf = ElfFile::open(path);
      const ElfDynamicInfo dyn = elf.dynamic();
      if (!dyn.soname.empty())
        if (const auto f = matcher.file_name(dyn.soname))
          sink.add(f->library->name, raw, "mapped " + raw + ": DT_SONAME " + dyn.soname);
      // Exports: one finding per library, with a count, since a library exports thousands.
      std::map<std::string, std::pair<std::string, std::size_t>>
          exports;  // library -> first, count
      for (const auto& sym : elf.dynamic_symbols()) {
        if (!sym.defined || sym.binding == SymbolBinding::local) continue;
        std::optional<detail::ban_matcher::hit> h = matcher.api_symbol(sym.name);
        if (!h) h = matcher.cxx_name(sym.name);
        if (!h) continue;
        auto& [first, count] = exports[h->library->name];
        if (count++ == 0) first = h->shown.empty() ? sym.name : h->shown;
      }
      for (const auto& [library, e] : exports)
        sink.add(library, raw,
                 "mapped " + raw + ": exports " + e.first +
                     (e.second > 1 ? " and " + std::to_string(e.second - 1) + " more such symbols"
                                   : ""));
    } catch (const input_error&) {
      // Not an ELF file (a locale archive, a font, a data file mapped by the process): its
      // name was checked above, and it carries no dynamic symbols to read.
    }
  }
  return sink.finish();
}

}  // namespace socratic
