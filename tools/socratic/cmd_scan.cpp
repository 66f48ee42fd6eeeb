// socratic scan: reports banned libraries (CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN by default) in
// built binaries. Exit 0 when every binary is clean, 1 when any banned library is found, 2 when a
// binary could not be scanned (unreadable, not ELF, malformed) or the arguments are wrong.
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "socratic/scan/ban_policy.hpp"
#include "socratic/scan/scanner.hpp"

namespace socratic::tool {
namespace {

struct ScanCommandOptions {
  bool json = false;
  bool print_policy = false;
  bool no_external_tools = false;
  std::string policy;
  std::vector<std::string> binaries;
};

int run_scan(const ScanCommandOptions& o) {
  const BanPolicy policy = !o.policy.empty() ? load_ban_policy(o.policy) : default_ban_policy();
  if (o.print_policy) {
    std::cout << json(policy).dump(2) << "\n";
    return exit_ok;
  }
  if (o.binaries.empty()) throw usage_error("no BINARY to scan");
  ScanOptions options;
  if (o.no_external_tools) {
    options.zstd_program.clear();
    options.cuobjdump_program.clear();
  }
  const bool as_json = o.json;

  bool any_finding = false, any_error = false;
  json files = json::array();
  for (const auto& binary : o.binaries) {
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

command_run scan_setup(CLI::App& app) {
  auto o = std::make_shared<ScanCommandOptions>();
  app.footer(
      "Scans built binaries for banned libraries: DT_NEEDED entries, imported or statically linked API\n"
      "symbols, C++ namespaces (host symbols, kernel stubs, registered kernel names, cubin and PTX\n"
      "names), and strings naming a library file (dlopen). Output: one line per finding,\n"
      "FILE: LIBRARY: EVIDENCE; FILE: clean for a clean binary; notes (what could not be inspected)\n"
      "as FILE: note: TEXT. With --json, one document on stdout: {\"clean\": bool, \"files\": [{\"file\",\n"
      "\"clean\", \"findings\": [{\"file\", \"library\", \"evidence\"}], \"notes\", \"error\"}]}.\n"
      "Exit: 0 every binary clean, 1 a banned library found, 2 an error (an error wins over findings).\n");
  app.add_option("BINARY", o->binaries, "the binaries to scan")->type_name("");
  add_json_flag(app, o->json, "one JSON document on stdout instead of lines");
  app.add_option("--policy", o->policy, "the ban policy (JSON; docs/scanner.md); default: CUTLASS, CuTe, cuBLAS, "
                                       "cuBLASLt, cuDNN")
      ->type_name("FILE");
  app.add_flag("--print-policy", o->print_policy, "print the effective policy as JSON and exit");
  app.add_flag("--no-external-tools", o->no_external_tools,
               "never run zstd or cuobjdump (compressed device code is then noted as not inspected)");
  return [o] { return run_scan(*o); };
}

const command_registration scan_registration{
    "scan", "find banned libraries (CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN) in built binaries", "Judging a kernel",
    scan_setup};

}  // namespace
}  // namespace socratic::tool
