// Stand-ins for nvcc, nvidia-smi and the runner, so the evaluator's host side is tested on a
// machine without a GPU. The role comes from the name it is run under (argv[0]):
//
// - `nvcc`: `--version` prints a version (from `nvcc.version` beside it, if present). A build
//   appends its command line to `nvcc.calls` beside it, fails on a source containing
//   FAKE_COMPILE_ERROR, sleeps on FAKE_COMPILE_HANG, writes a make-style dependency file for -MF
//   (the source plus its `#include "..."` headers found next to it or in -I folders), and
//   "compiles" a shared object by concatenating its sources (so the fake runner can read the
//   candidate's directives), or a runner by copying itself. A source with a line
//   `FAKE_ELF_EXPORTS NAME...` is built instead into a real ELF shared object (by the host's cc)
//   that exports those C functions, for the evaluator's check of the entry point.
// - `nvidia-smi`: prints the compute capability in `compute_cap` beside it (default 9.0).
// - anything else: the runner. It speaks docs/runner-protocol.md and behaves as the candidate's
//   directives say, one per line: `fake: VERB SCENARIO [ARGS...]` (SCENARIO `*` = every one):
//     crash ID SIGNAL | hang ID | garbage ID | fatal ID MESSAGE | cuda_error ID MESSAGE |
//     exit_before ID CODE |
//     fail ID REASON | speedup ID X | roofline ID MS | tflops ID X | flag ID NAME |
//     forge ID OTHER_ID (no token) | forge_token ID OTHER_ID (another run's token) |
//     long ID | stderr ID TEXT | map_after ID PATH
//   and without a scenario: `fake: fatal_start MESSAGE`, `fake: protocol N`, `fake: map PATH`,
//   `fake: unknown_event`, `fake: no_done`, `fake: problem NAME`, `fake: no_device MESSAGE`
//   (fatal before hello).
//   Each run appends its --only list to CANDIDATE.calls.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void append_line(const fs::path& p, const std::string& line) {
  std::ofstream(p, std::ios::app) << line << "\n";
}

fs::path self_dir(const char* argv0) {
  return fs::absolute(fs::path(argv0)).parent_path();
}

// ---- nvcc --------------------------------------------------------------------------------------

int fake_nvcc(int argc, char** argv) {
  const fs::path dir = self_dir(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--version") {
    const fs::path version_file = dir / "nvcc.version";
    std::cout << "nvcc: fake\nCuda compilation tools, release "
              << (fs::exists(version_file) ? read_text(version_file) : std::string("13.0-fake")) << "\n";
    return 0;
  }
  std::string output, deps_file, joined;
  std::vector<std::string> sources, include_dirs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    joined += (joined.empty() ? "" : " ") + args[i];
    if (args[i] == "-o" && i + 1 < args.size()) output = args[i + 1];
    else if (args[i] == "-MF" && i + 1 < args.size()) deps_file = args[i + 1];
    else if (args[i].rfind("-I", 0) == 0 && args[i].size() > 2) include_dirs.push_back(args[i].substr(2));
    else if (args[i].size() > 3 && args[i].substr(args[i].size() - 3) == ".cu") sources.push_back(args[i]);
  }
  append_line(dir / "nvcc.calls", fs::path(output).filename().string() + " | " + joined);
  std::string combined;
  std::vector<std::string> headers;
  for (const auto& s : sources) {
    const std::string text = read_text(s);
    if (text.find("FAKE_COMPILE_ERROR") != std::string::npos) {
      std::cerr << s << "(3): error: identifier \"FAKE_COMPILE_ERROR\" is undefined\n\n1 error detected in the compilation of \""
                << s << "\".\n";
      return 2;
    }
    if (text.find("FAKE_COMPILE_HANG") != std::string::npos) std::this_thread::sleep_for(std::chrono::seconds(60));
    combined += text;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find("#include \"");
      if (at == std::string::npos) continue;
      const std::string name = line.substr(at + 10, line.find('"', at + 10) - (at + 10));
      std::vector<fs::path> search = {fs::path(s).parent_path()};
      for (const auto& d : include_dirs) search.push_back(d);
      for (const auto& d : search)
        if (fs::exists(d / name)) {
          headers.push_back((d / name).string());
          break;
        }
    }
  }
  if (!deps_file.empty()) {
    std::string deps = output + " : " + (sources.empty() ? "" : sources.back());
    for (const auto& h : headers) deps += " \\\n    " + h;
    std::ofstream(deps_file) << deps << "\n";
  }
  if (const auto at = combined.find("FAKE_ELF_EXPORTS"); at != std::string::npos) {
    std::istringstream names(combined.substr(at + 16, combined.find('\n', at) - at - 16));
    std::string c_source;
    for (std::string n; names >> n;) c_source += "void " + n + "(void) {}\n";
    const std::string c_file = output + ".c";
    std::ofstream(c_file) << c_source;
    const std::string cc = "cc -shared -fPIC -o '" + output + "' '" + c_file + "'";
    return std::system(cc.c_str()) == 0 ? 0 : 3;
  }
  if (fs::path(output).filename().string().rfind("socratic-runner", 0) == 0) {
    fs::copy_file("/proc/self/exe", output, fs::copy_options::overwrite_existing);
    ::chmod(output.c_str(), 0755);
  } else {
    std::ofstream(output, std::ios::binary) << combined;
  }
  return 0;
}

// ---- nvidia-smi --------------------------------------------------------------------------------

int fake_nvidia_smi(char** argv) {
  const fs::path file = self_dir(argv[0]) / "compute_cap";
  std::cout << (fs::exists(file) ? read_text(file) : std::string("9.0\n"));
  return 0;
}

// ---- the runner --------------------------------------------------------------------------------

struct Directive {
  std::string verb, scenario, rest;
};

std::vector<Directive> read_directives(const std::string& text) {
  std::vector<Directive> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("fake: ");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 6));
    Directive d;
    words >> d.verb;
    static const std::vector<std::string> global = {"fatal_start", "protocol", "map", "unknown_event",
                                                    "no_done", "problem", "no_device"};
    bool is_global = false;
    for (const auto& g : global) is_global = is_global || d.verb == g;
    if (!is_global) words >> d.scenario;
    std::getline(words >> std::ws, d.rest);
    out.push_back(d);
  }
  return out;
}

// Every line carries the run's token, as the real runner writes it (SOCRATIC_RUNNER_TOKEN).
void emit(json j) {
  if (const char* token = std::getenv("SOCRATIC_RUNNER_TOKEN")) j["token"] = token;
  std::cout << j.dump() << std::endl;  // flushed per line, as the real runner does
}

// A line written by someone who does not know the token (none, or another run's).
void emit_forged(json j, const char* token) {
  if (token) j["token"] = token;
  std::cout << j.dump() << std::endl;
}

int fake_runner(int argc, char** argv) {
  // As the real runner: the options come on standard input, one word a line; an option on the
  // command line (where any process could read it) is refused, so a host that put one there
  // fails its tests.
  if (argc != 2 || std::string(argv[1]) != "--options-stdin") {
    std::cout << json{{"event", "fatal"}, {"message", "fake runner: options on the command line"}}.dump()
              << std::endl;
    return 2;
  }
  std::vector<std::string> words;
  for (std::string line; std::getline(std::cin, line);) words.push_back(line);
  const int word_count = static_cast<int>(words.size());
  std::string candidate, scenarios_file, only, k = "2", seed;
  for (int i = 0; i < word_count; ++i) {
    const std::string a = words[static_cast<std::size_t>(i)];
    auto value = [&] { return i + 1 < word_count ? words[static_cast<std::size_t>(++i)] : std::string(); };
    if (a == "--candidate") candidate = value();
    else if (a == "--scenarios") scenarios_file = value();
    else if (a == "--only") only = value();
    else if (a == "--k") k = value();
    else if (a == "--seed") seed = value();
    else if (a == "--baseline" || a == "--min-samples" || a == "--max-samples" ||
             a == "--target-noise" || a == "--max-ms-per-scenario")
      value();
  }
  append_line(candidate + ".calls", "--only " + only + " --k " + k + (seed.empty() ? "" : " --seed " + seed));
  const auto directives = read_directives(read_text(candidate));
  auto find = [&](const std::string& verb, const std::string& id) -> const Directive* {
    for (const auto& d : directives)
      if (d.verb == verb && (d.scenario == id || d.scenario == "*" || (id.empty() && d.scenario.empty()))) return &d;
    return nullptr;
  };
  const json set = json::parse(read_text(scenarios_file));
  std::string problem = set.value("problem", "toy");
  if (auto d = find("problem", "")) problem = d->rest;
  int protocol = 2;
  if (auto d = find("protocol", "")) protocol = std::stoi(d->rest);
  if (auto d = find("no_device", "")) {  // as the real runner fails without a usable GPU
    emit({{"event", "fatal"}, {"message", d->rest}});
    return 3;
  }
  emit({{"event", "hello"}, {"protocol", protocol}, {"problem", problem}, {"device", "Fake GPU"},
        {"arch", "sm_90"}, {"sm_count", 132}, {"l2_bytes", 62914560}, {"peak_tflops", 989.0},
        {"peak_gbps", 4800.0}});
  if (auto d = find("map", "")) emit({{"event", "libraries"}, {"mapped", {d->rest}}});
  if (find("unknown_event", "")) emit({{"event", "from_the_future"}, {"payload", 42}});
  if (auto d = find("fatal_start", "")) {
    emit({{"event", "fatal"}, {"message", d->rest}});
    return 1;
  }
  std::vector<std::string> wanted;
  for (std::size_t start = 0; !only.empty() && start <= only.size();) {
    const auto comma = only.find(',', start);
    wanted.push_back(only.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  int index = 0, count = 0;
  for (const auto& s : set.at("scenarios")) {
    const std::string id = s.at("id");
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), id) == wanted.end()) {
      ++index;
      continue;
    }
    if (auto d = find("exit_before", id)) return std::stoi(d->rest);
    emit({{"event", "scenario_begin"}, {"index", index}, {"id", id}});
    if (auto d = find("stderr", id)) std::cerr << d->rest << std::endl;
    if (find("garbage", id)) std::cout << "this is not json {" << std::endl;
    if (find("long", id)) emit({{"event", "log"}, {"message", std::string(4096, 'x')}});
    if (auto d = find("forge", id))
      emit_forged({{"event", "scenario_end"}, {"result", {{"id", d->rest}, {"correct", true}, {"speedup", 100.0}}}},
                  nullptr);
    if (auto d = find("forge_token", id))
      emit_forged({{"event", "scenario_end"}, {"result", {{"id", d->rest}, {"correct", true}, {"speedup", 100.0}}}},
                  "0123456789abcdef0123456789abcdef");
    if (auto d = find("cuda_error", id)) {  // as the real runner ends a broken CUDA context
      emit({{"event", "scenario_end"},
            {"result", {{"id", id}, {"correct", false}, {"reason", "cuda_error: " + d->rest}}}});
      emit({{"event", "fatal"}, {"message", "scenario \"" + id + "\": " + d->rest + "; the CUDA context is unusable"}});
      return 3;
    }
    if (auto d = find("fatal", id)) {
      emit({{"event", "fatal"}, {"message", d->rest}});
      return 3;
    }
    if (auto d = find("crash", id)) {
      rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      std::cerr << "about to crash" << std::endl;
      ::signal(std::stoi(d->rest), SIG_DFL);
      ::raise(std::stoi(d->rest));
    }
    if (find("hang", id)) std::this_thread::sleep_for(std::chrono::hours(1));
    double speedup = 1.25;
    if (auto d = find("speedup", id)) speedup = std::stod(d->rest);
    json result = {{"id", id},
                   {"correct", true},
                   {"reason", ""},
                   {"max_abs_error", 0.001},
                   {"rel_l2_error", 0.0005},
                   {"baseline_max_abs_error", 0.0012},
                   {"tolerance", 0.004},
                   {"candidate_ms", 1.0 / speedup},
                   {"baseline_ms", 1.0},
                   {"candidate_noise", 0.003},
                   {"baseline_noise", 0.004},
                   {"samples", 20},
                   {"speedup", speedup},
                   {"tflops", 100.0 * speedup},
                   {"roofline_ms", 0.1},
                   {"roofline_fraction", 0.1 * speedup},
                   {"sm_clock_mhz", 1980.0},
                   {"flags", json::array()}};
    if (auto d = find("fail", id)) {
      result["correct"] = false;
      result["reason"] = d->rest;
    }
    if (auto d = find("roofline", id)) {
      result["roofline_ms"] = std::stod(d->rest);
      result["roofline_fraction"] = nullptr;
    }
    if (auto d = find("tflops", id)) result["tflops"] = std::stod(d->rest);
    if (auto d = find("flag", id)) result["flags"].push_back(d->rest);
    // The host believes no more timing than the run's wall time: take it.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    emit({{"event", "scenario_end"}, {"result", result}, {"check_s", 0.001}, {"timing_s", 0.002}});
    if (auto d = find("map_after", id)) emit({{"event", "libraries"}, {"mapped", {d->rest}}});
    ++index;
    ++count;
  }
  if (!find("no_done", "")) emit({{"event", "done"}, {"scenarios", count}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string role = fs::path(argv[0]).filename().string();
  if (role == "nvcc") return fake_nvcc(argc, argv);
  if (role == "nvidia-smi") return fake_nvidia_smi(argv);
  return fake_runner(argc, argv);
}
