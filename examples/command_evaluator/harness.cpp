// The judge of the command-evaluator template: loads the baseline and the candidate as shared
// objects, checks the candidate on every scenario against an fp64 reference with fresh inputs
// and outputs poisoned before each call, times both interleaved (median of samples, their spread
// as the noise), and prints one EvalReport JSON (docs/report-schema.md) on stdout. It runs in its
// own process, so the candidate never holds the reference or the clock's results.
//
// To bring your own kernel, EDIT the four marked places: the entry point's signature (kernel_fn,
// "row_norms"), the scenario's parameters (Scenario, read_scenarios), the fp64 reference, and
// the tolerance. Everything else (poisoning, interleaving, the report) stays.
// Usage: harness BASELINE.so CANDIDATE.so SCENARIOS.json [--identical-to-baseline]
#include <dlfcn.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

// EDIT 1: the entry point every candidate exports (extern "C").
using kernel_fn = void (*)(const float* x, float* y, int rows, int cols);
constexpr const char* entry_point = "row_norms";
kernel_fn baseline_kernel = nullptr;
kernel_fn candidate_kernel = nullptr;

// Empty when `path` loads and exports the entry point, else why not.
std::string load(const char* path, kernel_fn& fn) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return std::string("cannot load ") + path + ": " + dlerror();
  fn = reinterpret_cast<kernel_fn>(dlsym(lib, entry_point));
  if (!fn) return std::string(path) + " does not export " + entry_point;
  return {};
}

// EDIT 2: a scenario's parameters, as scenarios.json names them.
struct Scenario {
  std::string id;
  int rows = 0, cols = 0;
};

// The scenario file is the SDK's JSON scenario set (this reads id, rows and cols).
std::vector<Scenario> read_scenarios(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  std::vector<Scenario> out;
  const std::regex object(R"re(\{[^{}]*"id"[^{}]*\})re");
  const std::regex id(R"re("id"\s*:\s*"([^"]+)")re"), rows(R"re("rows"\s*:\s*(\d+))re"),
      cols(R"re("cols"\s*:\s*(\d+))re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), object); it != std::sregex_iterator(); ++it) {
    const std::string o = it->str();
    std::smatch m;
    Scenario sc;
    if (std::regex_search(o, m, id)) sc.id = m[1];
    if (std::regex_search(o, m, rows)) sc.rows = std::stoi(m[1]);
    if (std::regex_search(o, m, cols)) sc.cols = std::stoi(m[1]);
    if (!sc.id.empty() && sc.rows > 0 && sc.cols > 0) out.push_back(sc);
  }
  return out;
}

// EDIT 3: the fp64 reference the candidate is checked against.
void reference(const std::vector<float>& x, std::vector<double>& y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += static_cast<double>(x[static_cast<size_t>(r) * cols + c]) * x[static_cast<size_t>(r) * cols + c];
    y[static_cast<size_t>(r)] = std::sqrt(sum);
  }
}

double max_error(const std::vector<float>& got, const std::vector<double>& want) {
  double e = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    e = std::max(e, std::fabs(got[i] - want[i]));
  }
  return e;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
// The report's noise (docs/report-schema.md): 1.4826 x the median absolute deviation over the
// median, the relative standard deviation for normal samples, blind to a few preempted ones.
double spread(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * median(dev) / m;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: harness BASELINE.so CANDIDATE.so SCENARIOS.json [--identical-to-baseline]\n");
    return 2;
  }
  const bool identical = argc > 4 && std::string(argv[4]) == "--identical-to-baseline";
  if (const std::string why = load(argv[1], baseline_kernel); !why.empty()) {
    std::fprintf(stderr, "harness: the baseline: %s\n", why.c_str());  // the judge's own fault: exit 2
    return 2;
  }
  const std::vector<Scenario> scenarios = read_scenarios(argv[3]);
  if (scenarios.empty()) {
    std::fprintf(stderr, "harness: no scenario with id, rows and cols in %s\n", argv[3]);
    return 2;
  }
  if (const std::string why = load(argv[2], candidate_kernel); !why.empty()) {
    // The candidate's fault (no entry point, an undefined symbol): a report of a failed build.
    std::string ids;
    for (size_t i = 0; i < scenarios.size(); ++i) ids += (i ? ",\"" : "\"") + scenarios[i].id + "\"";
    std::string log;
    for (char ch : why) log += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    std::printf("{\"schema_version\":1,\"problem\":\"row_norms\",\"built\":false,\"build_log\":\"%s\",\"expected\":[%s]}\n",
                log.c_str(), ids.c_str());
    return 0;
  }
  std::mt19937 rng(1234);
  std::string out = "{\"schema_version\":1,\"problem\":\"row_norms\",\"gpu\":\"cpu\",\"arch\":\"cpu\",\"built\":true,\"expected\":[";
  for (size_t i = 0; i < scenarios.size(); ++i) out += (i ? ",\"" : "\"") + scenarios[i].id + "\"";
  out += "],\"scenarios\":[";
  for (size_t si = 0; si < scenarios.size(); ++si) {
    const Scenario& sc = scenarios[si];
    const size_t n = static_cast<size_t>(sc.rows) * sc.cols;
    std::vector<float> x(n), y(sc.rows), yb(sc.rows);  // EDIT with 1: the output's size
    std::vector<double> ref(sc.rows);
    std::normal_distribution<float> dist(0.f, 4.f);
    // Two checks with fresh inputs, outputs poisoned with NaN before each call.
    double err = 0, base_err = 0;
    for (int check = 0; check < 2; ++check) {
      for (auto& v : x) v = dist(rng);
      reference(x, ref, sc.rows, sc.cols);
      std::fill(y.begin(), y.end(), std::numeric_limits<float>::quiet_NaN());
      std::fill(yb.begin(), yb.end(), std::numeric_limits<float>::quiet_NaN());
      candidate_kernel(x.data(), y.data(), sc.rows, sc.cols);
      baseline_kernel(x.data(), yb.data(), sc.rows, sc.cols);
      err = std::max(err, max_error(y, ref));
      base_err = std::max(base_err, max_error(yb, ref));
    }
    // EDIT 4: the tolerance. Here: 4x the baseline's own error against the reference, and never
    // below float rounding of the largest output (a sum of up to 64k squares of N(0, 4^2) values).
    double largest = 0;
    for (double v : ref) largest = std::max(largest, v);
    const double tolerance = std::max(4 * base_err, 1e-6 * largest);
    const bool correct = std::isfinite(err) && err <= tolerance;
    // Interleaved timing, median of samples. The clock is the thread's CPU time: the machines this
    // runs on are shared, and wall time would count the time slices other processes took. The
    // order alternates (baseline first, then candidate first): whichever runs second finds the
    // input warm in the cache, and a fixed order would hand that edge to one side.
    std::vector<double> tc, tb;
    for (int warm = 0; warm < 3; ++warm) {
      baseline_kernel(x.data(), yb.data(), sc.rows, sc.cols);
      candidate_kernel(x.data(), y.data(), sc.rows, sc.cols);
    }
    auto time_one = [&](kernel_fn fn, float* out) {
      const double t0 = thread_cpu_ms();
      fn(x.data(), out, sc.rows, sc.cols);
      return thread_cpu_ms() - t0;
    };
    for (int rep = 0; rep < 21; ++rep) {
      if (rep % 2 == 0) {
        tb.push_back(time_one(baseline_kernel, yb.data()));
        tc.push_back(time_one(candidate_kernel, y.data()));
      } else {
        tc.push_back(time_one(candidate_kernel, y.data()));
        tb.push_back(time_one(baseline_kernel, yb.data()));
      }
    }
    const double cms = median(tc), bms = median(tb);
    char reason[160] = "";
    if (!correct)
      std::snprintf(reason, sizeof reason, "max abs error %.3g > tolerance %.3g", err, tolerance);
    out += std::string(si ? "," : "") + "{\"id\":\"" + sc.id + "\",\"correct\":" + (correct ? "true" : "false") +
           ",\"reason\":\"" + reason + "\",\"max_abs_error\":" + num(err) + ",\"baseline_max_abs_error\":" +
           num(base_err) + ",\"tolerance\":" + num(tolerance) + ",\"candidate_ms\":" + num(cms) +
           ",\"baseline_ms\":" + num(bms) + ",\"candidate_noise\":" + num(spread(tc)) +
           ",\"baseline_noise\":" + num(spread(tb)) + ",\"samples\":21,\"speedup\":" + num(bms / cms) + "}";
  }
  out += std::string("],\"banned\":[],\"identical_to_baseline\":") + (identical ? "true" : "false") + "}";
  std::puts(out.c_str());
  return 0;
}
