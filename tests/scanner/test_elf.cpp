// The ELF reader on binaries nvcc built during the test: cross-checked against readelf, read
// without section headers (through PT_DYNAMIC), and fed truncated and corrupted copies.
#include "catch.hpp"

#include <algorithm>
#include <random>
#include <regex>
#include <set>

#include "fixtures.hpp"
#include "socratic/scan/elf.hpp"
#include "socratic/scan/fatbin.hpp"

using namespace socratic;
namespace fx = scanner_fixtures;

namespace {

const ElfSymbol* find_symbol(const std::vector<ElfSymbol>& symbols, std::string_view name) {
  for (const auto& s : symbols)
    if (s.name == name) return &s;
  return nullptr;
}

std::size_t readelf_count(const std::string& text, const std::string& pattern) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex(pattern)));
  return std::stoul(m[1].str());
}

/// Reads everything the scanner reads; a malformed file may throw input_error, nothing else.
void read_everything(const ElfFile& elf) {
  (void)elf.dynamic();
  (void)elf.dynamic_symbols();
  (void)elf.static_symbols();
  for (const auto& s : elf.sections()) (void)printable_strings(elf.section_bytes(s));
  (void)find_fatbin_containers(elf);
}

}  // namespace

TEST_CASE("ELF reader: DT_NEEDED, versioned imports and sections of a cuBLAS program",
          "[scanner][elf]") {
  const ElfFile elf = ElfFile::open(fx::binary("cublas"));
  CHECK((elf.type() == elf::et_exec || elf.type() == elf::et_dyn));
  CHECK(elf.machine() == elf::em_x86_64);
  const auto needed = elf.needed();
  CHECK(std::find(needed.begin(), needed.end(), "libcublas.so.13") != needed.end());
  CHECK(std::find(needed.begin(), needed.end(), "libc.so.6") != needed.end());

  const auto dynsym = elf.dynamic_symbols();
  const ElfSymbol* create = find_symbol(dynsym, "cublasCreate_v2");
  REQUIRE(create != nullptr);
  CHECK_FALSE(create->defined);
  CHECK(create->binding == SymbolBinding::global);
  CHECK(create->version == "libcublas.so.13");
  CHECK(create->version_file == "libcublas.so.13");
  const ElfSymbol* printf_sym = find_symbol(dynsym, "printf");
  if (!printf_sym) printf_sym = find_symbol(dynsym, "puts");  // g++ may turn printf into puts
  REQUIRE(printf_sym != nullptr);
  CHECK(printf_sym->version.rfind("GLIBC_", 0) == 0);
  CHECK(printf_sym->version_file == "libc.so.6");

  REQUIRE(elf.section(".nv_fatbin") != nullptr);
  REQUIRE(elf.section(".rodata") != nullptr);
  CHECK(elf.section(".rodata")->allocated());
  CHECK_FALSE(elf.section(".rodata")->executable());
  CHECK(elf.section(".text")->executable());
  CHECK_FALSE(elf.static_symbols().empty());
}

TEST_CASE("ELF reader agrees with readelf on section, symbol and NEEDED counts", "[scanner][elf]") {
  for (const std::string name : {"cublas", "clean", "namespaces_stripped"}) {
    const auto path = fx::binary(name);
    INFO("fixture " << name << " at " << path);
    const ElfFile elf = ElfFile::open(path);
    const auto sections = fx::run({"readelf", "-S", "-W", path.string()});
    REQUIRE(sections.exit_code == 0);
    CHECK(elf.sections().size() ==
          readelf_count(sections.out, "There are ([0-9]+) section headers"));
    for (const auto& s : elf.sections())
      if (!s.name.empty()) CHECK(sections.out.find(" " + s.name + " ") != std::string::npos);

    const auto dynsyms = fx::run({"readelf", "--dyn-syms", "-W", path.string()});
    CHECK(elf.dynamic_symbols().size() ==
          readelf_count(dynsyms.out, "Symbol table '.dynsym' contains ([0-9]+) entries"));
    const auto syms = fx::run({"readelf", "--syms", "-W", path.string()});
    const bool has_symtab = syms.out.find("Symbol table '.symtab'") != std::string::npos;
    CHECK(has_symtab == !elf.sections_of_type(elf::sht_symtab).empty());
    if (has_symtab)
      CHECK(elf.static_symbols().size() ==
            readelf_count(syms.out, "Symbol table '.symtab' contains ([0-9]+) entries"));

    const auto dynamic = fx::run({"readelf", "-d", "-W", path.string()});
    std::size_t needed = 0;
    for (auto at = dynamic.out.find("(NEEDED)"); at != std::string::npos;
         at = dynamic.out.find("(NEEDED)", at + 1))
      ++needed;
    CHECK(elf.needed().size() == needed);
  }
}

TEST_CASE("ELF reader without section headers reads the dynamic tables through PT_DYNAMIC",
          "[scanner][elf]") {
  // Section headers are not needed to load a binary: a candidate could drop them to hide its
  // tables. Zero e_shoff, e_shnum and e_shstrndx and read the same facts from the segments.
  for (const std::string name : {"cublas", "clean"}) {
    INFO("fixture " << name);
    const auto original_path = fx::binary(name);
    std::string bytes = fx::read_bytes(original_path);
    for (std::size_t i = 40; i < 48; ++i) bytes[i] = 0;  // e_shoff
    for (std::size_t i = 60; i < 64; ++i) bytes[i] = 0;  // e_shnum, e_shstrndx
    const ElfFile headless = ElfFile::from_bytes(bytes, name + " without section headers");
    const ElfFile original = ElfFile::open(original_path);
    CHECK(headless.sections().empty());
    CHECK(headless.needed() == original.needed());
    CHECK(headless.dynamic().soname == original.dynamic().soname);
    std::vector<std::string> a, b;
    for (const auto& s : headless.dynamic_symbols()) a.push_back(s.name + "@" + s.version);
    for (const auto& s : original.dynamic_symbols()) b.push_back(s.name + "@" + s.version);
    CHECK_FALSE(a.empty());
    CHECK(a == b);
  }
}

TEST_CASE("ELF reader rejects what is not a 64-bit little-endian ELF file, naming it",
          "[scanner][elf]") {
  CHECK_THROWS_WITH(
      ElfFile::from_bytes("hello, world\n", "notes.txt"),
      Catch::Matchers::Contains("notes.txt") && Catch::Matchers::Contains("not an ELF file"));
  CHECK_THROWS_WITH(ElfFile::from_bytes("", "empty.bin"), Catch::Matchers::Contains("not an ELF"));
  std::string header(64, '\0');
  header.replace(0, 4,
                 "\x7f"
                 "ELF");
  header[4] = 1;  // ELFCLASS32
  header[5] = 1;
  CHECK_THROWS_WITH(ElfFile::from_bytes(header, "elf32.bin"),
                    Catch::Matchers::Contains("not a 64-bit ELF"));
  header[4] = 2;
  header[5] = 2;  // big-endian
  CHECK_THROWS_WITH(ElfFile::from_bytes(header, "be.bin"),
                    Catch::Matchers::Contains("not a little-endian"));
  CHECK_THROWS_WITH(ElfFile::from_bytes(std::string("\x7f"
                                                    "ELF\x02\x01",
                                                    6),
                                        "short.bin"),
                    Catch::Matchers::Contains("truncated"));
  CHECK_THROWS_WITH(ElfFile::open(fx::scratch_dir() / "does-not-exist"),
                    Catch::Matchers::Contains("cannot open"));
  CHECK_THROWS_WITH(ElfFile::open(fx::scratch_dir()), Catch::Matchers::Contains("is a folder"));

  // A truncated copy of a real binary: the error names the file and says truncated.
  const std::string bytes = fx::read_bytes(fx::binary("clean"));
  const auto path = fx::scratch_dir() / "clean-truncated.so";
  fx::write_bytes(path, bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(ElfFile::open(path), Catch::Matchers::Contains("clean-truncated.so") &&
                                             Catch::Matchers::Contains("truncated"));
}

TEST_CASE("ELF reader survives truncated and corrupted copies (fuzz)", "[scanner][elf][fuzz]") {
  // Host binary and a cubin taken from its fatbin: every read of every copy either succeeds or
  // throws input_error; anything else (another exception, a crash, a sanitizer report) fails.
  const std::string host = fx::read_bytes(fx::binary("clean"));
  const ElfFile host_elf = ElfFile::from_bytes(host, "clean");
  std::string cubin;
  for (const auto& c : find_fatbin_containers(host_elf).containers)
    for (const auto& e : c.entries)
      if (e.kind == FatbinEntryKind::cubin && e.compression == FatbinCompression::none &&
          e.payload.size() > cubin.size())
        cubin = e.payload;
  REQUIRE(ElfFile::has_elf_magic(cubin));

  std::mt19937_64 random(20261129);
  std::size_t parsed = 0, rejected = 0;
  auto attempt = [&](const std::string& bytes, const std::string& label) {
    try {
      read_everything(ElfFile::from_bytes(bytes, label));
      ++parsed;
    } catch (const input_error& e) {
      ++rejected;
      CHECK(std::string(e.what()).find(label) != std::string::npos);
    }
  };
  for (const std::string* original : std::initializer_list<const std::string*>{&host, &cubin}) {
    const ElfFile elf = ElfFile::from_bytes(*original, "original");
    // Truncations: at every structure boundary and at 64 evenly spaced lengths.
    std::set<std::uint64_t> cuts = {0, 1, 4, 16, 63, 64, 65};
    for (const auto& s : elf.sections()) cuts.insert({s.offset, s.offset + s.size / 2});
    for (int i = 1; i < 64; ++i) cuts.insert(original->size() * i / 64);
    for (const auto cut : cuts)
      if (cut < original->size())
        attempt(original->substr(0, cut), "truncated-" + std::to_string(cut));

    // Corruptions of the structures the reader trusts: headers, tables, dynamic data.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> targets = {{0, 64}};
    for (const auto& s : elf.sections())
      if (s.type != elf::sht_progbits && s.type != elf::sht_nobits && s.size > 0)
        targets.emplace_back(s.offset, s.size);
    for (const auto& s : elf.segments())
      targets.emplace_back(s.offset, std::min<std::uint64_t>(s.file_size, 4096));
    for (int round = 0; round < 300; ++round) {
      std::string copy = *original;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int f = 0; f < flips; ++f) {
        const auto& [begin, length] = targets[random() % targets.size()];
        if (length == 0 || begin >= copy.size()) continue;
        const std::size_t at = static_cast<std::size_t>(begin + random() % length) % copy.size();
        static constexpr unsigned char values[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0x40};
        copy[at] = static_cast<char>(random() % 2 ? values[random() % 6] : random() % 256);
      }
      attempt(copy, "corrupted-" + std::to_string(round));
    }
  }
  INFO("parsed " << parsed << ", rejected " << rejected);
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

TEST_CASE("printable_strings finds runs the way strings(1) does", "[scanner][elf]") {
  static constexpr char raw[] = "\x01\x02libcudnn.so.9\0abc\0unlike cuBLAS, this kernel\xff";
  const std::string bytes(raw, sizeof raw - 1);
  const auto strings = printable_strings(bytes, 4);
  REQUIRE(strings.size() == 2);
  CHECK(strings[0] == "libcudnn.so.9");
  CHECK(strings[1] == "unlike cuBLAS, this kernel");
  CHECK(printable_strings(bytes, 3).size() == 3);
}
