// The sandbox (escapes by "..", absolute paths and symbolic links are refused; read-only paths
// stay unchanged; the campaign's own files are refused wherever they are), the shell's OS sandbox
// seen from inside the shell, and the six tools, called the way the model calls them.
#include "catch.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "socratic/agents/agent_tools.hpp"
#include "socratic/agents/api_key.hpp"
#include "socratic/agents/pricing.hpp"
#include "test_files.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// A workspace beside an "outside" folder holding a secret file.
struct Layout {
  TempDir dir{"sandbox"};
  fs::path ws = dir.path / "workspace";
  fs::path outside = dir.path / "outside";
  Layout() {
    fs::create_directories(ws);
    put(outside / "secret.txt", "judge data");
    put(ws / "src" / "kernel.cu", "__global__ void k() {}\n");
  }
};

ToolCall call(const std::string& name, json args) {
  ToolCall c;
  c.id = "call_" + name;
  c.name = name;
  c.arguments = std::move(args);
  c.raw_arguments = c.arguments.dump();
  return c;
}

Tools plain_tools(const fs::path& ws, Tools::evaluate_fn eval = {}) {
  if (!eval) eval = [] { return EvaluateResult{}; };
  return Tools(ws, Candidate{ws / "src" / "kernel.cu", "", ""}, std::move(eval));
}

/// A TCP listener on 127.0.0.1 (connections wait in its backlog; nothing is accepted).
struct LoopbackListener {
  int fd = -1;
  int port = 0;
  LoopbackListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t n = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
  }
  ~LoopbackListener() { ::close(fd); }
};

/// The sandbox is a dependency (scripts/install-deps.sh): its absence fails, never skips.
void require_bubblewrap() {
  INFO("bubblewrap is missing: run scripts/install-deps.sh");
  REQUIRE_FALSE(find_program("bwrap").empty());
}

}  // namespace

TEST_CASE("sandbox: paths inside resolve, escapes are refused with a reason", "[agents][sandbox]") {
  Layout l;
  Sandbox box(l.ws);
  CHECK(box.resolve("src/kernel.cu") == fs::canonical(l.ws / "src" / "kernel.cu"));
  CHECK(box.resolve("./src/../src/kernel.cu") == fs::canonical(l.ws / "src" / "kernel.cu"));
  CHECK(box.resolve("new/file.cu") == fs::canonical(l.ws) / "new" / "file.cu");
  CHECK(box.resolve((fs::canonical(l.ws) / "src").string()) == fs::canonical(l.ws / "src"));
  CHECK(box.resolve(".") == box.root());

  CHECK_THROWS_WITH(box.resolve("../outside/secret.txt"), Catch::Matchers::Contains("\"..\""));
  CHECK_THROWS_WITH(box.resolve("src/../../outside"), Catch::Matchers::Contains("\"..\""));
  CHECK_THROWS_WITH(box.resolve("/etc/passwd"), Catch::Matchers::Contains("absolute path"));
  CHECK_THROWS_WITH(box.resolve(""), Catch::Matchers::Contains("empty"));
  CHECK_THROWS_AS(box.resolve(std::string("a\0b", 3)), sandbox_violation);
}

TEST_CASE("sandbox: symbolic links out are refused, dangling ones too", "[agents][sandbox]") {
  Layout l;
  fs::create_directory_symlink(l.outside, l.ws / "out");                       // folder link out
  fs::create_symlink(l.outside / "secret.txt", l.ws / "peek.txt");            // file link out
  fs::create_symlink(l.outside / "not-yet.txt", l.ws / "trap.txt");           // dangling, out
  fs::create_symlink("src/kernel.cu", l.ws / "alias.cu");                     // inside: fine
  fs::create_directory_symlink(l.ws / "src", l.ws / "srclink");
  fs::create_symlink("loop2", l.ws / "loop1");
  fs::create_symlink("loop1", l.ws / "loop2");
  Sandbox box(l.ws);
  CHECK_THROWS_WITH(box.resolve("out/secret.txt"), Catch::Matchers::Contains("symbolic link"));
  CHECK_THROWS_WITH(box.resolve("peek.txt"), Catch::Matchers::Contains("symbolic link"));
  CHECK_THROWS_WITH(box.resolve_for_write("trap.txt"), Catch::Matchers::Contains("symbolic link"));
  CHECK_THROWS_WITH(box.resolve("srclink/../../outside"), Catch::Matchers::Contains("outside"));
  CHECK(box.resolve("alias.cu") == fs::canonical(l.ws / "src" / "kernel.cu"));
  CHECK(box.resolve("srclink/kernel.cu") == fs::canonical(l.ws / "src" / "kernel.cu"));
  CHECK_THROWS_WITH(box.resolve("loop1"), Catch::Matchers::Contains("too many symbolic links"));
}

TEST_CASE("sandbox: read-only paths can be read but not written", "[agents][sandbox]") {
  Layout l;
  put(l.ws / "harness" / "runner.cu", "judge");
  Sandbox box(l.ws, {"harness"});
  CHECK(box.resolve("harness/runner.cu") == fs::canonical(l.ws / "harness" / "runner.cu"));
  CHECK_THROWS_WITH(box.resolve_for_write("harness/runner.cu"), Catch::Matchers::Contains("read-only"));
  CHECK_THROWS_WITH(box.resolve_for_write("src/../harness/new.cu"), Catch::Matchers::Contains("read-only"));
  CHECK_NOTHROW(box.resolve_for_write("src/kernel.cu"));
}

TEST_CASE("tools: the file tools refuse escapes and leave the outside untouched", "[agents][tools]") {
  Layout l;
  fs::create_directory_symlink(l.outside, l.ws / "out");
  fs::create_symlink(l.outside / "planted.txt", l.ws / "trap.txt");
  AgentToolbox box(Sandbox(l.ws), {});
  Tools tools = plain_tools(l.ws);
  for (const auto& c : {call("read_file", {{"path", "../outside/secret.txt"}}),
                        call("read_file", {{"path", (l.outside / "secret.txt").string()}}),
                        call("read_file", {{"path", "out/secret.txt"}}),
                        call("write_file", {{"path", "out/secret.txt"}, {"content", "pwned"}}),
                        call("write_file", {{"path", "trap.txt"}, {"content", "pwned"}}),
                        call("replace_in_file", {{"path", "out/secret.txt"}, {"old", "judge"}, {"new", "x"}}),
                        call("list_folder", {{"path", ".."}})}) {
    INFO(c.name << " " << c.raw_arguments);
    ToolOutcome o = box.call(c, tools);
    CHECK(o.is_error);
    CHECK_THAT(o.output, Catch::Matchers::StartsWith("error: refused:"));
    CHECK(o.details["sandbox_violation"] == true);
  }
  CHECK(socratic::test::read_text(l.outside / "secret.txt") == "judge data");
  CHECK_FALSE(fs::exists(l.outside / "planted.txt"));
}

TEST_CASE("tools: read, write, replace and list", "[agents][tools]") {
  Layout l;
  AgentToolOptions options;
  options.read_max_bytes = 1000;
  AgentToolbox box(Sandbox(l.ws), options);
  Tools tools = plain_tools(l.ws);

  auto w = box.call(call("write_file", {{"path", "lib/util.cuh"}, {"content", "line 1\nline 2\nline 3\n"}}), tools);
  CHECK_FALSE(w.is_error);
  CHECK(w.output == "wrote 21 bytes to lib/util.cuh");
  CHECK(socratic::test::read_text(l.ws / "lib" / "util.cuh") == "line 1\nline 2\nline 3\n");

  CHECK(box.call(call("read_file", {{"path", "lib/util.cuh"}}), tools).output == "line 1\nline 2\nline 3\n");
  auto part = box.call(call("read_file", {{"path", "lib/util.cuh"}, {"offset", 2}, {"limit", 1}}), tools);
  CHECK_THAT(part.output, Catch::Matchers::StartsWith("line 2\n") &&
                              Catch::Matchers::Contains("[lines 2-2 of 3; read_file with offset 3 continues]"));
  put(l.ws / "big.txt", std::string(3000, 'x') + "\n" + std::string(10, 'y') + "\n");
  auto big = box.call(call("read_file", {{"path", "big.txt"}}), tools);
  CHECK(big.output.size() < 1200);
  CHECK_THAT(big.output, Catch::Matchers::Contains("of 2; read_file with offset 2"));
  put(l.ws / "blob.bin", std::string("\x7f" "ELF\0\0\1", 7));
  CHECK_THAT(box.call(call("read_file", {{"path", "blob.bin"}}), tools).output, Catch::Matchers::Contains("binary file of 7 bytes"));
  CHECK_THAT(box.call(call("read_file", {{"path", "nope.cu"}}), tools).output, Catch::Matchers::Contains("does not exist"));

  auto once = box.call(call("replace_in_file", {{"path", "lib/util.cuh"}, {"old", "line 2"}, {"new", "LINE TWO"}}), tools);
  CHECK(once.output == "replaced 1 occurrence in lib/util.cuh");
  auto many = box.call(call("replace_in_file", {{"path", "lib/util.cuh"}, {"old", "line"}, {"new", "row"}}), tools);
  CHECK(many.is_error);
  CHECK_THAT(many.output, Catch::Matchers::Contains("occurs 2 times"));
  auto all = box.call(call("replace_in_file", {{"path", "lib/util.cuh"}, {"old", "line"}, {"new", "row"}, {"replace_all", true}}), tools);
  CHECK(all.output == "replaced 2 occurrences in lib/util.cuh");
  CHECK(socratic::test::read_text(l.ws / "lib" / "util.cuh") == "row 1\nLINE TWO\nrow 3\n");
  auto missing = box.call(call("replace_in_file", {{"path", "lib/util.cuh"}, {"old", "line 9"}, {"new", "x"}}), tools);
  CHECK_THAT(missing.output, Catch::Matchers::Contains("was not found"));

  auto listing = box.call(call("list_folder", json::object()), tools).output;
  CHECK_THAT(listing, Catch::Matchers::Contains("lib/\n") && Catch::Matchers::Contains("src/\n") &&
                          Catch::Matchers::Contains("big.txt  (3012 bytes)"));
}

TEST_CASE("tools: the model's mistakes come back as errors it can read", "[agents][tools]") {
  Layout l;
  AgentToolbox box(Sandbox(l.ws), {});
  Tools tools = plain_tools(l.ws);
  ToolCall broken;
  broken.id = "c1";
  broken.name = "write_file";
  broken.arguments = nullptr;
  broken.raw_arguments = "{\"path\": \"a.cu\", \"content\": \"x";
  broken.parse_error = "the arguments are not valid JSON: unexpected end";
  auto o = box.call(broken, tools);
  CHECK(o.is_error);
  CHECK_THAT(o.output, Catch::Matchers::Contains("could not be read") && Catch::Matchers::Contains("unexpected end"));
  CHECK_THAT(box.call(call("write_file", {{"path", "a.cu"}}), tools).output, Catch::Matchers::Contains("needs \"content\""));
  CHECK_THAT(box.call(call("write_file", {{"path", 7}, {"content", "x"}}), tools).output, Catch::Matchers::Contains("must be a string"));
  CHECK_THAT(box.call(call("compile", json::object()), tools).output,
             Catch::Matchers::Contains("no tool named \"compile\"") && Catch::Matchers::Contains("run_shell"));
  CHECK(AgentToolbox::specs().size() == 6);
}

TEST_CASE("tools: shell commands run in the workspace, capped, timed, without secrets",
          "[agents][tools][secrets]") {
  Layout l;
  AgentToolOptions options;
  options.shell_output_bytes = 2000;
  options.extra_environment = {"SOCRATIC_EXTRA=visible"};
  AgentToolbox box(Sandbox(l.ws), options);
  Tools tools = plain_tools(l.ws);

  auto pwd = box.call(call("run_shell", {{"command", "pwd; echo $SOCRATIC_EXTRA; exit 3"}}), tools);
  CHECK(pwd.is_error);
  CHECK_THAT(pwd.output, Catch::Matchers::StartsWith("exited with code 3") &&
                             Catch::Matchers::Contains(fs::canonical(l.ws).string().c_str()) &&
                             Catch::Matchers::Contains("visible"));
  CHECK(pwd.details["exit_code"] == 3);

  auto noisy = box.call(call("run_shell", {{"command", "echo FIRST; seq 1 20000; echo LAST"}}), tools);
  CHECK_THAT(noisy.output, Catch::Matchers::Contains("FIRST") && Catch::Matchers::Contains("LAST") &&
                               Catch::Matchers::Contains("bytes omitted"));
  CHECK(noisy.output.size() < 2600);

  auto slow = box.call(call("run_shell", {{"command", "sleep 5"}, {"timeout_s", 1}}), tools);
  CHECK(slow.is_error);
  CHECK(slow.details["timed_out"] == true);
  CHECK_THAT(slow.output, Catch::Matchers::Contains("1 s timeout"));

  auto bytes = box.call(call("run_shell", {{"command", "printf 'ok \\377\\376 end'"}}), tools);
  CHECK_THAT(bytes.output, Catch::Matchers::Contains("ok \xEF\xBF\xBD\xEF\xBF\xBD end"));
  CHECK_NOTHROW(json(bytes.output).dump());

  // A key in a secret-named variable, and a key loaded from a file but also present under an
  // innocent name: neither reaches the shell.
  const std::string env_key = "sk-envkey-ABCDEFGHIJKLMNOPQRSTUV";
  const std::string file_key = "file-key-0123456789-zyxwvut";
  ::setenv("OPENAI_API_KEY", env_key.c_str(), 1);
  put(l.dir.path / "key.txt", file_key + "\n");
  ApiKey loaded = ApiKey::from_file(l.dir.path / "key.txt");
  CHECK(loaded.reveal() == file_key);
  CHECK(loaded.source() == "file " + (l.dir.path / "key.txt").string());
  ::setenv("INNOCENT_SETTING", file_key.c_str(), 1);
  auto env = box.call(call("run_shell", {{"command", "env"}}), tools);
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("INNOCENT_SETTING");
  CHECK_THAT(env.output, Catch::Matchers::Contains("SOCRATIC_EXTRA=visible"));
  CHECK(env.output.find(env_key) == std::string::npos);
  CHECK(env.output.find(file_key) == std::string::npos);
  CHECK(env.output.find("OPENAI_API_KEY") == std::string::npos);
}

TEST_CASE("tools: evaluate returns the summary and the attached question, or the refusal",
          "[agents][tools]") {
  Layout l;
  AgentToolbox box(Sandbox(l.ws), {});
  int evaluations = 0;
  Tools tools(l.ws, Candidate{l.ws / "src" / "kernel.cu", "", ""}, [&] {
    ++evaluations;
    EvaluateResult r;
    r.report.built = true;
    r.report.expected = {"s1"};
    ScenarioResult s;
    s.id = "s1";
    s.correct = true;
    s.speedup = 1.25;
    r.report.scenarios.push_back(s);
    Question q;
    q.id = "q-roofline";
    q.text = "How far is s1 from its roofline?";
    r.question = q;
    return r;
  }, [&](std::string_view) { return evaluations < 1; });
  auto first = box.call(call("evaluate", json::object()), tools);
  CHECK_FALSE(first.is_error);
  CHECK_THAT(first.output, Catch::Matchers::Contains("s1: ok speedup 1.250") &&
                               Catch::Matchers::Contains("Question (start): How far is s1 from its roofline?"));
  CHECK(first.details["geomean_speedup"] == Approx(1.25));
  auto second = box.call(call("evaluate", json::object()), tools);
  CHECK(second.is_error);
  CHECK_THAT(second.output, Catch::Matchers::Contains("evaluation refused"));
  CHECK(evaluations == 1);
}

TEST_CASE("API keys come from the environment or a file and say where from", "[agents][secrets]") {
  TempDir dir("keys");
  ::setenv("SOCRATIC_TEST_KEY", "  sk-from-env-0123456789abcdef \n", 1);
  ApiKey env = ApiKey::from_environment_or_file("SOCRATIC_TEST_KEY");
  CHECK(env.reveal() == "sk-from-env-0123456789abcdef");
  CHECK(env.source() == "environment variable SOCRATIC_TEST_KEY");
  ::unsetenv("SOCRATIC_TEST_KEY");
  put(dir.path / "k", "from-file-key-0123456789\n");
  ::setenv("SOCRATIC_TEST_KEY_FILE", (dir.path / "k").c_str(), 1);
  ApiKey file = ApiKey::from_environment_or_file("SOCRATIC_TEST_KEY");
  CHECK(file.reveal() == "from-file-key-0123456789");
  ::unsetenv("SOCRATIC_TEST_KEY_FILE");
  ApiKey none = ApiKey::from_environment_or_file("SOCRATIC_TEST_KEY");
  CHECK(none.empty());
  CHECK_THAT(none.source(), Catch::Matchers::Contains("SOCRATIC_TEST_KEY_FILE"));
  put(dir.path / "empty", "\n");
  CHECK_THROWS_WITH(ApiKey::from_file(dir.path / "empty"), Catch::Matchers::Contains("is empty"));
  CHECK_THROWS_WITH(ApiKey::from_file(dir.path / "missing"), Catch::Matchers::Contains("cannot be read"));
  // Registered: the redactor removes it even though no environment variable holds it now.
  CHECK(Redactor().redact("key=from-file-key-0123456789.") == "key=[redacted].");
}

TEST_CASE("price tables load from JSON and match exact names before prefixes", "[agents][pricing]") {
  json j = {{"schema_version", 1},
            {"models", {{"gpt-4.1", {{"input", 2.0}, {"output", 8.0}, {"cache_read", 0.5}, {"context_window", 1047576}}},
                        {"gpt-4*", {{"input", 30.0}, {"output", 60.0}}},
                        {"gpt-4.1-mini*", {{"input", 0.4}, {"output", 1.6}}}}}};
  PriceTable t = PriceTable::from_json(j, "prices.json");
  CHECK(t.find("gpt-4.1")->input == 2.0);
  CHECK(t.find("gpt-4.1-mini-2025")->input == 0.4);  // the longest prefix
  CHECK(t.find("gpt-4o")->input == 30.0);
  CHECK_FALSE(t.find("claude").has_value());
  CHECK(t.context_window("gpt-4.1") == 1047576);  // the agent's default window for that model
  CHECK_FALSE(t.context_window("gpt-4o").has_value());
  CHECK_THROWS_WITH(PriceTable::from_json({{"models", {{"m", {{"input", 1}, {"output", 1}, {"context_window", 10}}}}}}),
                    Catch::Matchers::Contains("context_window"));
  Usage u;
  u.input_tokens = 1'000'000;
  u.output_tokens = 500'000;
  u.cache_read_tokens = 2'000'000;
  CHECK(*t.cost({"gpt-4.1"}, u) == Approx(2.0 + 4.0 + 1.0));
  CHECK(*t.cost({"unknown", "gpt-4o"}, u) == Approx(30 + 30 + 60));  // cache read at input price
  CHECK_FALSE(t.cost({"unknown"}, u).has_value());
  CHECK_THROWS_WITH(PriceTable::from_json({{"models", {{"m", {{"input", -1}, {"output", 1}}}}}}, "p.json"),
                    Catch::Matchers::Contains("p.json") && Catch::Matchers::Contains("model \"m\"") &&
                        Catch::Matchers::Contains("input"));
  CHECK_THROWS_WITH(PriceTable::from_json({{"models", {{"m", {{"input", 1}, {"outptu", 1}}}}}}),
                    Catch::Matchers::Contains("unknown field \"outptu\""));
}

TEST_CASE("tools: the campaign's own files are refused wherever they lie, inside the workspace too",
          "[agents][tools][sandbox]") {
  Layout l;
  put(l.ws / ".socratic" / "trace.jsonl", "{\"type\":\"campaign_started\"}\n");
  put(l.outside / "campaign.json", "{}");
  AgentToolOptions options;
  options.hidden = {l.ws / ".socratic", l.outside / "campaign.json"};
  AgentToolbox box(l.ws, options);
  Tools tools = plain_tools(l.ws);
  for (const auto& [name, args] : std::vector<std::pair<std::string, json>>{
           {"write_file", {{"path", ".socratic/trace.jsonl"}, {"content", "lost"}}},
           {"read_file", {{"path", ".socratic/trace.jsonl"}}},
           {"replace_in_file", {{"path", ".socratic/trace.jsonl"}, {"old", "campaign"}, {"new", "x"}}},
           {"list_folder", {{"path", ".socratic"}}},
           {"read_file", {{"path", (l.outside / "campaign.json").string()}}}}) {
    const auto o = box.call(call(name, args), tools);
    INFO(name << " " << args.dump() << " -> " << o.output);
    CHECK(o.is_error);
    CHECK(o.details["sandbox_violation"] == true);
    CHECK_THAT(o.output, Catch::Matchers::Contains("campaign's own files"));
  }
  CHECK(socratic::test::read_text(l.ws / ".socratic" / "trace.jsonl") == "{\"type\":\"campaign_started\"}\n");
  // The shell does not see it either: an empty folder stands in its place.
  const auto ls = box.call(call("run_shell", {{"command", "ls -A .socratic | wc -l; cat .socratic/trace.jsonl"}}), tools);
  CHECK_THAT(ls.output, Catch::Matchers::StartsWith("exited with code 1") && Catch::Matchers::Contains("[stdout]\n0\n"));
}

TEST_CASE("shell sandbox: the refusals seen from inside the shell", "[agents][tools][sandbox][secrets]") {
  require_bubblewrap();
  Layout l;
  // Outside the folders the sandbox replaces with empty ones (/tmp, /var/tmp, /run, the home):
  // the judge, a key file, other files. The build folder, unless it is under one of those (a
  // fresh clone in /tmp); then a folder of the machine's own.
  struct Probe {
    static bool replaced_in_sandbox(const fs::path& p) {
      const char* home = std::getenv("HOME");
      for (const std::string& root : {std::string("/tmp"), std::string("/var/tmp"), std::string("/run"),
                                     std::string(home ? home : "/nonexistent")}) {
        const std::string s = p.string();
        if (s == root || s.rfind(root + "/", 0) == 0) return true;
      }
      return false;
    }
    static fs::path base() {
      for (const fs::path& c : {fs::weakly_canonical(SOCRATIC_BINARY_DIR), fs::path("/var/cache/socratic-tests"),
                                fs::path("/opt/socratic-tests")}) {
        std::error_code ec;
        if (replaced_in_sandbox(c) || (!fs::create_directories(c, ec) && !fs::is_directory(c))) continue;
        return c;
      }
      FAIL("no folder outside /tmp, /var/tmp, /run and the home to probe the sandbox from");
      return {};
    }
    fs::path path = base() / ("sandbox_probe_" + std::to_string(::getpid()));
    ~Probe() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } probe;
  l.outside = probe.path / "outside";
  put(l.outside / "secret.txt", "judge data");
  put(l.outside / "judge" / "evaluate.sh", "echo perfect\n");
  const fs::path key_file = probe.path / "keys" / "api.key";
  put(key_file, "sk-ant-filekey-0123456789abcdefghij\n");
  AgentToolOptions options;
  options.hidden = {l.outside / "judge", key_file};
  AgentToolbox box(l.ws, options);
  Tools tools = plain_tools(l.ws);
  auto shell = [&](const std::string& command) {
    const auto o = box.call(call("run_shell", {{"command", command}}), tools);
    UNSCOPED_INFO("$ " << command << "\n" << o.output);
    CHECK(o.details["sandbox"] == "bubblewrap");
    return o.output;
  };

  // The workspace is writable; nothing else is, the judge's script included.
  CHECK_THAT(shell("echo mine > own.txt && cat own.txt"), Catch::Matchers::Contains("mine"));
  CHECK(socratic::test::read_text(l.ws / "own.txt") == "mine\n");
  const std::string outside = shell("echo x > " + (l.outside / "new.txt").string() + "; echo x >> " +
                                    (l.outside / "secret.txt").string() + "; echo y > /etc/socratic_probe");
  CHECK_THAT(outside, Catch::Matchers::Contains("Read-only file system"));
  CHECK_FALSE(fs::exists(l.outside / "new.txt"));
  CHECK(socratic::test::read_text(l.outside / "secret.txt") == "judge data");
  CHECK_FALSE(fs::exists("/etc/socratic_probe"));
  // The judge's private folder is empty and read-only; the key file can be neither read nor written.
  const std::string judge = shell("cat " + (l.outside / "secret.txt").string() + "; echo; ls -A " +
                                  (l.outside / "judge").string() + " | wc -l; cat " +
                                  (l.outside / "judge" / "evaluate.sh").string() + "; echo x > " +
                                  (l.outside / "judge" / "evaluate.sh").string() + "; cat " + key_file.string() +
                                  "; echo x > " + key_file.string());
  CHECK_THAT(judge, Catch::Matchers::Contains("[stdout]\njudge data\n0\n"));  // the rest is read-only, visible
  CHECK_THAT(judge, Catch::Matchers::Contains("evaluate.sh: No such file") &&
                        Catch::Matchers::Contains("evaluate.sh: Read-only file system") &&
                        Catch::Matchers::Contains("api.key: Permission denied"));
  CHECK(judge.find("perfect") == std::string::npos);
  CHECK(judge.find("filekey") == std::string::npos);
  CHECK(socratic::test::read_text(l.outside / "judge" / "evaluate.sh") == "echo perfect\n");
  CHECK(socratic::test::read_text(key_file) == "sk-ant-filekey-0123456789abcdefghij\n");
  // No other process, so no other process's environment; the parent's holds no secret.
  const std::string key = "sk-ant-envkey-ZYXWVUTSRQPONMLKJIH0123";
  ::setenv("ANTHROPIC_API_KEY", key.c_str(), 1);
  ::setenv("HARMLESS_LOOKING", key.c_str(), 1);
  const pid_t outsider = ::fork();
  if (outsider == 0) {  // a process outside the sandbox holding the key in its environment
    ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string procs = shell("ls /proc | grep -c '^[0-9]'; tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/" +
                                  std::to_string(outsider) + "/environ; cat /proc/[0-9]*/environ | tr '\\0' '\\n'");
  ::kill(outsider, SIGKILL);
  ::waitpid(outsider, nullptr, 0);
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("HARMLESS_LOOKING");
  CHECK(procs.find(key) == std::string::npos);
  CHECK(procs.find("ANTHROPIC_API_KEY") == std::string::npos);
  const auto count_at = procs.find("[stdout]\n");
  REQUIRE(count_at != std::string::npos);
  CHECK(std::stoi(procs.substr(count_at + 9)) <= 6);  // bwrap, the shell, its pipeline
  // No network: a listener on the host's loopback is out of reach (and in reach when allowed).
  LoopbackListener listener;
  const std::string connect = "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(listener.port) + " && echo CONNECTED";
  CHECK(shell(connect).find("CONNECTED") == std::string::npos);
  AgentToolOptions networked = options;
  networked.sandbox.network = true;
  AgentToolbox open_box(l.ws, networked);
  CHECK_THAT(open_box.call(call("run_shell", {{"command", connect}}), tools).output, Catch::Matchers::Contains("CONNECTED"));
  // No capabilities, the kernel's tunables read-only, no descriptor of ours inherited, /tmp thrown away.
  const std::string inside = shell("grep CapEff /proc/self/status; test -w /proc/sys/kernel/hostname || echo SYSCTL_RO; "
                                   "ls /proc/self/fd | wc -l; echo t > /tmp/left; echo $HOME; ls -A $HOME | wc -l");
  CHECK_THAT(inside, Catch::Matchers::Contains("CapEff:\t0000000000000000") && Catch::Matchers::Contains("SYSCTL_RO"));
  CHECK_THAT(shell("cat /tmp/left 2>&1"), Catch::Matchers::Contains("No such file"));
}

TEST_CASE("shell sandbox: a killed parent takes the whole sandbox with it", "[agents][tools][sandbox]") {
  require_bubblewrap();
  Layout l;
  const std::string marker = "43.0" + std::to_string(::getpid());
  const pid_t parent = ::fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {  // the agent's process: a shell command that backgrounds work and waits
    AgentToolbox box(l.ws, AgentToolOptions{});
    Tools tools = plain_tools(l.ws);
    (void)box.call(call("run_shell", {{"command", "(sleep " + marker + "; echo late > late.txt) & sleep " + marker + "; wait"}}),
                   tools);
    ::_exit(0);
  }
  auto marked = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::ifstream cmd(e.path() / "cmdline", std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
      std::replace(text.begin(), text.end(), '\0', ' ');
      if (text.find("sleep " + marker) != std::string::npos) ++n;
    }
    return n;
  };
  for (int i = 0; i < 250 && marked() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(marked() >= 2);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  for (int i = 0; i < 100 && marked() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(marked() == 0);
  CHECK_FALSE(fs::exists(l.ws / "late.txt"));
}

// ---- the sandbox's cost (hidden: run with `agents_tests "[bench]"`) --------------------------

TEST_CASE("run_shell: what the OS sandbox adds to a command", "[.][bench]") {
  require_bubblewrap();
  Layout l;
  for (int i = 0; i < 8; ++i) put(l.outside / "judge" / ("file" + std::to_string(i)), "judge\n");
  Tools tools = plain_tools(l.ws);
  auto measure = [&](const AgentToolOptions& options, const std::string& command, int runs) {
    AgentToolbox box(l.ws, options);
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      const auto began = std::chrono::steady_clock::now();
      const auto o = box.call(call("run_shell", {{"command", command}}), tools);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
      REQUIRE_FALSE(o.is_error);
    }
    std::sort(ms.begin(), ms.end());
    return std::make_pair(ms[ms.size() / 2], ms[ms.size() * 9 / 10]);
  };
  AgentToolOptions none;
  none.sandbox.kind = ShellSandboxKind::none;
  AgentToolOptions boxed;
  AgentToolOptions hiding = boxed;  // a campaign's usual list: state, campaign file, key, bank, judge files
  hiding.hidden = {l.dir.path / "state", l.outside / "campaign.json", l.outside / "key"};
  put(l.outside / "campaign.json", "{}");
  put(l.outside / "key", "k");
  fs::create_directories(l.dir.path / "state");
  for (int i = 0; i < 8; ++i) hiding.hidden.push_back(l.outside / "judge" / ("file" + std::to_string(i)));
  const int runs = 200;
  std::printf("run_shell, %d calls each, wall time per call (ms): median, p90\n", runs);
  for (const std::string command : {"true", "g++ --version > /dev/null"}) {
    const auto plain = measure(none, command, runs);
    const auto sandboxed = measure(boxed, command, runs);
    const auto hidden = measure(hiding, command, runs);
    std::printf("  %-26s  no sandbox %6.2f %6.2f | bubblewrap %6.2f %6.2f | with 11 hidden paths %6.2f %6.2f | added (median) %5.2f\n",
                command.c_str(), plain.first, plain.second, sandboxed.first, sandboxed.second, hidden.first, hidden.second,
                hidden.first - plain.first);
  }
}

// ---- on a GPU machine (hidden: run with `agents_tests "[gpu]"`; fails without a GPU) ----------

TEST_CASE("shell sandbox: the GPUs are there to compile for, run and profile", "[.][gpu][sandbox]") {
  require_bubblewrap();
  INFO("this test needs a GPU machine: /dev/nvidia0, nvidia-smi and nvcc on PATH");
  REQUIRE(fs::exists("/dev/nvidia0"));
  Layout l;
  put(l.ws / "count.cu",
      "#include <cstdio>\n#include <cuda_runtime.h>\n__global__ void k(int* p) { *p = 42; }\n"
      "int main() { int n = 0; cudaGetDeviceCount(&n); int* d; cudaMalloc(&d, sizeof(int)); k<<<1, 1>>>(d);\n"
      "  int h = 0; cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost); std::printf(\"devices %d kernel %d\\n\", n, h); }\n");
  AgentToolOptions options;
  options.extra_environment = {"PATH=/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"};
  options.shell_timeout = std::chrono::seconds(600);
  AgentToolbox box(l.ws, options);
  Tools tools = plain_tools(l.ws);
  const auto smi = box.call(call("run_shell", {{"command", "nvidia-smi -L"}}), tools);
  INFO(smi.output);
  CHECK_FALSE(smi.is_error);
  CHECK_THAT(smi.output, Catch::Matchers::Contains("GPU 0"));
  const auto run = box.call(call("run_shell", {{"command", "nvcc -o count count.cu && ./count"}}), tools);
  INFO(run.output);
  CHECK_FALSE(run.is_error);
  CHECK_THAT(run.output, Catch::Matchers::Contains("kernel 42"));
  if (!find_program("ncu").empty()) {  // a profile too, where Nsight Compute is installed
    const auto prof = box.call(call("run_shell", {{"command", "ncu --metrics sm__cycles_elapsed.avg ./count"}}), tools);
    INFO(prof.output);
    CHECK_THAT(prof.output, Catch::Matchers::Contains("sm__cycles_elapsed.avg"));
  }
}
