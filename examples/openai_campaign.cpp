// A campaign driven by a model behind the OpenAI Chat Completions API (OpenAI itself, or vLLM,
// llama.cpp, Ollama's /v1, OpenRouter, ...). The key comes from the environment, never from the
// command line:
//
//   OPENAI_API_KEY=...  SOCRATIC_MODEL=gpt-4.1 ./example_openai_campaign
//   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 SOCRATIC_MODEL=Qwen/Qwen2.5-Coder-32B-Instruct ./example_openai_campaign
//
// (OPENAI_API_KEY_FILE may name a file holding the key instead.) So that it runs on any machine,
// the "kernel" here is a CPU matrix multiply and the evaluator builds and times it in a child
// process; with a GPU, the CUDA evaluator takes its place and nothing else changes.
//
// The agent runs through socratic::run_llm_campaign (socratic/campaign/llm_campaign.hpp): built with
// SOCRATIC_SEPARATE_COMPILATION (as this build does, examples/CMakeLists.txt), this file compiles
// only its own code; the agent, its backends, the HTTP client and the bodies of the SDK's
// functions are compiled once elsewhere (socratic/src.hpp). It includes the two headers it uses,
// not socratic/socratic.hpp (which adds the campaign loop, the question bank and the detectors).
// docs/benchmarks.md has the figures.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <socratic/campaign/llm_campaign.hpp>
#include <socratic/process/run_process.hpp>

using namespace socratic;
namespace fs = std::filesystem;

// The judge's side: a driver with the baseline and the reference, compiled with the candidate.
// It poisons the output, checks against a double-precision reference, and times baseline and
// candidate interleaved (median of 5).
constexpr const char* driver_source = R"(
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>
extern "C" void matmul(int n, const float* a, const float* b, float* c);
static void baseline(int n, const float* a, const float* b, float* c) {
  for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) {
    float s = 0; for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j]; c[i * n + j] = s; }
}
template <class F> static double time_ms(F f) {
  auto t0 = std::chrono::steady_clock::now(); f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
int main(int argc, char** argv) {
  for (int s = 1; s < argc; ++s) {
    const int n = std::atoi(argv[s]);
    std::mt19937 rng(n); std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> a(n * n), b(n * n), c(n * n, std::numeric_limits<float>::quiet_NaN()), base(n * n);
    for (auto& x : a) x = u(rng); for (auto& x : b) x = u(rng);
    matmul(n, a.data(), b.data(), c.data());
    double err = 0, scale = 1;
    for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) {
      double r = 0; for (int k = 0; k < n; ++k) r += double(a[i * n + k]) * b[k * n + j];
      const double e = std::fabs(c[i * n + j] - r); err = std::isnan(e) ? INFINITY : std::max(err, e);
      scale = std::max(scale, std::fabs(r)); }
    const double tol = 1e-5 * n * scale;
    std::vector<double> tc, tb;
    for (int rep = 0; rep < 5; ++rep) {
      tb.push_back(time_ms([&] { baseline(n, a.data(), b.data(), base.data()); }));
      tc.push_back(time_ms([&] { matmul(n, a.data(), b.data(), c.data()); })); }
    std::sort(tc.begin(), tc.end()); std::sort(tb.begin(), tb.end());
    std::printf("{\"id\":\"n%d\",\"correct\":%s,\"max_abs_error\":%g,\"tolerance\":%g,\"candidate_ms\":%g,\"baseline_ms\":%g}\n",
                n, err <= tol ? "true" : "false", std::isinf(err) ? 1e30 : err, tol, tc[2], tb[2]);
  }
}
)";

struct CpuMatmulEvaluator {
  fs::path build_dir;  // outside the workspace: the agent cannot edit its judge
  std::vector<int> sizes{256, 383};

  EvalReport evaluate(const Candidate& c) {
    EvalReport r;
    r.problem = "cpu_matmul";
    r.candidate = c;
    for (int n : sizes) r.expected.push_back("n" + std::to_string(n));
    fs::create_directories(build_dir);
    std::ofstream(build_dir / "driver.cpp") << driver_source;
    ProcessOptions build;
    build.timeout = std::chrono::seconds(120);
    const auto exe = build_dir / "run";
    const ProcessResult b = run_process({"c++", "-O2", "-std=c++17", (build_dir / "driver.cpp").string(),
                                         c.source.string(), "-o", exe.string()}, build);
    r.built = b.ok();
    r.build_log = b.stderr_text;
    if (!r.built) return r;
    std::vector<std::string> argv{exe.string()};
    for (int n : sizes) argv.push_back(std::to_string(n));
    ProcessOptions run;
    run.timeout = std::chrono::seconds(120);
    const ProcessResult p = run_process(argv, run);
    if (!p.ok()) r.error = "the candidate's run " + p.describe() + ": " + p.stderr_text.substr(0, 500);
    std::istringstream lines(p.stdout_text);
    for (std::string line; std::getline(lines, line);) {
      const json j = json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      ScenarioResult s = j.get<ScenarioResult>();
      if (!s.correct) s.reason = "max error above tolerance";
      s.speedup = s.baseline_ms / s.candidate_ms;
      r.scenarios.push_back(s);
    }
    return r;
  }
};
static_assert(Evaluator<CpuMatmulEvaluator>);

struct TwoQuestions {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    Question q;
    q.id = e.trigger == Trigger::start ? "start-bound" : "limit-evidence";
    q.text = e.trigger == Trigger::start
                 ? "Which loop order makes the innermost loop read memory contiguously?"
                 : "Which measurement shows the limit you named, and what would it take to move it?";
    return q;
  }
};

int main() {
  const char* base_url = std::getenv("OPENAI_BASE_URL");
  const char* model_name = std::getenv("SOCRATIC_MODEL");
  const char* key = std::getenv("OPENAI_API_KEY");
  const char* key_file = std::getenv("OPENAI_API_KEY_FILE");
  if (!base_url && !(key && *key) && !(key_file && *key_file)) {
    std::cerr << "openai_campaign: no API key. Set OPENAI_API_KEY (or OPENAI_API_KEY_FILE naming a "
                 "file that holds it), or OPENAI_BASE_URL for a local server such as "
                 "http://127.0.0.1:8000/v1. Keys are never taken from the command line.\n";
    return 2;
  }
  LlmModel model;  // the OpenAI Chat Completions API, or any server that speaks it
  model.backend = "openai";
  model.model = model_name ? model_name : "gpt-4.1";
  if (base_url) model.base_url = base_url;
  LlmCampaignOptions options;
  options.log = [](std::string_view line) { std::cerr << "[backend] " << line << "\n"; };

  const fs::path root = fs::temp_directory_path() / "socratic_openai_campaign";
  fs::remove_all(root);
  fs::create_directories(root / "workspace");
  std::ofstream(root / "workspace" / "matmul.cpp")
      << "extern \"C\" void matmul(int n, const float* a, const float* b, float* c) {\n"
         "  for (int i = 0; i < n; ++i)\n    for (int j = 0; j < n; ++j) {\n"
         "      float s = 0;\n      for (int k = 0; k < n; ++k) s += a[i * n + k] * b[k * n + j];\n"
         "      c[i * n + j] = s;\n    }\n}\n";

  CampaignConfig config;
  config.task = "matmul.cpp holds `extern \"C\" void matmul(int n, const float* a, const float* b, "
                "float* c)`, C = A*B for row-major n x n matrices. Make it at least 3x faster than "
                "this naive version on every scenario, correct to float precision, in portable C++ "
                "(one thread, no libraries).";
  config.workspace = root / "workspace";
  config.candidate.source = root / "workspace" / "matmul.cpp";
  config.state_dir = root / "state";
  config.scenario_ids = {"n256", "n383"};
  config.budget.turns = 6;
  config.budget.evaluations = 20;
  config.budget.cost_usd = 2.0;
  config.on_progress = [](const CampaignProgress& p) {
    if (p.event == CampaignStep::evaluation || p.event == CampaignStep::verdict)
      std::cout << "turn " << p.turn << ": " << to_string(p.event) << ", best " << p.best_score << ", $"
                << p.spent.cost_usd << "\n";
  };

  CpuMatmulEvaluator evaluator{root / "judge"};
  TwoQuestions questions;
  AnyGoal goal(goals::all_of(goals::all_correct{}, goals::every_scenario_speedup_at_least{3.0}));
  const CampaignResult result = run_llm_campaign(model, options, AnyEvaluator(evaluator), AnyQuestionSource(questions),
                                                 std::move(goal), std::move(config));
  std::cout << "ended: " << to_string(result.reason) << (result.detail.empty() ? "" : " (" + result.detail + ")") << " after "
            << result.turns << " turns, " << result.spent.tokens << " tokens; trace " << result.trace_path << "\n";
  return result.goal_met ? 0 : 1;
}
