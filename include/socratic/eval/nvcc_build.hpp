#pragma once
/// @file
/// @brief NvccBuilder: compiles a `.cu` into a shared object or an executable with nvcc (through
/// run_process: timeout, output caps), cached by content. A compile error or a timeout is a
/// result with the log, never an exception; only a missing or broken nvcc throws.
///
/// Cache (safe for concurrent processes sharing `cache_dir`):
/// - the *primary key* hashes the nvcc version text, the full command line (output paths aside)
///   and the bytes of every source and every declared input (`hashed_inputs`);
/// - a single-source build also records the headers the compiler actually read (`-MD`), outside
///   the system folders, in `manifests/<primary>.json`; the *final key* adds their current bytes,
///   so editing a header a candidate includes is a miss (the scheme of ccache's direct mode);
/// - both keys name content, not places: a path under one of the build's folders (its sources'
///   folders, its include folders, its declared inputs' folders) is keyed as that folder's
///   number and the path inside it, so a checkout moved or copied elsewhere hits the same cache;
/// - artifacts live in `objects/<final>/<output_name>` with the compiler's log beside them. They
///   are published by hard link, first writer wins, so a published artifact never changes.
/// Failed builds are not cached. Heavy (run_process).

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/gpu_target.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief What an NvccBuilder compiles with.
struct NvccOptions {
  std::filesystem::path nvcc = "nvcc";  ///< program name (found on PATH) or path
  std::filesystem::path cache_dir;      ///< required: where artifacts and manifests live
  GpuTarget target;                     ///< required: what to generate code for
  std::vector<std::string> base_flags = {"-O3", "-std=c++17"};
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};  ///< default per build
  std::size_t max_log_bytes = 256 * 1024;                      ///< per stream (stdout, stderr)
  /// Shared objects get `-fno-gnu-unique` (GCC host compiler): GCC emits the function-local
  /// statics of inline and template functions as STB_GNU_UNIQUE symbols, which the dynamic linker
  /// merges across libraries even under RTLD_LOCAL. Two builds of related sources (a candidate
  /// and its predecessor as the baseline) would then share one-time guards such as "attributes
  /// already set", breaking each other, and a candidate could reach into the baseline's state.
  /// Turn off only for a host compiler that lacks the flag (clang).
  bool isolate_shared_objects = true;
};

/// @brief What to produce.
enum class BuildKind { shared_object, executable };

/// @brief One build.
struct BuildRequest {
  BuildKind kind = BuildKind::shared_object;
  std::vector<std::filesystem::path> sources;
  std::vector<std::filesystem::path> include_dirs;
  /// Files whose bytes are part of the cache key besides the sources (the problem's headers, the
  /// whole harness folder): a multi-source build relies on this list alone.
  std::vector<std::filesystem::path> hashed_inputs;
  std::vector<std::string> flags;       ///< extra nvcc flags (before the sources)
  std::vector<std::string> link_flags;  ///< after the sources, e.g. `-ldl`
  std::string output_name;              ///< the artifact's file name, e.g. `candidate.so`
  std::optional<std::chrono::milliseconds> timeout;  ///< overrides NvccOptions::timeout
};

/// @brief How a build went.
struct BuildResult {
  bool ok = false;
  bool cached = false;     ///< served from the cache, nvcc not run
  bool timed_out = false;  ///< nvcc ran past its timeout and was killed
  std::filesystem::path output;  ///< the artifact (when ok)
  std::string log;         ///< compiler output (capped), or why it failed
  std::string command;     ///< the nvcc command line, for messages
  std::string key;         ///< the final cache key (when ok)
  double seconds = 0;
};

namespace detail {

/// Joins argv into one shell-readable line (for messages only).
inline std::string join_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (a.find_first_of(" \t\"'\\$") == std::string::npos && !a.empty()) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

/// The prerequisites of a make-style dependency file (`target: a.h b\ c.h \` ...).
inline std::vector<std::string> parse_make_dependencies(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  // Skip the target: up to the first colon followed by whitespace or the end.
  for (; i < text.size(); ++i)
    if (text[i] == ':' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' ||
                           text[i + 1] == '\n' || text[i + 1] == '\r'))
      break;
  if (i >= text.size()) return out;
  ++i;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) out.push_back(current);
    current.clear();
  };
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[i + 1];
      if (next == '\n' || next == '\r') {  // line continuation
        flush();
        ++i;
        continue;
      }
      if (next == ' ' || next == '#' || next == '\\') {
        current += next;
        ++i;
        continue;
      }
      current += c;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      current += '$';
      ++i;
    } else if (c == '\n') {
      break;  // the first rule ends at an unescaped newline; later (phony) rules add nothing
    } else if (c == ' ' || c == '\t' || c == '\r') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return out;
}

inline bool path_has_prefix(const std::filesystem::path& p, const std::filesystem::path& prefix) {
  if (prefix.empty()) return false;
  auto pi = p.begin();
  for (auto qi = prefix.begin(); qi != prefix.end(); ++qi, ++pi) {
    if (qi->empty()) continue;  // trailing separator
    if (pi == p.end() || *pi != *qi) return false;
  }
  return true;
}

}  // namespace detail

/// @brief Compiles CUDA sources with nvcc, cached by content. Not thread-safe (use one per
/// thread); safe across processes sharing a cache folder.
class NvccBuilder {
 public:
  explicit NvccBuilder(NvccOptions options) : options_(std::move(options)) {
    if (options_.cache_dir.empty()) throw error("NvccBuilder: no cache folder configured");
    if (!options_.target.valid()) throw error("NvccBuilder: no GPU target configured");
    options_.cache_dir = std::filesystem::absolute(options_.cache_dir).lexically_normal();
  }

  const NvccOptions& options() const noexcept { return options_; }

  /// @brief `nvcc --version` output (read once). Throws error when nvcc cannot run.
  const std::string& compiler_version() {
    if (!version_.empty()) return version_;
    ProcessOptions po;
    po.timeout = std::chrono::seconds(60);
    const ProcessResult r = run_process({options_.nvcc.string(), "--version"}, po);
    if (!r.ok())
      throw error("cannot run the CUDA compiler \"" + options_.nvcc.string() + " --version\": " +
                  r.describe() + (r.stderr_text.empty() ? "" : ": " + r.stderr_text.substr(0, 300)));
    version_ = r.stdout_text + r.stderr_text;
    const std::filesystem::path exe = find_program(options_.nvcc.string());
    std::error_code ec;
    const auto real = std::filesystem::canonical(exe, ec);
    // Headers of the toolkit are covered by the version text; only a real toolkit counts.
    if (!ec && std::filesystem::exists(real.parent_path().parent_path() / "include" / "cuda_runtime.h", ec))
      toolkit_root_ = real.parent_path().parent_path();
    return version_;
  }

  /// @brief The CUDA toolkit's root folder (the real nvcc's grandparent, when it holds
  /// include/cuda_runtime.h, else the root nvcc names in `--dryrun`, for an nvcc on PATH that is
  /// a wrapper script); empty when nvcc is not a real toolkit's. Runs `nvcc --version` once.
  const std::filesystem::path& toolkit_root() {
    (void)compiler_version();
    if (toolkit_root_.empty() && !asked_dryrun_) {
      asked_dryrun_ = true;  // nvcc on PATH may be a wrapper script: nvcc names its own root
      toolkit_root_ = toolkit_root_from_dryrun();
    }
    return toolkit_root_;
  }

  /// @brief Builds (or finds in the cache) what `request` describes. Throws error only when the
  /// compiler cannot run or the cache folder cannot be written: never for the sources' faults.
  BuildResult build(const BuildRequest& request) {
    namespace fs = std::filesystem;
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
    BuildResult result;
    if (request.output_name.empty() || request.output_name.find('/') != std::string::npos)
      throw error("NvccBuilder: output name \"" + request.output_name + "\" must be a plain file name");
    if (request.sources.empty()) throw error("NvccBuilder: nothing to compile");
    const std::string& version = compiler_version();

    // Sources and declared inputs the caller names but that do not exist: the sources' fault.
    for (const auto* list : {&request.sources, &request.hashed_inputs})
      for (const auto& f : *list)
        if (!fs::is_regular_file(f)) {
          result.log = "cannot read " + f.string() + ": no such file";
          result.seconds = std::chrono::duration<double>(clock::now() - began).count();
          return result;
        }

    const fs::path temp_dir = options_.cache_dir / "tmp" / detail::unique_name("build");
    const fs::path temp_output = temp_dir / request.output_name;
    const fs::path temp_deps = temp_dir / "deps.d";
    const bool track_dependencies = request.sources.size() == 1;  // nvcc -MF keeps only the last
    std::vector<std::string> argv = command_line(request, temp_output.string(),
                                                 track_dependencies ? temp_deps.string() : "");
    result.command = detail::join_command(argv);

    const std::vector<fs::path> roots = roots_of(request);
    const std::string primary = primary_key(request, version, roots);
    const fs::path manifest = options_.cache_dir / "manifests" / (primary + ".json");
    if (auto hit = lookup(primary, manifest, request.output_name, roots)) {
      result.ok = result.cached = true;
      result.output = *hit;
      result.key = hit->parent_path().filename().string();
      std::error_code ec;
      if (fs::exists(hit->parent_path() / "build.log", ec))
        result.log = read_file_bytes(hit->parent_path() / "build.log");
      result.seconds = std::chrono::duration<double>(clock::now() - began).count();
      return result;
    }

    fs::create_directories(temp_dir);
    struct remove_on_exit {
      fs::path dir;
      ~remove_on_exit() {
        std::error_code ignored;
        fs::remove_all(dir, ignored);
      }
    } cleanup{temp_dir};

    ProcessOptions po;
    po.working_dir = temp_dir;
    po.timeout = request.timeout.value_or(options_.timeout);
    po.max_output_bytes = options_.max_log_bytes;
    const ProcessResult r = run_process(argv, po);
    if (!r.started) throw error("cannot run the CUDA compiler: " + r.error);
    std::string log = r.stderr_text;
    if (!r.stdout_text.empty()) log = r.stdout_text + (log.empty() ? "" : "\n" + log);
    result.seconds = std::chrono::duration<double>(clock::now() - began).count();
    if (r.timed_out) {
      result.timed_out = true;
      result.log = "nvcc ran past its timeout of " +
                   std::to_string(std::chrono::duration<double>(po.timeout).count()) +
                   " s and was killed\n" + log;
      return result;
    }
    if (!r.ok() || !fs::is_regular_file(temp_output)) {
      result.log = log.empty() ? "nvcc " + r.describe() + " without output" : log;
      if (r.ok()) result.log += "\nnvcc produced no " + request.output_name;
      return result;
    }

    std::vector<std::string> dependencies;
    if (track_dependencies && fs::exists(temp_deps))
      for (const auto& d : tracked_dependencies(read_file_bytes(temp_deps), temp_dir))
        dependencies.push_back(relocated(d, roots));
    json manifest_doc{{"dependencies", dependencies}};
    write_file_atomically(manifest, manifest_doc.dump(1));
    const std::string final_key = final_key_of(primary, dependencies, roots);
    const fs::path object_dir = options_.cache_dir / "objects" / final_key;
    fs::create_directories(object_dir);
    const fs::path log_temp = temp_dir / "build.log";
    { std::ofstream(log_temp, std::ios::binary) << log; }
    detail::publish_no_replace(log_temp, object_dir / "build.log");
    detail::publish_no_replace(temp_output, object_dir / request.output_name);
    result.ok = true;
    result.output = object_dir / request.output_name;
    result.key = final_key;
    result.log = log;
    result.seconds = std::chrono::duration<double>(clock::now() - began).count();
    return result;
  }

 private:
  std::vector<std::string> command_line(const BuildRequest& request, const std::string& output,
                                        const std::string& deps_file) const {
    std::vector<std::string> argv = {options_.nvcc.string()};
    argv.insert(argv.end(), options_.base_flags.begin(), options_.base_flags.end());
    argv.push_back(options_.target.gencode());
    if (request.kind == BuildKind::shared_object) {
      argv.push_back("-shared");
      argv.push_back("-Xcompiler");
      argv.push_back("-fPIC");
      if (options_.isolate_shared_objects) {
        argv.push_back("-Xcompiler");
        argv.push_back("-fno-gnu-unique");
      }
    }
    for (const auto& dir : request.include_dirs) argv.push_back("-I" + dir.string());
    argv.insert(argv.end(), request.flags.begin(), request.flags.end());
    for (const auto& s : request.sources) argv.push_back(s.string());
    argv.push_back("-o");
    argv.push_back(output);
    if (!deps_file.empty()) {
      argv.push_back("-MD");
      argv.push_back("-MF");
      argv.push_back(deps_file);
    }
    argv.insert(argv.end(), request.link_flags.begin(), request.link_flags.end());
    return argv;
  }

  /// The folders the build's paths are keyed relative to, in an order the request fixes.
  static std::vector<std::filesystem::path> roots_of(const BuildRequest& request) {
    std::vector<std::filesystem::path> roots;
    auto add = [&](const std::filesystem::path& dir) {
      const std::filesystem::path d = std::filesystem::absolute(dir).lexically_normal();
      if (!d.empty() && d != d.root_path() && std::find(roots.begin(), roots.end(), d) == roots.end())
        roots.push_back(d);
    };
    for (const auto& s : request.sources) add(s.parent_path());
    for (const auto& d : request.include_dirs) add(d);
    for (const auto& f : request.hashed_inputs) add(f.parent_path());
    return roots;
  }

  /// `text` (an argument or a path) with the longest root it names replaced by `@N`: the place
  /// of the checkout leaves the key.
  static std::string relocated(std::string text, const std::vector<std::filesystem::path>& roots) {
    std::size_t best = roots.size(), best_at = 0, best_len = 0;
    for (std::size_t k = 0; k < roots.size(); ++k) {
      std::string root = roots[k].string();
      while (root.size() > 1 && root.back() == '/') root.pop_back();
      const std::size_t at = text.find(root);
      const bool whole = at != std::string::npos && (at + root.size() == text.size() || text[at + root.size()] == '/');
      if (whole && root.size() > best_len) best = k, best_at = at, best_len = root.size();
    }
    if (best < roots.size()) text.replace(best_at, best_len, "@" + std::to_string(best));
    return text;
  }

  /// A path keyed by relocated(), found again under this build's roots.
  static std::filesystem::path placed(const std::string& keyed, const std::vector<std::filesystem::path>& roots) {
    if (keyed.size() < 2 || keyed[0] != '@') return keyed;
    const std::size_t end = keyed.find('/');
    try {
      const std::size_t k = std::stoul(keyed.substr(1, end == std::string::npos ? std::string::npos : end - 1));
      if (k < roots.size()) return end == std::string::npos ? roots[k] : roots[k] / keyed.substr(end + 1);
    } catch (const std::exception&) {
    }
    return keyed;
  }

  std::string primary_key(const BuildRequest& request, const std::string& version,
                          const std::vector<std::filesystem::path>& roots) const {
    detail::sha256 h;
    auto field = [&](std::string_view s) {
      h.update(std::to_string(s.size())).update(":").update(s);
    };
    field("socratic-nvcc-cache-v2");
    field(version);
    // The command line with the temporary paths left out (they differ on every build) and the
    // build's folders named by number.
    for (const auto& a : command_line(request, "OUTPUT/" + request.output_name, "")) field(relocated(a, roots));
    for (const auto* list : {&request.sources, &request.hashed_inputs})
      for (const auto& f : *list) {
        field(relocated(std::filesystem::absolute(f).lexically_normal().string(), roots));
        field(detail::sha256_file(f));
      }
    return h.hex();
  }

  static std::string final_key_of(const std::string& primary, const std::vector<std::string>& deps,
                                  const std::vector<std::filesystem::path>& roots) {
    detail::sha256 h;
    h.update(primary);
    for (const auto& d : deps) {
      std::error_code ec;
      const std::filesystem::path file = placed(d, roots);
      const bool present = std::filesystem::is_regular_file(file, ec);
      const std::string digest = present ? detail::sha256_file(file) : std::string("missing");
      h.update("\n").update(d).update("\n").update(digest);
    }
    return h.hex();
  }

  std::optional<std::filesystem::path> lookup(const std::string& primary,
                                              const std::filesystem::path& manifest,
                                              const std::string& output_name,
                                              const std::vector<std::filesystem::path>& roots) const {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(manifest, ec)) return std::nullopt;
    std::vector<std::string> deps;
    try {
      deps = json::parse(read_file_bytes(manifest)).at("dependencies").get<std::vector<std::string>>();
    } catch (const std::exception&) {
      return std::nullopt;  // a damaged manifest is a miss; the build rewrites it
    }
    const auto artifact =
        options_.cache_dir / "objects" / final_key_of(primary, deps, roots) / output_name;
    if (!std::filesystem::is_regular_file(artifact, ec)) return std::nullopt;
    return artifact;
  }

  /// Headers the compiler read that are neither system headers nor the toolkit's.
  std::vector<std::string> tracked_dependencies(const std::string& deps_text,
                                                const std::filesystem::path& working_dir) const {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const auto& d : detail::parse_make_dependencies(deps_text)) {
      fs::path p = fs::path(d).is_absolute() ? fs::path(d) : working_dir / d;
      p = p.lexically_normal();
      if (detail::path_has_prefix(p, "/usr") || detail::path_has_prefix(p, toolkit_root_)) continue;
      std::error_code ec;
      const fs::path real = fs::canonical(p, ec);
      if (!ec && detail::path_has_prefix(real, toolkit_root_)) continue;
      if (std::find(out.begin(), out.end(), p.string()) == out.end()) out.push_back(p.string());
    }
    return out;
  }

  /// The toolkit's root as nvcc itself names it (`#$ TOP=...` in `--dryrun`), when it holds the
  /// runtime's header; empty otherwise.
  std::filesystem::path toolkit_root_from_dryrun() const {
    ProcessOptions po;
    po.timeout = std::chrono::seconds(60);
    const ProcessResult r =
        run_process({options_.nvcc.string(), "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"}, po);
    const std::string text = r.stderr_text + "\n" + r.stdout_text;
    const std::string key = "#$ TOP=";
    const auto at = text.find(key);
    if (at == std::string::npos) return {};
    const auto end = text.find('\n', at);
    std::error_code ec;
    const auto top = std::filesystem::canonical(text.substr(at + key.size(), end - at - key.size()), ec);
    if (ec || !std::filesystem::exists(top / "include" / "cuda_runtime.h", ec)) return {};
    return top;
  }

  NvccOptions options_;
  std::string version_;
  std::filesystem::path toolkit_root_;
  bool asked_dryrun_ = false;
};

}  // namespace socratic
