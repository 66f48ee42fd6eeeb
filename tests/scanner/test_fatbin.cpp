// Fatbin containers and entries in binaries nvcc built during the test: raw, LZ4 and zstd.
#include "catch.hpp"

#include <algorithm>

#include "fixtures.hpp"
#include "socratic/scan/detail/lz4_block.hpp"
#include "socratic/scan/elf.hpp"
#include "socratic/scan/fatbin.hpp"

using namespace socratic;
namespace fx = scanner_fixtures;

namespace {

std::vector<FatbinEntry> all_entries(const FatbinContents& contents) {
  std::vector<FatbinEntry> out;
  for (const auto& c : contents.containers)
    out.insert(out.end(), c.entries.begin(), c.entries.end());
  return out;
}

std::vector<std::string> cubin_symbol_names(const std::string& cubin) {
  std::vector<std::string> names;
  for (const auto& s : ElfFile::from_bytes(cubin, "cubin").static_symbols())
    names.push_back(s.name);
  return names;
}

bool has(const std::vector<std::string>& v, std::string_view needle) {
  return std::any_of(v.begin(), v.end(), [&](const auto& s) { return s.find(needle) != s.npos; });
}

}  // namespace

TEST_CASE("fatbin: raw cubins and zstd PTX of an nvcc 13 program", "[scanner][fatbin]") {
  const ElfFile elf = ElfFile::open(fx::binary("namespaces"));
  const FatbinContents contents = find_fatbin_containers(elf);
  CHECK(contents.problems.empty());
  REQUIRE_FALSE(contents.containers.empty());
  for (const auto& c : contents.containers) CHECK(c.section == ".nv_fatbin");
  const auto entries = all_entries(contents);
  for (std::size_t i = 0; i < entries.size(); ++i) CHECK(entries[i].number == i);

  std::vector<std::string> symbols;
  bool saw_ptx = false;
  for (const auto& e : entries) {
    CHECK(e.arch == 90);
    if (e.kind == FatbinEntryKind::cubin) {
      CHECK(e.compression == FatbinCompression::none);
      std::string why;
      const auto bytes = decode_fatbin_entry(e, why);
      REQUIRE(bytes);
      const ElfFile cubin = ElfFile::from_bytes(*bytes, e.label());
      CHECK(cubin.machine() == elf::em_cuda);
      for (const auto& n : cubin_symbol_names(*bytes)) symbols.push_back(n);
    } else if (e.kind == FatbinEntryKind::ptx) {
      saw_ptx = true;
      CHECK(e.compression == FatbinCompression::zstd);  // nvcc 13 compresses PTX by default
      CHECK(e.payload.substr(0, 4) == std::string("\x28\xb5\x2f\xfd", 4));
      std::string why;
      CHECK_FALSE(decode_fatbin_entry(e, why));
      CHECK_THAT(why, Catch::Matchers::Contains("zstd"));
      CHECK_THAT(e.label(), Catch::Matchers::Contains("sm_90 PTX, zstd"));
    }
  }
  CHECK(saw_ptx);
  CHECK(has(symbols, "_ZN7cutlass17tiled_gemm_kernelEPfi"));
  // The out-of-line device function in namespace cute, as ptxas names it.
  CHECK(has(symbols, "$_ZN4cute15scaled_epilogueEf"));
}

TEST_CASE("fatbin: LZ4-compressed cubins decode to the same cubins as the raw build",
          "[scanner][fatbin]") {
  auto cubins = [](const std::string& fixture, FatbinCompression expected) {
    std::vector<std::string> out;
    for (const auto& e : all_entries(find_fatbin_containers(ElfFile::open(fx::binary(fixture))))) {
      if (e.kind != FatbinEntryKind::cubin) continue;
      CHECK(e.compression == expected);
      std::string why;
      const auto bytes = decode_fatbin_entry(e, why);
      INFO(e.label() << ": " << why);
      REQUIRE(bytes);
      if (expected == FatbinCompression::lz4) CHECK(bytes->size() == e.decompressed_size);
      out.push_back(*bytes);
    }
    return out;
  };
  const auto raw = cubins("namespaces", FatbinCompression::none);
  const auto lz4 = cubins("namespaces_lz4", FatbinCompression::lz4);
  REQUIRE(raw.size() == lz4.size());
  for (std::size_t i = 0; i < raw.size(); ++i)
    CHECK(cubin_symbol_names(raw[i]) == cubin_symbol_names(lz4[i]));

  // zstd-compressed cubins are recognised and left to an external decoder.
  for (const auto& e :
       all_entries(find_fatbin_containers(ElfFile::open(fx::binary("namespaces_zstd"))))) {
    CHECK(e.compression == FatbinCompression::zstd);
    CHECK(e.decompressed_size > e.compressed_size);
  }
}

TEST_CASE("fatbin: containers are found by magic outside .nv_fatbin, and bad ones are noted",
          "[scanner][fatbin]") {
  std::string bytes = fx::read_bytes(fx::binary("namespaces"));
  const ElfFile original = ElfFile::from_bytes(bytes, "namespaces");
  const ElfSection* fatbin_section = original.section(".nv_fatbin");
  REQUIRE(fatbin_section != nullptr);
  const std::size_t expected = find_fatbin_containers(original).containers.size();

  SECTION("a renamed section is still searched") {
    const ElfSection* names = &original.sections()[1];
    for (const auto& s : original.sections())
      if (s.type == elf::sht_strtab && bytes.find(".nv_fatbin", s.offset) < s.offset + s.size)
        names = &s;
    const auto at = bytes.find(".nv_fatbin", names->offset);
    REQUIRE(at != std::string::npos);
    bytes.replace(at, 10, ".xx_hidden");
    const ElfFile renamed = ElfFile::from_bytes(bytes, "renamed");
    REQUIRE(renamed.section(".nv_fatbin") == nullptr);
    const FatbinContents contents = find_fatbin_containers(renamed);
    CHECK(contents.containers.size() == expected);
    CHECK(contents.containers.front().section == ".xx_hidden");
  }
  SECTION("a container whose entry runs past its end becomes a problem, not an exception") {
    // The first entry's payload size (u64 at +8 of the entry, after the 16-byte container header).
    const std::size_t size_field = static_cast<std::size_t>(fatbin_section->offset) + 16 + 8;
    for (int i = 0; i < 8; ++i) bytes[size_field + i] = '\x7f';
    const FatbinContents contents = find_fatbin_containers(ElfFile::from_bytes(bytes, "broken"));
    REQUIRE_FALSE(contents.problems.empty());
    CHECK_THAT(contents.problems.front(), Catch::Matchers::Contains("could not be parsed") &&
                                              Catch::Matchers::Contains("beyond the end"));
  }
}

TEST_CASE("LZ4 block decoder: literals, overlapping matches, and corrupt input",
          "[scanner][fatbin]") {
  std::string why;
  // Token 0x40: 4 literals, no match (last sequence).
  auto out = socratic::detail::decompress_lz4_block(std::string("\x40"
                                                      "abcd",
                                                      5),
                                          100, why);
  REQUIRE(out);
  CHECK(*out == "abcd");
  // Token 0x25: 2 literals "ab", match offset 2 length 5+4=9 (overlapping), then "!" as last.
  out = socratic::detail::decompress_lz4_block(std::string("\x25"
                                                 "ab"
                                                 "\x02\x00"
                                                 "\x10"
                                                 "!",
                                                 7),
                                     100, why);
  REQUIRE(out);
  CHECK(*out ==
        "ababababab"
        "a!");
  // Literal length extended by bytes: 15 + 3 = 18 literals.
  out = socratic::detail::decompress_lz4_block(std::string("\xf0\x03") + std::string(18, 'x'), 100, why);
  REQUIRE(out);
  CHECK(*out == std::string(18, 'x'));
  // Offset reaching before the start, truncated input, output limit.
  CHECK_FALSE(socratic::detail::decompress_lz4_block(std::string("\x14"
                                                       "a"
                                                       "\x05\x00",
                                                       4),
                                           100, why));
  CHECK_THAT(why, Catch::Matchers::Contains("before the start"));
  CHECK_FALSE(socratic::detail::decompress_lz4_block(std::string("\x50"
                                                       "ab",
                                                       3),
                                           100, why));
  CHECK_FALSE(socratic::detail::decompress_lz4_block(std::string("\x40"
                                                       "abcd",
                                                       5),
                                           3, why));
  CHECK_FALSE(socratic::detail::decompress_lz4_block(std::string("\x15"
                                                       "a"
                                                       "\x01",
                                                       3),
                                           100, why));
  CHECK_THAT(why, Catch::Matchers::Contains("truncated"));
}
