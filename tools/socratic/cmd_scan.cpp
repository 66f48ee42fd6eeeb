// socratic scan: reports banned libraries (CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN by default) in
// built binaries. Exit 0 when every binary is clean, 1 when any banned library is found, 2 when a
// binary could not be scanned (unreadable, not ELF, malformed) or the arguments are wrong.
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "socratic/scan/ban_policy.hpp"
#include "socratic/scan/scanner.hpp"

namespace socratic::tool {
namespace {

constexpr const char* scan_usage =
    R"(Usage: socratic scan [--json] [--policy FILE] [--no-external-tools] BINARY...
       socratic scan --print-policy [--policy FILE]

Scans built binaries for banned libraries: DT_NEEDED entries, imported or statically linked API
symbols, C++ namespaces (host symbols, kernel stubs, registered kernel names, cubin and PTX
names), and strings naming a library file (dlopen).

  --json               one JSON document on stdout: {"clean": bool, "files": [{"file", "clean",
                       "findings": [{"file", "library", "evidence"}], "notes", "error"}]}
  --policy FILE        the ban policy (JSON; see docs/scanner.md); default: CUTLASS, CuTe,
                       cuBLAS, cuBLASLt, cuDNN
  --print-policy       print the effective policy as JSON and exit
  --no-external-tools  never run zstd or cuobjdump (compressed device code is then noted as
                       not inspected)

Output: one line per finding, FILE: LIBRARY: EVIDENCE; FILE: clean for a clean binary; notes
(what could not be inspected) as FILE: note: TEXT.
Exit: 0 every binary clean, 1 a banned library found, 2 an error (an error wins over findings).
)";

int run_scan(const std::vector<std::string>& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << scan_usage;
      return exit_ok;
    }
  const parsed_args parsed(args, {"--json", "--print-policy", "--no-external-tools"}, {"--policy"});
  const BanPolicy policy =
      parsed.value("--policy") ? load_ban_policy(*parsed.value("--policy")) : default_ban_policy();
  if (parsed.flag("--print-policy")) {
    std::cout << json(policy).dump(2) << "\n";
    return exit_ok;
  }
  if (parsed.positionals().empty()) throw usage_error("no BINARY to scan");
  ScanOptions options;
  if (parsed.flag("--no-external-tools")) {
    options.zstd_program.clear();
    options.cuobjdump_program.clear();
  }
  const bool as_json = parsed.flag("--json");

  bool any_finding = false, any_error = false;
  json files = json::array();
  for (const auto& binary : parsed.positionals()) {
    json entry{{"file", binary}};
    try {
      const BinaryScan scan = scan_binary_report(binary, policy, options);
      any_finding = any_finding || !scan.clean();
      entry["clean"] = scan.clean();
      entry["findings"] = scan.findings;
      entry["notes"] = scan.notes;
      entry["error"] = nullptr;
      if (!as_json) {
        for (const auto& f : scan.findings)
          std::cout << f.file << ": " << f.library << ": " << f.evidence << "\n";
        if (scan.clean()) std::cout << binary << ": clean\n";
        for (const auto& n : scan.notes) std::cout << binary << ": note: " << n << "\n";
      }
    } catch (const input_error& e) {
      any_error = true;
      entry["clean"] = false;
      entry["findings"] = json::array();
      entry["notes"] = json::array();
      entry["error"] = e.what();
      if (!as_json) std::cerr << "socratic scan: " << e.what() << "\n";
    }
    files.push_back(std::move(entry));
  }
  if (as_json)
    std::cout << json{{"schema_version", schema_version},
                      {"clean", !any_finding && !any_error},
                      {"files", files}}
                     .dump(2)
              << "\n";
  return any_error ? exit_error : any_finding ? exit_findings : exit_ok;
}

const command_registration scan_registration{
    "scan", "find banned libraries (CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN) in built binaries",
    run_scan};

}  // namespace
}  // namespace socratic::tool
