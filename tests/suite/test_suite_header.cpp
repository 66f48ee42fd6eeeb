// The entry point's C header generated from a description: its parameters in the calling order,
// the CUDA types of the narrow floats, and every test problem's header compiles.
#include "catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/sol_loader.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic::suite;

fs::path header_problems() { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "problems"; }

/// CUDA's include folder (beside nvcc, or CUDA_HOME's), or empty.
fs::path cuda_include_dir() {
  std::vector<fs::path> candidates;
  if (const char* home = std::getenv("CUDA_HOME")) candidates.push_back(fs::path(home) / "include");
  candidates.push_back("/usr/local/cuda/include");
  for (const auto& c : candidates)
    if (fs::is_regular_file(c / "cuda_runtime.h") && fs::is_regular_file(c / "cuda_fp8.h")) return c;
  return {};
}

/// Stand-ins for the CUDA types the headers name, for machines without CUDA's headers.
constexpr const char* cuda_stand_ins = R"(#pragma once
typedef struct CUstream_st* cudaStream_t;
struct __half { unsigned short x; };
struct __nv_bfloat16 { unsigned short x; };
struct __nv_fp8_e4m3 { unsigned char x; };
struct __nv_fp8_e5m2 { unsigned char x; };
)";

}  // namespace

TEST_CASE("the RMSNorm entry point: inputs, outputs, var axes, stream, in that order", "[suite]") {
  const ProblemDescription p = load_problem_folder(header_problems() / "rmsnorm_h4096");
  const std::string h = entry_point_header(p);
  CHECK(entry_point_name(p) == "rmsnorm_h4096");
  const std::vector<std::string> in_order{"extern \"C\" void rmsnorm_h4096(",
                                          "const __nv_bfloat16* hidden_states,",
                                          "const __nv_bfloat16* weight,",
                                          "float eps,",
                                          "__nv_bfloat16* output,",
                                          "int64_t batch_size,",
                                          "cudaStream_t stream);"};
  std::size_t at = 0;
  for (const auto& piece : in_order) {
    INFO(piece << "\n" << h);
    const std::size_t found = h.find(piece, at);
    REQUIRE(found != std::string::npos);
    at = found;
  }
  CHECK_THAT(h, Catch::Matchers::Contains("// input, [batch_size, hidden_size] bfloat16"));
  CHECK_THAT(h, Catch::Matchers::Contains("// input, scalar float32"));
  CHECK_THAT(h, Catch::Matchers::Contains("#include <cuda_bf16.h>"));
  CHECK_THAT(h, Catch::Matchers::Contains("Fixed axes: hidden_size = 4096."));
  CHECK_THAT(h, !Catch::Matchers::Contains("cuda_fp8.h"));
}

TEST_CASE("fp8, two outputs, 0-d tensors and narrow scalars in the header", "[suite]") {
  const std::string fp8 = entry_point_header(load_problem_folder(header_problems() / "fp8_gemm_blockscale_n4096_k7168"));
  CHECK_THAT(fp8, Catch::Matchers::Contains("const __nv_fp8_e4m3* A,"));
  CHECK_THAT(fp8, Catch::Matchers::Contains("#include <cuda_fp8.h>"));
  CHECK_THAT(fp8, Catch::Matchers::Contains("k_blocks = K // block"));
  const std::string topk = entry_point_header(load_problem_folder(header_problems() / "softmax_topk_v32000_k8"));
  CHECK_THAT(topk, Catch::Matchers::Contains("float* top_probs,"));
  CHECK_THAT(topk, Catch::Matchers::Contains("int64_t* top_indices,"));
  const std::string mse = entry_point_header(load_problem_folder(header_problems() / "mse_loss_d1024"));
  CHECK_THAT(mse, Catch::Matchers::Contains("const float* scale,"));
  CHECK_THAT(mse, Catch::Matchers::Contains("[] float32 (0-d tensor: one element)"));
  CHECK_THAT(mse, Catch::Matchers::Contains("bool mean,"));
  const std::string gqa = entry_point_header(load_problem_folder(header_problems() / "gqa_prefill_hr4_d128"));
  CHECK_THAT(gqa, Catch::Matchers::Contains("// Constraint: num_qo_heads == num_kv_heads * group_size"));
  CHECK_THAT(gqa, Catch::Matchers::Contains("int64_t num_kv_heads,"));
}

TEST_CASE("every test problem's header compiles", "[suite]") {
  const fs::path dir = socratic::test::fresh_dir("suite_headers");
  std::string includes = "#include <cstdint>\n", uses = "void* entry_points[] = {\n";
  std::size_t headers = 0;
  for (const auto& entry : fs::directory_iterator(header_problems())) {
    if (!is_sol_problem_folder(entry.path())) continue;
    const ProblemDescription p = load_problem_folder(entry.path());
    const std::string file = p.name + ".h";
    socratic::test::write_text(dir / file, entry_point_header(p));
    includes += "#include \"" + file + "\"\n";
    uses += "    reinterpret_cast<void*>(&" + entry_point_name(p) + "),\n";
    ++headers;
  }
  REQUIRE(headers >= 6);
  socratic::test::write_text(dir / "all.cpp", includes + uses + "};\n");
  std::string include_flag = "-I'" + cuda_include_dir().string() + "'";
  if (cuda_include_dir().empty()) {
    for (const char* name : {"cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h"})
      socratic::test::write_text(dir / "stand_ins" / name, cuda_stand_ins);
    include_flag = "-I'" + (dir / "stand_ins").string() + "'";
  }
  const std::string command = std::string("'") + SOCRATIC_SUITE_CXX + "' -std=c++17 -fsyntax-only -Wall -Werror " +
                              include_flag + " '" + (dir / "all.cpp").string() + "' > '" +
                              (dir / "compiler.txt").string() + "' 2>&1";
  const int rc = std::system(command.c_str());
  INFO(command << "\n" << socratic::test::read_text(dir / "compiler.txt"));
  CHECK(rc == 0);
  fs::remove_all(dir);
}

TEST_CASE("parameter names that clash or are C++ keywords get a suffix", "[suite]") {
  const auto definition = ordered_json::parse(R"({"name": "3-clash", "axes": {"n": {"type": "var"}},
      "inputs": {"n": {"shape": ["n"], "dtype": "float32"}, "new": {"shape": null, "dtype": "int32"}},
      "outputs": {"stream": {"shape": ["n"], "dtype": "float32"}}, "reference": "def run(n, new): return n"})");
  const ProblemDescription p = parse_definition(definition, "clash.json", ProblemOrigin::sol_execbench);
  const std::string h = entry_point_header(p);
  CHECK(entry_point_name(p) == "_3_clash");
  CHECK_THAT(h, Catch::Matchers::Contains("const float* n,"));
  CHECK_THAT(h, Catch::Matchers::Contains("int32_t new_input,"));
  CHECK_THAT(h, Catch::Matchers::Contains("float* stream,"));
  CHECK_THAT(h, Catch::Matchers::Contains("int64_t n_axis,"));
  CHECK_THAT(h, Catch::Matchers::Contains("cudaStream_t stream_cuda);"));
}
