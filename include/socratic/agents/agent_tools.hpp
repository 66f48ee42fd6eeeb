#pragma once
/// @file
/// @brief The LLM agent's six tools, kept few on purpose: read a file, write a file, replace a
/// string in a file, list a folder, run a shell command, evaluate. Their JSON schemas, and the
/// toolbox that runs a model's call inside the sandbox: the file tools through Sandbox's path
/// checks, the shell inside the operating system's sandbox (shell_sandbox.hpp). Uses
/// run_process (Boost.Process).

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/agents/detail/utf8.hpp"
#include "socratic/agents/llm_types.hpp"
#include "socratic/agents/sandbox.hpp"
#include "socratic/agents/shell_sandbox.hpp"
#include "socratic/core/redact.hpp"
#include "socratic/record/summary.hpp"
#include "socratic/core/tools.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief Limits of the tools.
struct AgentToolOptions {
  std::chrono::seconds shell_timeout{300};       ///< default for run_shell
  std::chrono::seconds shell_timeout_max{1800};  ///< the most a model may ask for
  std::size_t shell_output_bytes = 24'000;  ///< per stream; the middle is dropped, head and tail kept
  std::size_t read_max_bytes = 60'000;      ///< read_file returns at most this much
  std::size_t list_max_entries = 400;
  /// Files or folders inside the workspace that the tools must not change (e.g. a copy of the
  /// harness). The judge normally lives outside the workspace altogether.
  std::vector<std::filesystem::path> read_only;
  /// Files or folders the tools must neither read nor change, wherever they lie: the campaign's
  /// own files (campaign file, trace, state folder, key files) and the judge's private files.
  /// The file tools refuse them; in the shell's sandbox they are not there.
  std::vector<std::filesystem::path> hidden;
  /// How shell commands are confined (bubblewrap by default; ShellSandboxKind::none only by
  /// explicit choice).
  ShellSandboxOptions sandbox;
  std::string shell = "/bin/bash";
  /// `NAME=value` entries added to the shell's scrubbed environment (e.g. CUDA_VISIBLE_DEVICES).
  std::vector<std::string> extra_environment;
};

/// @brief What a tool call produced, for the model (`output`) and for the trace (`details`).
struct ToolOutcome {
  std::string output;
  bool is_error = false;
  json details = json::object();
};

namespace detail {

inline json path_schema(const char* what) {
  return {{"type", "string"}, {"description", what}};
}

inline json object_schema(json properties, std::vector<std::string> required_fields) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", required_fields},
          {"additionalProperties", false}};
}

inline std::string read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open it: " + std::string(std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Writes without following a symbolic link in the last component (the sandbox checked the
/// path; O_NOFOLLOW keeps a link swapped in since from redirecting the write).
inline void write_whole(const std::filesystem::path& p, std::string_view content) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(std::string("cannot open it for writing: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw std::runtime_error("write failed: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

inline std::size_t count_occurrences(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string_view::npos; pos = text.find(needle, pos + needle.size()))
    ++n;
  return n;
}

}  // namespace detail

/// @brief The environment shell commands get: the caller's, without variables whose names mark
/// them as secrets and without any whose value holds a registered secret or a token-shaped
/// string, plus `extra`.
inline std::vector<std::string> agent_shell_environment(const std::vector<std::string>& extra = {}) {
  Redactor redactor;
  std::vector<std::string> env;
  for (auto& entry : scrubbed_environment()) {
    const auto eq = entry.find('=');
    const std::string value = eq == std::string::npos ? std::string() : entry.substr(eq + 1);
    if (redactor.redact(value) == value) env.push_back(std::move(entry));
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

/// @brief Runs the six tools for one agent inside one sandbox.
class AgentToolbox {
 public:
  AgentToolbox(Sandbox sandbox, AgentToolOptions options)
      : sandbox_(std::move(sandbox)), options_(std::move(options)) {}

  /// @brief A toolbox for `workspace` with the options' read-only and hidden paths.
  AgentToolbox(const std::filesystem::path& workspace, AgentToolOptions options)
      : sandbox_(workspace, options.read_only, options.hidden), options_(std::move(options)) {}

  /// @brief What the shell's sandbox confines: the workspace, the read-only and hidden paths.
  SandboxPaths shell_paths() const { return {sandbox_.root(), options_.read_only, options_.hidden}; }

  /// @brief The six tools' names, descriptions and argument schemas.
  static std::vector<ToolSpec> specs(const AgentToolOptions& o = {}) {
    using detail::object_schema;
    using detail::path_schema;
    std::vector<ToolSpec> s;
    s.push_back({"read_file",
                 "Read a text file in the workspace. Paths are relative to the workspace. Long files "
                 "come in parts: give offset (first line, 1-based) and limit (number of lines).",
                 object_schema({{"path", path_schema("file to read")},
                                {"offset", {{"type", "integer"}, {"description", "first line, 1-based"}}},
                                {"limit", {{"type", "integer"}, {"description", "number of lines"}}}},
                               {"path"})});
    s.push_back({"write_file",
                 "Create or overwrite a file in the workspace with the given content (folders are "
                 "created as needed).",
                 object_schema({{"path", path_schema("file to write")},
                                {"content", {{"type", "string"}, {"description", "the whole new content"}}}},
                               {"path", "content"})});
    s.push_back({"replace_in_file",
                 "Replace an exact piece of text in a file. `old` must occur exactly once (copy it "
                 "with its whitespace) unless replace_all is true.",
                 object_schema({{"path", path_schema("file to edit")},
                                {"old", {{"type", "string"}, {"description", "the exact text to replace"}}},
                                {"new", {{"type", "string"}, {"description", "the replacement"}}},
                                {"replace_all", {{"type", "boolean"}, {"description", "replace every occurrence"}}}},
                               {"path", "old", "new"})});
    s.push_back({"list_folder",
                 "List a folder of the workspace (default: the workspace itself): names, sizes, "
                 "folders marked with a trailing /.",
                 object_schema({{"path", path_schema("folder to list; default \".\"")}}, {})});
    const bool boxed = o.sandbox.kind == ShellSandboxKind::bubblewrap;
    const std::string confinement =
        boxed ? std::string(" It runs in a sandbox: only the workspace (and /tmp, cleared after each "
                            "command) can be written, the judge's and the campaign's files are not "
                            "visible, no other process is") +
                    (o.sandbox.network ? "" : ", there is no network") + "; GPUs are available."
              : std::string(" The command is not confined to the workspace by the operating system: "
                            "keep to your own files.");
    s.push_back({"run_shell",
                 "Run a bash command in the workspace folder (e.g. compile, profile with ncu, run "
                 "a test). Secrets are removed from its environment. Default timeout " +
                     std::to_string(o.shell_timeout.count()) + " s, at most " +
                     std::to_string(o.shell_timeout_max.count()) + " s; long output keeps its head and tail." +
                     confinement + " The judge's files are verified before every evaluation.",
                 object_schema({{"command", {{"type", "string"}, {"description", "the bash command"}}},
                                {"timeout_s", {{"type", "integer"}, {"description", "seconds before it is killed"}}}},
                               {"command"})});
    s.push_back({"evaluate",
                 "Build the candidate kernel, check it on every scenario against the baseline and "
                 "the fp32 reference, and time it. Returns one line per scenario. Each call counts "
                 "against the evaluation budget.",
                 object_schema(json::object(), {})});
    return s;
  }

  /// @brief Runs one call. Never throws for the model's mistakes: they come back as errors the
  /// model can read. `evaluate` goes through `tools.evaluate()`, which charges it itself.
  ToolOutcome call(const ToolCall& c, Tools& tools) {
    ToolOutcome o = dispatch(c, tools);
    o.output = detail::valid_utf8(o.output);  // compiler and shell output may hold any bytes
    return o;
  }

  const Sandbox& sandbox() const noexcept { return sandbox_; }

 private:
  ToolOutcome dispatch(const ToolCall& c, Tools& tools) {
    if (!c.parse_error.empty())
      return error_outcome("your arguments for " + c.name + " could not be read (" + c.parse_error +
                           "). Call it again with a JSON object as arguments.");
    const json& args = c.arguments;
    try {
      if (c.name == "read_file") return read_file(args);
      if (c.name == "write_file") return write_file(args);
      if (c.name == "replace_in_file") return replace_in_file(args);
      if (c.name == "list_folder") return list_folder(args);
      if (c.name == "run_shell") return run_shell(args);
      if (c.name == "evaluate") return evaluate(tools);
    } catch (const sandbox_violation& e) {
      ToolOutcome o = error_outcome(std::string("refused: ") + e.what());
      o.details["sandbox_violation"] = true;
      return o;
    } catch (const std::exception& e) {
      return error_outcome(c.name + " failed: " + e.what());
    }
    std::string names;
    for (const auto& s : specs()) names += (names.empty() ? "" : ", ") + s.name;
    return error_outcome("there is no tool named \"" + c.name + "\"; the tools are: " + names);
  }

  static ToolOutcome error_outcome(std::string text) {
    ToolOutcome o;
    o.output = "error: " + std::move(text);
    o.is_error = true;
    return o;
  }

  static std::string string_arg(const json& args, const char* tool, const char* name,
                                std::optional<std::string> fallback = std::nullopt) {
    if (!args.is_object() || !args.contains(name) || args[name].is_null()) {
      if (fallback) return *fallback;
      throw std::runtime_error(std::string(tool) + " needs \"" + name + "\" (a string)");
    }
    if (!args[name].is_string())
      throw std::runtime_error(std::string("\"") + name + "\" must be a string, not " + args[name].type_name());
    return args[name].get<std::string>();
  }

  static long long int_arg(const json& args, const char* name, long long fallback) {
    if (!args.is_object() || !args.contains(name) || args[name].is_null()) return fallback;
    if (args[name].is_number()) return args[name].get<long long>();
    if (args[name].is_string()) {
      try {
        return std::stoll(args[name].get<std::string>());
      } catch (const std::exception&) {
      }
    }
    throw std::runtime_error(std::string("\"") + name + "\" must be an integer");
  }

  ToolOutcome read_file(const json& args) {
    const std::string requested = string_arg(args, "read_file", "path");
    const auto path = sandbox_.resolve(requested);
    if (!std::filesystem::exists(path))
      throw std::runtime_error("\"" + requested + "\" does not exist (list_folder shows what does)");
    if (std::filesystem::is_directory(path))
      throw std::runtime_error("\"" + requested + "\" is a folder; use list_folder");
    const std::string text = detail::read_whole(path);
    if (text.find('\0') != std::string::npos) {
      ToolOutcome o;
      o.output = "\"" + requested + "\" is a binary file of " + std::to_string(text.size()) + " bytes; not shown.";
      return o;
    }
    // Split into lines, keep [offset, offset + limit), then cap the bytes.
    std::vector<std::string_view> lines;
    std::string_view rest = text;
    while (!rest.empty()) {
      const auto nl = rest.find('\n');
      lines.push_back(rest.substr(0, nl == std::string_view::npos ? rest.size() : nl + 1));
      rest.remove_prefix(lines.back().size());
    }
    const long long total = static_cast<long long>(lines.size());
    const long long first = std::max<long long>(1, int_arg(args, "offset", 1));
    const long long limit = int_arg(args, "limit", total);
    std::string out;
    long long last = first - 1;
    for (long long i = first; i <= total && i < first + limit; ++i) {
      const auto& line = lines[static_cast<std::size_t>(i - 1)];
      if (out.size() + line.size() > options_.read_max_bytes && i > first) break;
      out.append(line.substr(0, options_.read_max_bytes));
      last = i;
    }
    ToolOutcome o;
    o.output = std::move(out);
    if (first > total && total > 0)
      o.output = "(the file has only " + std::to_string(total) + " lines)";
    else if (first > 1 || last < total)
      o.output += "\n[lines " + std::to_string(first) + "-" + std::to_string(last) + " of " +
                  std::to_string(total) + "; read_file with offset " + std::to_string(last + 1) +
                  " continues]";
    o.details = {{"path", sandbox_.relative(path)}, {"bytes", text.size()}};
    return o;
  }

  ToolOutcome write_file(const json& args) {
    const std::string requested = string_arg(args, "write_file", "path");
    const std::string content = string_arg(args, "write_file", "content");
    const auto path = sandbox_.resolve_for_write(requested);
    if (std::filesystem::is_directory(path))
      throw std::runtime_error("\"" + requested + "\" is a folder");
    std::filesystem::create_directories(path.parent_path());
    detail::write_whole(path, content);
    ToolOutcome o;
    o.output = "wrote " + std::to_string(content.size()) + " bytes to " + sandbox_.relative(path);
    o.details = {{"path", sandbox_.relative(path)}, {"bytes", content.size()}};
    return o;
  }

  ToolOutcome replace_in_file(const json& args) {
    const std::string requested = string_arg(args, "replace_in_file", "path");
    const std::string old_text = string_arg(args, "replace_in_file", "old");
    const std::string new_text = string_arg(args, "replace_in_file", "new");
    const bool all = args.is_object() && args.contains("replace_all") && args["replace_all"].is_boolean() &&
                     args["replace_all"].get<bool>();
    if (old_text.empty()) throw std::runtime_error("\"old\" is empty; give the exact text to replace");
    const auto path = sandbox_.resolve_for_write(requested);
    if (!std::filesystem::is_regular_file(path))
      throw std::runtime_error("\"" + requested + "\" is not an existing file");
    std::string text = detail::read_whole(path);
    const std::size_t found = detail::count_occurrences(text, old_text);
    if (found == 0)
      throw std::runtime_error("\"old\" was not found in " + requested +
                               "; read the file and copy the exact text (whitespace matters)");
    if (found > 1 && !all)
      throw std::runtime_error("\"old\" occurs " + std::to_string(found) + " times in " + requested +
                               "; include more surrounding text to make it unique, or set replace_all");
    std::string out;
    out.reserve(text.size() + found * new_text.size());
    std::size_t at = 0;
    for (auto pos = text.find(old_text); pos != std::string::npos; pos = text.find(old_text, at)) {
      out.append(text, at, pos - at).append(new_text);
      at = pos + old_text.size();
      if (!all) break;
    }
    out.append(text, at, std::string::npos);
    detail::write_whole(path, out);
    ToolOutcome o;
    o.output = "replaced " + std::to_string(all ? found : 1) + " occurrence" +
               (all && found > 1 ? "s" : "") + " in " + sandbox_.relative(path);
    o.details = {{"path", sandbox_.relative(path)}, {"replacements", all ? found : 1}};
    return o;
  }

  ToolOutcome list_folder(const json& args) {
    const std::string requested = string_arg(args, "list_folder", "path", std::string("."));
    const auto path = sandbox_.resolve(requested);
    if (!std::filesystem::is_directory(path))
      throw std::runtime_error("\"" + requested + "\" is not a folder");
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      std::error_code ec;
      std::string name = e.path().filename().string();
      if (e.is_symlink(ec))
        name += " -> " + std::filesystem::read_symlink(e.path(), ec).string();
      else if (e.is_directory(ec))
        name += "/";
      else
        name += "  (" + std::to_string(e.file_size(ec)) + " bytes)";
      entries.push_back(std::move(name));
    }
    std::sort(entries.begin(), entries.end());
    ToolOutcome o;
    const std::size_t shown = std::min(entries.size(), options_.list_max_entries);
    for (std::size_t i = 0; i < shown; ++i) o.output += entries[i] + "\n";
    if (entries.empty()) o.output = "(empty folder)\n";
    if (shown < entries.size())
      o.output += "[... " + std::to_string(entries.size() - shown) + " more entries not shown]\n";
    o.details = {{"path", sandbox_.relative(path)}, {"entries", entries.size()}};
    return o;
  }

  ToolOutcome run_shell(const json& args) {
    const std::string command = string_arg(args, "run_shell", "command");
    const long long asked = int_arg(args, "timeout_s", options_.shell_timeout.count());
    const long long seconds = std::clamp<long long>(asked, 1, options_.shell_timeout_max.count());
    ProcessOptions po;
    po.working_dir = sandbox_.root();
    po.environment = agent_shell_environment(options_.extra_environment);
    po.timeout = std::chrono::seconds(seconds);
    po.max_output_bytes = options_.shell_output_bytes;
    const bool boxed = options_.sandbox.kind == ShellSandboxKind::bubblewrap;
    std::vector<std::string> argv{options_.shell, "-c", command};
    if (boxed) argv = bubblewrap_argv(options_.sandbox, shell_paths(), argv);
    const ProcessResult r = run_process(argv, po);
    ToolOutcome o;
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", r.seconds);
    o.output = r.describe() + " (" + took + ")\n";
    if (!r.stdout_text.empty()) o.output += "[stdout]\n" + r.stdout_text + (r.stdout_text.back() == '\n' ? "" : "\n");
    if (!r.stderr_text.empty()) o.output += "[stderr]\n" + r.stderr_text + (r.stderr_text.back() == '\n' ? "" : "\n");
    if (r.timed_out) o.output += "(killed at the " + std::to_string(seconds) + " s timeout; pass timeout_s for longer commands)\n";
    o.is_error = !r.ok();
    o.details = {{"exit_code", r.exit_code}, {"signal", r.signal}, {"timed_out", r.timed_out},
                 {"seconds", r.seconds}, {"stdout_truncated", r.stdout_truncated},
                 {"stderr_truncated", r.stderr_truncated}, {"sandbox", to_string(options_.sandbox.kind)}};
    return o;
  }

  ToolOutcome evaluate(Tools& tools) {
    EvaluateResult r = tools.evaluate();
    ToolOutcome o;
    if (r.refused) {
      o.output = "evaluation refused: " + r.refusal;
      o.is_error = true;
      o.details = {{"refused", true}};
      return o;
    }
    o.output = r.summary.empty() ? compact_summary(r.report) : r.summary;
    if (r.question) o.output += "\n" + render_question(*r.question);
    const double g = r.report.geomean_speedup();
    o.details = {{"all_correct", r.report.all_correct()},
                 {"geomean_speedup", std::isfinite(g) ? json(g) : json(nullptr)},
                 {"question", r.question ? json(r.question->id) : json(nullptr)}};
    return o;
  }

  Sandbox sandbox_;
  AgentToolOptions options_;
};

}  // namespace socratic
