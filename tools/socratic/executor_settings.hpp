#pragma once
// Where the tool sends evaluations (docs/executor.md, docs/tool.md): the campaign file's
// `executor` section and `socratic eval --executor local|slurm` both become ExecutorSettings,
// from which make_executor builds a LocalGpuPool or a SlurmExecutor behind one type.
// Heavy (the executors start processes): include only in commands that evaluate.

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/exec/executor.hpp"
#include "socratic/exec/executor_evaluator.hpp"
#include "socratic/exec/gpu_inventory.hpp"
#include "socratic/exec/local_pool.hpp"
#include "socratic/exec/slurm_executor.hpp"

namespace socratic::tool {

/// The executors a campaign file or `eval --executor` can name.
enum class ExecutorKind { local, slurm };

constexpr std::string_view to_string(ExecutorKind k) noexcept { return k == ExecutorKind::slurm ? "slurm" : "local"; }

inline std::optional<ExecutorKind> parse_executor_kind(std::string_view name) noexcept {
  if (name == "local") return ExecutorKind::local;
  if (name == "slurm") return ExecutorKind::slurm;
  return std::nullopt;
}

/// The executor a campaign or an `eval` uses. `kind` none: evaluations run in-process.
struct ExecutorSettings {
  std::optional<ExecutorKind> kind;
  std::filesystem::path run_dir;       ///< local: the run folder; slurm: the shared folder
  // local
  std::vector<std::string> gpus;       ///< empty: every visible GPU
  int build_workers = 2;
  int correctness_runs_per_gpu = 1;
  std::filesystem::path lease_dir;     ///< empty: under the run folder
  // slurm
  exec::SlurmConfig slurm;             ///< everything but shared_dir and worker comes from here
  std::filesystem::path worker;        ///< the socratic binary as the nodes see it; empty: this one
  // both
  exec::CascadeOptions cascade;

  explicit operator bool() const { return kind.has_value(); }
};

namespace detail {

inline void reject_unknown_executor_field(const json& j, const std::string& where,
                                          std::initializer_list<const char*> known) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) {
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      throw input_error({}, where, "unknown field \"" + it.key() + "\" (known: " + list + ")");
    }
  }
}

inline std::filesystem::path resolve_under(const std::filesystem::path& base, const std::string& p) {
  const std::filesystem::path path(p);
  return (path.is_absolute() ? path : base / path).lexically_normal();
}

}  // namespace detail

/// The campaign file's `executor` section (paths relative to `base`). Errors name the field.
inline ExecutorSettings parse_executor_section(const json& e, const std::filesystem::path& base) {
  ExecutorSettings s;
  if (e.is_null()) return s;
  if (!e.is_object()) throw input_error({}, "executor", "expected an object");
  const std::string kind = required<std::string>(e, "kind", "executor");
  s.kind = parse_executor_kind(kind);
  if (!s.kind) throw input_error({}, "executor field \"kind\"", "\"" + kind + "\" is not local or slurm");
  if (s.kind == ExecutorKind::local)
    detail::reject_unknown_executor_field(e, "executor", {"kind", "run_dir", "gpus", "build_workers",
                                                          "correctness_runs_per_gpu", "lease_dir", "cascade"});
  else
    detail::reject_unknown_executor_field(e, "executor", {"kind", "shared_dir", "worker", "partition", "account", "qos",
                                                          "time_limit", "gpus", "cpus_per_task", "memory", "directives",
                                                          "setup", "environment", "poll_max_s", "cascade"});
  if (auto d = optional_value<std::string>(e, "run_dir", "executor")) s.run_dir = detail::resolve_under(base, *d);
  if (auto d = optional_value<std::string>(e, "shared_dir", "executor")) s.run_dir = detail::resolve_under(base, *d);
  if (s.kind == ExecutorKind::local) {
    if (e.contains("gpus") && !e["gpus"].is_null()) {
      const json& g = e["gpus"];
      std::string list;
      if (g.is_string()) list = g.get<std::string>();
      else if (g.is_array())
        for (const auto& x : g) list += (list.empty() ? "" : ",") + (x.is_string() ? x.get<std::string>() : x.dump());
      else throw input_error({}, "executor field \"gpus\"", "expected a list (\"0,2,3\" or [0, 2, 3])");
      s.gpus = exec::parse_gpu_list(list, "executor field \"gpus\"");
    }
    s.build_workers = optional_field<int>(e, "build_workers", 2, "executor");
    if (s.build_workers < 0) throw input_error({}, "executor field \"build_workers\"", "must not be negative");
    s.correctness_runs_per_gpu = optional_field<int>(e, "correctness_runs_per_gpu", 1, "executor");
    if (s.correctness_runs_per_gpu < 1)
      throw input_error({}, "executor field \"correctness_runs_per_gpu\"", "must be at least 1");
    if (auto d = optional_value<std::string>(e, "lease_dir", "executor")) s.lease_dir = detail::resolve_under(base, *d);
  } else {
    if (s.run_dir.empty())
      throw input_error({}, "executor", "kind slurm needs \"shared_dir\", a folder every node sees");
    if (auto w = optional_value<std::string>(e, "worker", "executor")) s.worker = *w;
    s.slurm.partition = optional_field<std::string>(e, "partition", "", "executor");
    s.slurm.account = optional_field<std::string>(e, "account", "", "executor");
    s.slurm.qos = optional_field<std::string>(e, "qos", "", "executor");
    s.slurm.time_limit = optional_field<std::string>(e, "time_limit", s.slurm.time_limit, "executor");
    s.slurm.gpus = optional_field<std::string>(e, "gpus", s.slurm.gpus, "executor");
    s.slurm.cpus_per_task = optional_field<int>(e, "cpus_per_task", 0, "executor");
    s.slurm.memory = optional_field<std::string>(e, "memory", "", "executor");
    s.slurm.directives = optional_field<std::vector<std::string>>(e, "directives", {}, "executor");
    s.slurm.setup = optional_field<std::vector<std::string>>(e, "setup", {}, "executor");
    s.slurm.environment = optional_field<std::vector<std::string>>(e, "environment", {}, "executor");
    const double poll_max = optional_field<double>(e, "poll_max_s", 30, "executor");
    if (!(poll_max >= 1)) throw input_error({}, "executor field \"poll_max_s\"", "must be at least 1");
    s.slurm.poll_max = std::chrono::milliseconds(static_cast<long long>(poll_max * 1000));
  }
  if (e.contains("cascade") && !e["cascade"].is_null()) {
    const json& c = e["cascade"];
    if (!c.is_object()) throw input_error({}, "executor field \"cascade\"", "expected an object");
    detail::reject_unknown_executor_field(c, "executor field \"cascade\"", {"scenarios", "count"});
    s.cascade.enabled = true;
    s.cascade.scenarios = optional_field<std::vector<std::string>>(c, "scenarios", {}, "executor cascade");
    s.cascade.count = optional_field<std::size_t>(c, "count", 2, "executor cascade");
    if (s.cascade.scenarios.empty() && s.cascade.count == 0)
      throw input_error({}, "executor field \"cascade\"", "\"count\" must be at least 1");
  }
  return s;
}

/// The section as a campaign file writes it (paths as given).
inline json executor_section_json(const ExecutorSettings& s) {
  if (!s) return nullptr;
  json e{{"kind", std::string(to_string(*s.kind))}};
  if (s.kind == ExecutorKind::local) {
    if (!s.run_dir.empty()) e["run_dir"] = s.run_dir.string();
    if (!s.gpus.empty()) e["gpus"] = s.gpus;
    e["build_workers"] = s.build_workers;
    e["correctness_runs_per_gpu"] = s.correctness_runs_per_gpu;
    if (!s.lease_dir.empty()) e["lease_dir"] = s.lease_dir.string();
  } else {
    e["shared_dir"] = s.run_dir.string();
    if (!s.worker.empty()) e["worker"] = s.worker.string();
    e["partition"] = s.slurm.partition;
    e["account"] = s.slurm.account;
    e["qos"] = s.slurm.qos;
    e["time_limit"] = s.slurm.time_limit;
    e["gpus"] = s.slurm.gpus;
    e["cpus_per_task"] = s.slurm.cpus_per_task;
    e["memory"] = s.slurm.memory;
    e["directives"] = s.slurm.directives;
    e["setup"] = s.slurm.setup;
    e["environment"] = s.slurm.environment;
  }
  if (s.cascade.enabled) {
    e["cascade"] = json::object();
    if (!s.cascade.scenarios.empty()) e["cascade"]["scenarios"] = s.cascade.scenarios;
    else e["cascade"]["count"] = s.cascade.count;
  }
  return e;
}

/// This program, for the workers to run (`socratic exec-job`).
inline std::filesystem::path this_program() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw error("cannot find this program's path (/proc/self/exe): " + ec.message());
  return p;
}

/// Any executor behind one type (the settings choose the kind at run time).
struct AnyExecutor {
  std::function<std::string(const exec::EvalJob&)> submit_fn;
  std::function<exec::JobStatus(const std::string&)> poll_fn;
  std::function<bool(const std::string&)> cancel_fn;
  std::function<std::optional<EvalReport>(const std::string&)> collect_fn;
  std::function<exec::JobStatus(const std::string&, std::chrono::milliseconds)> wait_fn;
  std::function<std::vector<std::string>(const std::vector<exec::EvalJob>&)> submit_batch_fn;
  std::string description;

  std::string submit(const exec::EvalJob& job) { return submit_fn(job); }
  exec::JobStatus poll(const std::string& id) { return poll_fn(id); }
  bool cancel(const std::string& id) { return cancel_fn(id); }
  std::optional<EvalReport> collect(const std::string& id) { return collect_fn(id); }
  exec::JobStatus wait(const std::string& id, std::chrono::milliseconds t) { return wait_fn(id, t); }
  /// Several jobs at once (a Slurm array); one by one elsewhere.
  std::vector<std::string> submit_batch(const std::vector<exec::EvalJob>& jobs) { return submit_batch_fn(jobs); }
};
static_assert(exec::Executor<AnyExecutor>);

namespace detail {
template <class X>
AnyExecutor erase(std::shared_ptr<X> x, std::string description) {
  AnyExecutor a;
  a.submit_fn = [x](const exec::EvalJob& j) { return x->submit(j); };
  a.poll_fn = [x](const std::string& id) { return x->poll(id); };
  a.cancel_fn = [x](const std::string& id) { return x->cancel(id); };
  a.collect_fn = [x](const std::string& id) { return x->collect(id); };
  a.wait_fn = [x](const std::string& id, std::chrono::milliseconds t) { return x->wait(id, t); };
  a.submit_batch_fn = [x](const std::vector<exec::EvalJob>& jobs) {
    if constexpr (requires { x->submit_batch(jobs); }) {
      return x->submit_batch(jobs);
    } else {
      std::vector<std::string> ids;
      for (const auto& j : jobs) ids.push_back(x->submit(j));
      return ids;
    }
  };
  a.description = std::move(description);
  return a;
}
}  // namespace detail

/// The executor `s` names; `default_run_dir` when it names no folder (local only).
inline AnyExecutor make_executor(const ExecutorSettings& s, const std::filesystem::path& default_run_dir) {
  const std::filesystem::path self = this_program();
  if (s.kind == ExecutorKind::local) {
    exec::LocalPoolConfig c;
    c.run_dir = s.run_dir.empty() ? default_run_dir : s.run_dir;
    c.lease_dir = s.lease_dir;
    c.gpus = s.gpus;
    c.worker = {self.string(), "exec-job"};
    c.build_workers = s.build_workers;
    c.correctness_runs_per_gpu = s.correctness_runs_per_gpu;
    auto pool = std::make_shared<exec::LocalGpuPool>(std::move(c));
    std::string gpus;
    for (const auto& g : pool->config().gpus) gpus += (gpus.empty() ? "" : ",") + g;
    return detail::erase(pool, "local GPU pool (GPUs " + gpus + ", " + std::to_string(s.build_workers) +
                                   " build workers, run folder " + pool->config().run_dir.string() + ")");
  }
  if (s.kind == ExecutorKind::slurm) {
    exec::SlurmConfig c = s.slurm;
    c.shared_dir = s.run_dir;
    if (c.shared_dir.empty()) throw error("the Slurm executor needs a shared folder (--run-dir, or shared_dir)");
    c.worker = {(s.worker.empty() ? self : s.worker).string(), "exec-job"};
    auto x = std::make_shared<exec::SlurmExecutor>(std::move(c));
    return detail::erase(x, "Slurm (shared folder " + x->config().shared_dir.string() + ")");
  }
  throw error("no executor configured");
}

}  // namespace socratic::tool
