// scan_binary and scan_mapped_libraries on binaries nvcc built during the test.
#include "catch.hpp"

#include <dlfcn.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "fixtures.hpp"
#include "socratic/scan/library_policy.hpp"
#include "socratic/scan/scanner.hpp"

using namespace socratic;
namespace fx = scanner_fixtures;

namespace {

std::set<std::string> libraries(const std::vector<BannedFinding>& findings) {
  std::set<std::string> out;
  for (const auto& f : findings) out.insert(f.library);
  return out;
}

/// Findings for `library` whose evidence contains every one of `parts`.
std::size_t count_evidence(const std::vector<BannedFinding>& findings, const std::string& library,
                           std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (const auto& f : findings) {
    if (f.library != library) continue;
    bool all = true;
    for (const auto p : parts) all = all && f.evidence.find(p) != std::string::npos;
    n += all;
  }
  return n;
}

/// Findings for `library` whose evidence starts with `prefix` (the place comes first).
std::size_t count_starting(const std::vector<BannedFinding>& findings, const std::string& library,
                           std::string_view prefix) {
  std::size_t n = 0;
  for (const auto& f : findings) n += f.library == library && f.evidence.starts_with(prefix);
  return n;
}

std::string dump(const BinaryScan& scan) {
  std::ostringstream out;
  for (const auto& f : scan.findings) out << f.library << ": " << f.evidence << "\n";
  for (const auto& n : scan.notes) out << "note: " << n << "\n";
  return out.str();
}

ScanOptions no_external_tools() {
  ScanOptions o;
  o.zstd_program.clear();
  o.cuobjdump_program.clear();
  return o;
}

}  // namespace

TEST_CASE("scanner: programs linked against cuBLAS, cuBLASLt, cuDNN", "[scanner]") {
  SECTION("cuBLAS: DT_NEEDED and versioned imports, and nothing else") {
    const auto path = fx::binary("cublas");
    const auto findings = scan_binary(path);
    INFO(dump(scan_binary_report(path)));
    CHECK(libraries(findings) == std::set<std::string>{"cublas"});
    CHECK(count_evidence(findings, "cublas", {"DT_NEEDED libcublas.so.13"}) == 1);
    CHECK(count_evidence(findings, "cublas",
                         {".dynsym: imported symbol cublasCreate_v2@libcublas.so.13"}) == 1);
    CHECK(count_evidence(findings, "cublas",
                         {".dynsym: imported symbol cublasSgemm_v2@libcublas.so.13"}) == 1);
    for (const auto& f : findings) CHECK(f.file == path.string());
  }
  SECTION("cuBLASLt is reported as cublaslt, not as cublas") {
    const auto findings = scan_binary(fx::binary("cublaslt"));
    CHECK(libraries(findings) == std::set<std::string>{"cublaslt"});
    CHECK(count_evidence(findings, "cublaslt", {"DT_NEEDED libcublasLt.so.13"}) == 1);
    CHECK(count_evidence(findings, "cublaslt",
                         {"imported symbol cublasLtCreate@libcublasLt.so.13"}) >= 1);
  }
  SECTION("cuDNN") {
    const auto findings = scan_binary(fx::binary("cudnn"));
    CHECK(libraries(findings) == std::set<std::string>{"cudnn"});
    CHECK(count_evidence(findings, "cudnn", {"DT_NEEDED libcudnn.so.9"}) == 1);
    CHECK(count_evidence(findings, "cudnn", {"imported symbol cudnnCreate@libcudnn.so.9"}) >= 1);
  }
  SECTION("stripped: the dynamic evidence survives") {
    const auto findings = scan_binary(fx::binary("cublas_stripped"));
    CHECK(count_evidence(findings, "cublas", {"DT_NEEDED libcublas.so.13"}) == 1);
    CHECK(count_evidence(findings, "cublas", {".dynsym: imported symbol cublasCreate_v2"}) == 1);
  }
}

TEST_CASE("scanner: a library that is only NEEDED, and one opened with dlopen by name",
          "[scanner]") {
  const auto needed = scan_binary(fx::binary("needed_only"));
  REQUIRE(needed.size() == 1);
  CHECK(needed[0].library == "cudnn");
  CHECK(needed[0].evidence == "DT_NEEDED libcudnn.so.9");

  const auto path = fx::binary("dlopen_cudnn_stripped");
  const auto opened = scan_binary(path);
  INFO(dump(scan_binary_report(path)));
  CHECK(libraries(opened) == std::set<std::string>{"cudnn"});
  CHECK(count_evidence(opened, "cudnn",
                       {".rodata: string \"libcudnn.so.9\"", "names the library file"}) == 1);
  CHECK(count_evidence(opened, "cudnn", {"DT_NEEDED"}) == 0);
}

TEST_CASE("scanner: namespaces cutlass and cute in host and device code", "[scanner]") {
  SECTION("unstripped: symbols, host stubs, registered names, cubin and PTX") {
    const auto scan = scan_binary_report(fx::binary("namespaces"));
    INFO(dump(scan));
    CHECK(libraries(scan.findings) == std::set<std::string>{"cutlass", "cute"});
    // Host symbol of the kernel and of the device function.
    CHECK(count_starting(scan.findings, "cutlass",
                         ".symtab: global function _ZN7cutlass17tiled_gemm_kernelEPfi = "
                         "cutlass::tiled_gemm_kernel(float*, int)") == 1);
    CHECK(count_starting(scan.findings, "cute",
                         ".symtab: global function _ZN4cute15scaled_epilogueEf") == 1);
    // The kernel's host stub, whose own demangling does not show the namespace.
    CHECK(count_evidence(
              scan.findings, "cutlass",
              {"_Z48__device_stub__ZN7cutlass17tiled_gemm_kernelEPfiPfi (host stub of kernel "
               "cutlass::tiled_gemm_kernel(float*, int))"}) == 1);
    // The name registered with the CUDA runtime, in .rodata.
    CHECK(count_evidence(scan.findings, "cutlass",
                         {".rodata: mangled name _ZN7cutlass17tiled_gemm_kernelEPfi"}) == 1);
    CHECK(count_evidence(scan.findings, "cute",
                         {".rodata: mangled name", "layout_kernel<cute::Layout<4> >"}) == 1);
    // Device code: the cubin's symbols and the PTX names.
    CHECK(count_evidence(scan.findings, "cute",
                         {"sm_90 cubin, raw", ".symtab", "$_ZN4cute15scaled_epilogueEf",
                          "cute::scaled_epilogue(float)"}) == 1);
    CHECK(count_evidence(scan.findings, "cutlass", {"sm_90 PTX, zstd", "PTX name _ZN7cutlass"}) ==
          1);
  }
  SECTION("stripped: the registered names and the device code still show both") {
    const auto scan = scan_binary_report(fx::binary("namespaces_stripped"));
    INFO(dump(scan));
    CHECK(libraries(scan.findings) == std::set<std::string>{"cutlass", "cute"});
    CHECK(count_starting(scan.findings, "cutlass", ".symtab:") == 0);
    CHECK(count_starting(scan.findings, "cute", ".symtab:") == 0);
    CHECK(count_evidence(scan.findings, "cutlass",
                         {".rodata: mangled name _ZN7cutlass17tiled_gemm_kernelEPfi"}) == 1);
    // The device function in namespace cute is visible only in the cubin now.
    CHECK(count_evidence(scan.findings, "cute", {"cubin", "cute::scaled_epilogue(float)"}) == 1);
    CHECK_THAT(scan.notes.at(0), Catch::Matchers::Contains("no .symtab (stripped)"));
  }
  SECTION("stripped, LZ4-compressed device code is decoded in-process") {
    const auto scan = scan_binary_report(fx::binary("namespaces_lz4_stripped"),
                                         default_ban_policy(), no_external_tools());
    INFO(dump(scan));
    CHECK(count_evidence(scan.findings, "cute",
                         {"sm_90 cubin, lz4", "cute::scaled_epilogue(float)"}) == 1);
    CHECK(count_evidence(scan.findings, "cutlass",
                         {"sm_90 PTX, lz4", "cutlass::tiled_gemm_kernel"}) == 1);
    CHECK(scan.notes.size() == 1);  // only the stripped note
  }
  SECTION("stripped, zstd-compressed device code is decoded through the zstd program") {
    REQUIRE_FALSE(find_program("zstd").empty());  // scripts/install-deps.sh installs it
    const auto scan = scan_binary_report(fx::binary("namespaces_zstd_stripped"));
    INFO(dump(scan));
    CHECK(count_evidence(scan.findings, "cute",
                         {"sm_90 cubin, zstd", "cute::scaled_epilogue(float)"}) == 1);
    CHECK(scan.notes.size() == 1);
  }
  SECTION("zstd device code without zstd or cuobjdump: noted as not inspected") {
    const auto scan = scan_binary_report(fx::binary("namespaces_zstd_stripped"),
                                         default_ban_policy(), no_external_tools());
    INFO(dump(scan));
    std::size_t not_inspected = 0;
    for (const auto& n : scan.notes)
      if (n.find("was not inspected") != std::string::npos && n.find("zstd") != std::string::npos &&
          n.find("cuobjdump is not available") != std::string::npos)
        ++not_inspected;
    CHECK(not_inspected >= 2);  // the cubin and the PTX
    // The host side still gives the kernels away.
    CHECK(count_evidence(scan.findings, "cutlass", {".rodata: mangled name"}) == 1);
    CHECK(count_evidence(scan.findings, "cute", {"cute::scaled_epilogue"}) == 0);
  }
}

TEST_CASE("scanner: a binary without section headers is read through its segments", "[scanner]") {
  // The loader needs no section headers; a candidate could drop them to hide its tables.
  std::string bytes = fx::read_bytes(fx::binary("namespaces_stripped"));
  for (std::size_t i = 40; i < 48; ++i) bytes[i] = 0;  // e_shoff
  for (std::size_t i = 60; i < 64; ++i) bytes[i] = 0;  // e_shnum, e_shstrndx
  const auto path = fx::scratch_dir() / "namespaces-headless";
  fx::write_bytes(path, bytes);
  const auto scan = scan_binary_report(path);
  INFO(dump(scan));
  CHECK(libraries(scan.findings) == std::set<std::string>{"cutlass", "cute"});
  CHECK(count_evidence(scan.findings, "cutlass",
                       {"PT_LOAD segment", "mangled name _ZN7cutlass17tiled_gemm_kernelEPfi"}) ==
        1);
  CHECK(count_evidence(scan.findings, "cute",
                       {"(no section)", "cubin", "cute::scaled_epilogue(float)"}) == 1);
  bool noted = false;
  for (const auto& n : scan.notes)
    noted = noted || n.find("no section headers") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("scanner: cuobjdump fallback for device code it cannot decode", "[scanner]") {
  // No cuobjdump on the CI machine: a stand-in with cuobjdump's interface (-xelf all / -xptx
  // all write the binary's cubins and PTX into the current folder) checks the integration:
  // the program is found, run in a fresh folder, and every file it writes is scanned.
  std::string cubin;
  for (const auto& c : find_fatbin_containers(ElfFile::open(fx::binary("namespaces"))).containers)
    for (const auto& e : c.entries)
      if (e.kind == FatbinEntryKind::cubin && e.payload.find("cute") != std::string::npos)
        cubin = e.payload;
  REQUIRE_FALSE(cubin.empty());
  const auto cubin_path = fx::scratch_dir() / "extracted.cubin";
  fx::write_bytes(cubin_path, cubin);
  const auto script = fx::scratch_dir() / "fake-cuobjdump";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
           "case \"$1\" in\n"
           "  -xelf) cp '"
        << cubin_path.string()
        << "' ./namespaces.1.sm_90a.cubin ;;\n"
           "  -xptx) echo 'cuobjdump info    : File does not contain device code' >&2; exit 255 "
           ";;\n"
           "  *) exit 2 ;;\n"
           "esac\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);

  ScanOptions options;
  options.zstd_program.clear();
  options.cuobjdump_program = script.string();
  const auto scan =
      scan_binary_report(fx::binary("namespaces_zstd_stripped"), default_ban_policy(), options);
  INFO(dump(scan));
  CHECK(count_evidence(scan.findings, "cute",
                       {"cuobjdump: namespaces.1.sm_90a.cubin: .symtab",
                        "cute::scaled_epilogue(float)"}) == 1);
  bool noted = false;
  for (const auto& n : scan.notes)
    noted = noted || n.find("inspected through cuobjdump") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("scanner: a clean candidate that mentions the libraries passes", "[scanner]") {
  for (const std::string name : {"clean", "clean_stripped"}) {
    const auto scan = scan_binary_report(fx::binary(name));
    INFO(name << "\n" << dump(scan));
    CHECK(scan.clean());
    // It really does contain the mentions the rules must not take for uses.
    const std::string bytes = fx::read_bytes(fx::binary(name));
    CHECK(bytes.find("unlike cuBLAS, this kernel") != std::string::npos);
    CHECK(bytes.find("cutlass_like_tile") != std::string::npos);
    CHECK(bytes.find("cute_helpers") != std::string::npos);
    if (name == "clean") {
      CHECK(bytes.find("cudnn_style_softmax") != std::string::npos);
      CHECK(bytes.find("cudnnStyleChecksum") != std::string::npos);
    }
  }
}

TEST_CASE("scanner: a statically linked API symbol is found; a local look-alike is not",
          "[scanner]") {
  const auto findings = scan_binary(fx::binary("static_api"));
  CHECK(libraries(findings) == std::set<std::string>{"cublas"});
  CHECK(count_evidence(findings, "cublas",
                       {"global function cublasSgemm_v2 is defined in the binary"}) == 1);
  for (const auto& f : findings) CHECK(f.evidence.find("cudnnLocalHelper") == std::string::npos);
}

TEST_CASE("scanner verdict under a library policy: an allowed library's findings are reported as allowed",
          "[scanner][library_policy]") {
  // cuBLASLt imported, CUTLASS and CuTe names in host and device code: still found, then filed.
  std::vector<BannedFinding> findings = scan_binary(fx::binary("cublaslt"));
  for (auto& f : scan_binary(fx::binary("namespaces"))) findings.push_back(f);
  REQUIRE(libraries(findings) == std::set<std::string>{"cublaslt", "cutlass", "cute"});

  // A suite problem's default: nothing banned, every finding listed as allowed.
  std::vector<BannedFinding> banned = findings;
  std::vector<BannedFinding> allowed = take_allowed_findings(banned, default_library_policy(LibraryPolicyOrigin::sol_execbench));
  CHECK(banned.empty());
  CHECK(allowed == findings);

  // A Socratic problem's default: every finding a violation, none allowed.
  banned = findings;
  CHECK(take_allowed_findings(banned, default_library_policy(LibraryPolicyOrigin::socratic)).empty());
  CHECK(banned == findings);

  // A suite problem with CUTLASS banned (a campaign's override): cuBLASLt allowed, CUTLASS and CuTe banned.
  LibraryPolicyOverride no_cutlass;
  no_cutlass.ban = {LibraryFamily::cutlass};
  banned = findings;
  allowed = take_allowed_findings(banned, resolve_library_policy(LibraryPolicyOrigin::kernelbench, no_cutlass));
  CHECK(libraries(allowed) == std::set<std::string>{"cublaslt"});
  CHECK(libraries(banned) == std::set<std::string>{"cutlass", "cute"});
  CHECK(count_evidence(allowed, "cublaslt", {"DT_NEEDED libcublasLt.so.13"}) == 1);
}

TEST_CASE("scanner: the policy decides what is banned", "[scanner][policy]") {
  BanPolicy policy = default_ban_policy();
  policy.remove("cute");
  CHECK(libraries(scan_binary(fx::binary("namespaces"), policy)) ==
        std::set<std::string>{"cutlass"});
  // A new library: the CUDA runtime API, statically linked into every nvcc program.
  policy.add({"cudart", "CUDA runtime", {"libcudart.so*"}, {"cuda[A-Z]"}, {}});
  const auto findings = scan_binary(fx::binary("needed_only"), policy);
  CHECK(count_evidence(findings, "cudart", {"is defined in the binary"}) >= 1);
  // Findings per library and place are capped, the rest counted in one more finding.
  CHECK(count_evidence(findings, "cudart", {"more pieces of evidence like the ones above"}) >= 1);
}

TEST_CASE("scanner: names with bytes that are not UTF-8 give printable evidence", "[scanner]") {
  // A hostile binary may put any bytes in its names; the JSON report must still serialise.
  std::string bytes = fx::read_bytes(fx::binary("namespaces"));
  std::size_t replaced = 0;
  for (auto at = bytes.find("tiled_gemm"); at != std::string::npos;
       at = bytes.find("tiled_gemm", at)) {
    bytes[at + 5] = '\xff';
    ++replaced;
  }
  REQUIRE(replaced > 0);
  const auto path = fx::scratch_dir() / "namespaces-not-utf8";
  fx::write_bytes(path, bytes);
  const auto scan = scan_binary_report(path);
  CHECK(count_evidence(scan.findings, "cutlass", {"tiled\\xffgemm_kernel"}) >= 1);
  bool printable = true;
  for (const auto& f : scan.findings)
    for (const char c : f.evidence) printable = printable && c >= 0x20 && c <= 0x7e;
  CHECK(printable);
  CHECK_NOTHROW(json(scan.findings).dump());
}

TEST_CASE("scanner: unreadable, non-ELF and truncated files are errors naming the file",
          "[scanner]") {
  const auto text = fx::scratch_dir() / "readme.txt";
  fx::write_bytes(text, "unlike cuBLAS, this is text\n");
  CHECK_THROWS_AS(scan_binary(text), input_error);
  CHECK_THROWS_WITH(scan_binary(text), Catch::Matchers::Contains("readme.txt") &&
                                           Catch::Matchers::Contains("not an ELF file"));
  const std::string bytes = fx::read_bytes(fx::binary("cublas"));
  const auto truncated = fx::scratch_dir() / "cublas-truncated";
  fx::write_bytes(truncated, bytes.substr(0, 3000));
  CHECK_THROWS_WITH(scan_binary(truncated), Catch::Matchers::Contains("cublas-truncated") &&
                                                Catch::Matchers::Contains("truncated"));
  CHECK_THROWS_WITH(scan_binary(fx::scratch_dir() / "absent"),
                    Catch::Matchers::Contains("cannot open"));
}

TEST_CASE("scanner survives corrupted copies of a binary (fuzz)", "[scanner][fuzz]") {
  const std::string original = fx::read_bytes(fx::binary("namespaces_lz4"));
  const ElfFile elf = ElfFile::from_bytes(original, "namespaces_lz4");
  const ElfSection* fatbin = elf.section(".nv_fatbin");
  REQUIRE(fatbin != nullptr);
  std::mt19937_64 random(7);
  const auto path = fx::scratch_dir() / "corrupted";
  for (int round = 0; round < 60; ++round) {
    std::string copy = original;
    // Mostly the fatbin (container, entry headers, LZ4 streams), sometimes the ELF headers.
    for (int f = 0; f < 1 + static_cast<int>(random() % 6); ++f) {
      const bool in_fatbin = random() % 4 != 0;
      const std::uint64_t at = in_fatbin ? fatbin->offset + random() % fatbin->size : random() % 64;
      copy[static_cast<std::size_t>(at)] = static_cast<char>(random() % 256);
    }
    fx::write_bytes(path, copy);
    try {
      (void)scan_binary_report(path, default_ban_policy(), no_external_tools());
    } catch (const input_error& e) {
      CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("corrupted"));
    }
  }
}

TEST_CASE("run time: mapped libraries, by file name, by SONAME and by exports",
          "[scanner][runtime]") {
  // A renamed copy of libcudnn.so.9: its name says nothing, its DT_SONAME and exports do.
  const auto renamed = fx::scratch_dir() / "libinnocent.so";
  std::filesystem::copy_file("/usr/local/cuda/lib64/libcudnn.so.9", renamed,
                             std::filesystem::copy_options::overwrite_existing);
  const std::vector<std::string> mapped = {
      "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/local/cuda/lib64/libcublas.so.13",
      renamed.string(), "/memfd:libcudnn_ops.so.9 (deleted)", "/usr/lib/locale/C.utf8/LC_CTYPE"};
  const auto findings = scan_mapped_libraries(mapped, default_ban_policy());
  std::ostringstream all;
  for (const auto& f : findings) all << f.library << ": " << f.evidence << "\n";
  INFO(all.str());
  CHECK(libraries(findings) == std::set<std::string>{"cublas", "cudnn"});
  for (const auto& f : findings) CHECK(f.file == "process");
  CHECK(count_evidence(findings, "cublas",
                       {"mapped /usr/local/cuda/lib64/libcublas.so.13", "matches libcublas.so*"}) ==
        1);
  CHECK(count_evidence(findings, "cublas", {"exports cublas"}) == 1);
  CHECK(count_evidence(findings, "cudnn", {"libinnocent.so: DT_SONAME libcudnn.so.9"}) == 1);
  CHECK(count_evidence(findings, "cudnn", {"libinnocent.so: exports cudnn", "more such symbols"}) ==
        1);
  CHECK(count_evidence(findings, "cudnn", {"/memfd:libcudnn_ops.so.9 (deleted)"}) == 1);
  CHECK(scan_mapped_libraries({"/usr/lib/x86_64-linux-gnu/libc.so.6"}).empty());
}

TEST_CASE("run time: a library opened with dlopen shows in /proc/self/maps", "[scanner][runtime]") {
  auto mapped_now = [] {
    std::ifstream in("/proc/self/maps");
    std::stringstream text;
    text << in.rdbuf();
    return mapped_files_from_proc_maps(text.str());
  };
  CHECK(scan_mapped_libraries(mapped_now()).empty());  // the test program itself uses none
  void* handle = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
  INFO("dlopen: " << (handle ? "ok" : dlerror()));
  REQUIRE(handle != nullptr);
  const auto findings = scan_mapped_libraries(mapped_now());
  dlclose(handle);
  CHECK(libraries(findings) == std::set<std::string>{"cudnn"});
  CHECK(count_evidence(findings, "cudnn", {"mapped /", "libcudnn.so.9"}) >= 1);
}

TEST_CASE("mapped_files_from_proc_maps keeps file paths once, in order", "[scanner][runtime]") {
  const std::string maps =
      "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234   /usr/bin/runner\n"
      "55d0c0a02000-55d0c0a04000 r-xp 00002000 08:01 1234   /usr/bin/runner\n"
      "55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0      [heap]\n"
      "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
      "7f0000200000-7f0000300000 r-xp 00000000 08:01 99     /opt/my libs/libx.so\n"
      "7f0000400000-7f0000500000 r-xp 00000000 00:05 77     /memfd:libcudnn.so.9 (deleted)\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0      [stack]\n";
  CHECK(mapped_files_from_proc_maps(maps) ==
        std::vector<std::string>{"/usr/bin/runner", "/opt/my libs/libx.so",
                                 "/memfd:libcudnn.so.9 (deleted)"});
}
