// NvccBuilder with the real nvcc (a compile error, a timeout, a cached build: three nvcc runs,
// a few seconds) and with the fake one (cache keys, header tracking, concurrency), and GPU
// target resolution. The real-nvcc cases are tagged [nvcc]: CTest runs them as eval_nvcc_tests,
// reported skipped (never passed) where nvcc is not on PATH; run by hand without nvcc they fail.
#include <dlfcn.h>

#include <future>
#include <thread>

#include "catch.hpp"

#include "eval_fixtures.hpp"
#include "socratic/eval/gpu_target.hpp"
#include "socratic/eval/nvcc_build.hpp"

using namespace socratic;
using namespace std::chrono_literals;
using eval_test::TempDir;
using eval_test::write_file;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

bool have_real_nvcc() { return !find_program("nvcc").empty(); }

NvccOptions options_for(const std::filesystem::path& cache, const std::filesystem::path& nvcc = "nvcc") {
  NvccOptions o;
  o.nvcc = nvcc;
  o.cache_dir = cache;
  o.target = parse_gpu_target("sm_90a");
  return o;
}

BuildRequest shared_object(const std::filesystem::path& source) {
  BuildRequest r;
  r.kind = BuildKind::shared_object;
  r.sources = {source};
  r.output_name = "candidate.so";
  return r;
}

}  // namespace

TEST_CASE("GPU targets from compute capabilities and configuration", "[eval][arch]") {
  CHECK(gpu_target_from_compute_capability("9.0").gencode() == "-gencode=arch=compute_90a,code=sm_90a");
  CHECK(gpu_target_from_compute_capability("10.0").sm() == "sm_100a");
  CHECK(gpu_target_from_compute_capability("8.6").sm() == "sm_86");
  CHECK(gpu_target_from_compute_capability(" 8.0\n").gencode() == "-gencode=arch=compute_80,code=sm_80");
  CHECK(gpu_target_from_compute_capability("9.0").base_sm() == "sm_90");
  CHECK_THROWS_WITH(gpu_target_from_compute_capability("N/A"), Contains("cannot read compute capability \"N/A\""));
  CHECK(parse_gpu_target("sm_90a") == gpu_target_from_compute_capability("9.0"));
  CHECK(parse_gpu_target("compute_100a").sm() == "sm_100a");
  CHECK(parse_gpu_target("86").sm() == "sm_86");
  CHECK(parse_gpu_target("sm_100f").compute() == "compute_100f");
  CHECK(parse_gpu_target("12.0").sm() == "sm_120a");
  CHECK_THROWS_WITH(parse_gpu_target("hopper"), Contains("cannot read GPU architecture \"hopper\""));
}

TEST_CASE("GPU target detection through nvidia-smi", "[eval][arch]") {
  TempDir tmp("arch");
  const auto tools = eval_test::fake_tools(tmp / "bin");
  CHECK(detect_gpu_target(tools / "nvidia-smi").sm() == "sm_90a");
  write_file(tools / "compute_cap", "10.0\n10.0\n");  // two GPUs: the first one decides
  CHECK(detect_gpu_target(tools / "nvidia-smi").sm() == "sm_100a");
  write_file(tools / "compute_cap", "[N/A]\n");
  CHECK_THROWS_WITH(detect_gpu_target(tools / "nvidia-smi"), Contains("cannot determine the GPU architecture") &&
                                                                 Contains("--arch"));
  CHECK_THROWS_WITH(detect_gpu_target(tmp / "no-such-nvidia-smi"),
                    Contains("cannot determine the GPU architecture") && Contains("could not start"));
}

TEST_CASE("make-style dependency files", "[eval][build]") {
  const auto deps = detail::parse_make_dependencies(
      "out.so : /src/k.cu \\\n    /usr/include/stdio.h \\\n    /my\\ dir/h.cuh \\\n  rel.h\n\nrel.h:\n");
  CHECK(deps == std::vector<std::string>{"/src/k.cu", "/usr/include/stdio.h", "/my dir/h.cuh", "rel.h"});
}

TEST_CASE("real nvcc: a compile error is a result with the log", "[eval][build][nvcc]") {
  REQUIRE(have_real_nvcc());  // run through ctest's eval_nvcc_tests, which reports a skip without nvcc
  TempDir tmp("nvcc_error");
  const auto src = write_file(tmp / "broken.cu", "__global__ void k(float* x) { x[0] = undefined_name; }\n");
  NvccBuilder builder(options_for(tmp / "cache"));
  const BuildResult r = builder.build(shared_object(src));
  CHECK_FALSE(r.ok);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.cached);
  CHECK_THAT(r.log, Contains("broken.cu") && Contains("error") && Contains("undefined_name"));
  CHECK_THAT(r.command, Contains("-gencode=arch=compute_90a,code=sm_90a") && Contains("-shared"));
  // Nothing is cached for a failure: a second attempt compiles again.
  CHECK_FALSE(builder.build(shared_object(src)).cached);
}

TEST_CASE("real nvcc: the toolkit's root is found through a wrapper script on PATH", "[eval][build][nvcc]") {
  REQUIRE(have_real_nvcc());  // run through ctest's eval_nvcc_tests, which reports a skip without nvcc
  TempDir tmp("nvcc_wrapper");
  // As Debian's and some images' /usr/local/bin/nvcc: a script that execs the toolkit's nvcc.
  const std::filesystem::path real = std::filesystem::canonical(find_program("nvcc"));
  const auto wrapper = write_file(tmp / "bin" / "nvcc", "#!/bin/sh\nexec " + real.string() + " \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  NvccOptions o = options_for(tmp / "cache");
  o.nvcc = wrapper;
  NvccBuilder builder(o);
  // (nvcc on this PATH may itself be such a script: the root is where the real one lies.)
  REQUIRE_FALSE(builder.toolkit_root().empty());
  CHECK(std::filesystem::exists(builder.toolkit_root() / "include" / "cuda_runtime.h"));
  CHECK(std::filesystem::exists(builder.toolkit_root() / "bin" / "nvcc"));
  CHECK(builder.toolkit_root() != tmp.path);
}

TEST_CASE("real nvcc: a compile past its timeout is killed and reported", "[eval][build][nvcc]") {
  REQUIRE(have_real_nvcc());  // run through ctest's eval_nvcc_tests, which reports a skip without nvcc
  TempDir tmp("nvcc_timeout");
  const auto src = write_file(tmp / "k.cu", "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n");
  NvccBuilder builder(options_for(tmp / "cache"));
  BuildRequest req = shared_object(src);
  req.timeout = 50ms;
  const BuildResult r = builder.build(req);
  CHECK_FALSE(r.ok);
  CHECK(r.timed_out);
  CHECK_THAT(r.log, Contains("timeout") && Contains("killed"));
  CHECK(r.seconds < 10);
}

TEST_CASE("real nvcc: a second build is a cache hit; changed flags are a miss", "[eval][build][nvcc]") {
  REQUIRE(have_real_nvcc());  // run through ctest's eval_nvcc_tests, which reports a skip without nvcc
  TempDir tmp("nvcc_cache");
  write_file(tmp / "src/value.cuh", "#define VALUE 1.0f\n");
  const auto src = write_file(tmp / "src/k.cu", "#include \"value.cuh\"\n"
                                                "__global__ void k(float* x) { x[threadIdx.x] = VALUE; }\n"
                                                "extern \"C\" void launch(float* x) { k<<<1, 32>>>(x); }\n");
  NvccBuilder builder(options_for(tmp / "cache"));
  const BuildResult first = builder.build(shared_object(src));
  REQUIRE(first.ok);
  CHECK_FALSE(first.cached);
  CHECK(std::filesystem::file_size(first.output) > 1000);
  CHECK(eval_test::read_file(first.output).substr(0, 4) == "\x7f" "ELF");

  const BuildResult second = builder.build(shared_object(src));
  CHECK(second.cached);
  CHECK(second.output == first.output);
  CHECK(second.seconds < first.seconds);

  // The header the compiler read (recorded from -MD) is part of the key.
  const auto manifests = tmp / "cache/manifests";
  REQUIRE(std::filesystem::exists(manifests));
  const auto manifest = std::filesystem::directory_iterator(manifests)->path();
  CHECK_THAT(eval_test::read_file(manifest), Contains("value.cuh") && !Contains("cuda_runtime.h"));

  BuildRequest other = shared_object(src);
  other.flags = {"-DEXTRA=1"};
  const BuildResult third = builder.build(other);
  REQUIRE(third.ok);
  CHECK_FALSE(third.cached);
  CHECK(third.key != first.key);
}

TEST_CASE("real nvcc: two builds of related sources loaded together keep their own statics", "[eval][build][nvcc]") {
  REQUIRE(have_real_nvcc());  // run through ctest's eval_nvcc_tests, which reports a skip without nvcc
  // A one-time guard in a template function, as kernels keep "shared memory attribute set".
  // Without -fno-gnu-unique both libraries would share one guard: the second would report 0.
  TempDir tmp("nvcc_unique");
  const std::string body = "template <int N> int configure_once() { static int calls = 0; return ++calls; }\n"
                           "extern \"C\" int configure() { return configure_once<1>(); }\n";
  const auto a = write_file(tmp / "a/k.cu", body + "// a\n");
  const auto b = write_file(tmp / "b/k.cu", body + "// b\n");
  NvccBuilder builder(options_for(tmp / "cache"));
  const BuildResult ra = builder.build(shared_object(a));
  const BuildResult rb = builder.build(shared_object(b));
  REQUIRE(ra.ok);
  REQUIRE(rb.ok);
  void* la = dlopen(ra.output.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* lb = dlopen(rb.output.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(la);
  REQUIRE(lb);
  using fn = int (*)();
  const auto fa = reinterpret_cast<fn>(dlsym(la, "configure"));
  const auto fb = reinterpret_cast<fn>(dlsym(lb, "configure"));
  REQUIRE(fa);
  REQUIRE(fb);
  CHECK(fa() == 1);
  CHECK(fb() == 1);  // its own static, not the first library's
  CHECK(fa() == 2);
  dlclose(lb);
  dlclose(la);
}

TEST_CASE("the build cache keys on sources, headers, flags, target and compiler", "[eval][build]") {
  TempDir tmp("fake_cache");
  const auto tools = eval_test::fake_tools(tmp / "bin");
  const auto calls = tools / "nvcc.calls";
  write_file(tmp / "src/helper.cuh", "// helper v1\n");
  write_file(tmp / "inc/problem.h", "// problem v1\n");
  const auto src = write_file(tmp / "src/cand.cu", "#include \"helper.cuh\"\n#include \"problem.h\"\n// v1\n");
  auto request = [&] {
    BuildRequest r = shared_object(src);
    r.include_dirs = {tmp / "inc"};
    r.hashed_inputs = {tmp / "inc/problem.h"};
    return r;
  };
  NvccBuilder builder(options_for(tmp / "cache", tools / "nvcc"));
  auto build = [&](const BuildRequest& r) {
    const BuildResult b = builder.build(r);
    REQUIRE(b.ok);
    return b;
  };
  const BuildResult first = build(request());
  CHECK(eval_test::count_lines(calls) == 1);
  CHECK(build(request()).cached);
  CHECK(eval_test::count_lines(calls) == 1);

  SECTION("a header the source includes") {
    write_file(tmp / "src/helper.cuh", "// helper v2\n");
    CHECK_FALSE(build(request()).cached);
    CHECK(build(request()).cached);
    write_file(tmp / "src/helper.cuh", "// helper v1\n");  // back to the first content: its entry
    const BuildResult again = build(request());
    CHECK(again.cached);
    CHECK(again.output == first.output);
  }
  SECTION("a declared input") {
    write_file(tmp / "inc/problem.h", "// problem v2\n");
    CHECK_FALSE(build(request()).cached);
  }
  SECTION("the source") {
    write_file(src, "#include \"helper.cuh\"\n// v2\n");
    CHECK_FALSE(build(request()).cached);
  }
  SECTION("the target") {
    NvccOptions o = options_for(tmp / "cache", tools / "nvcc");
    o.target = parse_gpu_target("sm_100a");
    NvccBuilder blackwell(o);
    const BuildResult b = blackwell.build(request());
    CHECK_FALSE(b.cached);
    CHECK_THAT(b.command, Contains("-gencode=arch=compute_100a,code=sm_100a"));
  }
  SECTION("the compiler version") {
    write_file(tools / "nvcc.version", "13.1-fake");
    NvccBuilder upgraded(options_for(tmp / "cache", tools / "nvcc"));
    CHECK_FALSE(upgraded.build(request()).cached);
  }
  SECTION("the build log survives in the cache") {
    CHECK(build(request()).log == first.log);
  }
}

TEST_CASE("the build cache keys on content, not on where the checkout lies", "[eval][build]") {
  TempDir tmp("fake_cache_moved");
  const auto tools = eval_test::fake_tools(tmp / "bin");
  const auto calls = tools / "nvcc.calls";
  auto checkout = [&](const fs::path& root) {
    write_file(root / "src/helper.cuh", "// helper v1\n");
    write_file(root / "inc/problem.h", "// problem v1\n");
    write_file(root / "src/cand.cu", "#include \"helper.cuh\"\n#include \"problem.h\"\n// v1\n");
  };
  auto request = [&](const fs::path& root) {
    BuildRequest r = shared_object(root / "src/cand.cu");
    r.include_dirs = {root / "inc"};
    r.hashed_inputs = {root / "inc/problem.h"};
    return r;
  };
  NvccBuilder builder(options_for(tmp / "cache", tools / "nvcc"));
  checkout(tmp / "here");
  const BuildResult first = builder.build(request(tmp / "here"));
  REQUIRE(first.ok);
  CHECK(eval_test::count_lines(calls) == 1);
  fs::rename(tmp / "here", tmp / "moved");
  const BuildResult moved = builder.build(request(tmp / "moved"));
  REQUIRE(moved.ok);
  CHECK(moved.cached);
  CHECK(moved.key == first.key);
  CHECK(eval_test::count_lines(calls) == 1);
  // The moved checkout's own headers are what count: an edit there is a miss.
  write_file(tmp / "moved/src/helper.cuh", "// helper v2\n");
  CHECK_FALSE(builder.build(request(tmp / "moved")).cached);
}

TEST_CASE("concurrent builders of one source agree on one artifact", "[eval][build]") {
  TempDir tmp("fake_concurrent");
  const auto tools = eval_test::fake_tools(tmp / "bin");
  const auto src = write_file(tmp / "cand.cu", "// same source\n");
  std::vector<std::future<BuildResult>> builds;
  for (int i = 0; i < 4; ++i)
    builds.push_back(std::async(std::launch::async, [&] {
      NvccBuilder b(options_for(tmp / "cache", tools / "nvcc"));
      return b.build(shared_object(src));
    }));
  std::filesystem::path output;
  for (auto& f : builds) {
    const BuildResult r = f.get();
    REQUIRE(r.ok);
    if (output.empty()) output = r.output;
    CHECK(r.output == output);
  }
  CHECK(eval_test::read_file(output) == "// same source\n");
  // No temporary files are left behind.
  CHECK(std::filesystem::is_empty(tmp / "cache/tmp"));
}

TEST_CASE("build failures that are the sources' fault never throw", "[eval][build]") {
  TempDir tmp("fake_failures");
  const auto tools = eval_test::fake_tools(tmp / "bin");
  NvccBuilder builder(options_for(tmp / "cache", tools / "nvcc"));
  const auto bad = write_file(tmp / "bad.cu", "FAKE_COMPILE_ERROR\n");
  const BuildResult r = builder.build(shared_object(bad));
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.log, Contains("bad.cu(3): error"));
  const BuildResult missing = builder.build(shared_object(tmp / "nope.cu"));
  CHECK_FALSE(missing.ok);
  CHECK_THAT(missing.log, Contains("nope.cu: no such file"));
  // A missing compiler is the harness's problem: it throws, naming the program.
  NvccBuilder no_compiler(options_for(tmp / "cache", tmp / "no-nvcc"));
  CHECK_THROWS_WITH(no_compiler.build(shared_object(bad)), Contains("cannot run the CUDA compiler"));
}
