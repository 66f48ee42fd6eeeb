// The attention forward problem for the generic runner (kernels/harness/problem.cuh): parameters,
// tensors, inputs from a seed, the fp32 reference, the tolerance rule and the cost model.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "attention_args.h"
#include "problem.cuh"
#include "reference.cuh"
#include "shape.cuh"

namespace {

using socratic::harness::Dtype;
using socratic::harness::TensorSpec;
using nlohmann::json;

[[noreturn]] void field_error(const std::string& field, const std::string& message) {
  throw std::runtime_error("field \"" + field + "\": " + message);
}

std::string shown(const json& value) { return value.dump(); }

int int_field(const json& params, const std::string& field, long long min_value,
              long long max_value) {
  if (!params.contains(field)) field_error(field, "required");
  const json& value = params.at(field);
  if (!value.is_number_integer())
    field_error(field, "expected an integer, got " + shown(value));
  const long long x = value.get<long long>();
  if (x < min_value || x > max_value)
    field_error(field, "must be between " + std::to_string(min_value) + " and " +
                           std::to_string(max_value) + ", got " + std::to_string(x));
  return static_cast<int>(x);
}

// ---------------------------------------------------------------------------------------------
// Inputs: a counter-based hash per element (no state, any order, same values for the same
// seed on any GPU), turned into normal variates by Box-Muller.

__device__ __host__ inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ inline float uniform_open(std::uint64_t bits) {  // (0, 1]
  return (static_cast<float>(bits >> 40) + 1.0f) * (1.0f / 16777216.0f);
}

__device__ inline float normal(std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t h = mix64(stream ^ mix64(index));
  const float u1 = uniform_open(h);
  const float u2 = uniform_open(mix64(h));
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

// x = offset + scale * N(0,1) [+ outlier_scale * N(0,1) with probability outlier_rate].
struct Distribution {
  float offset, scale, outlier_rate, outlier_scale;
};

template <class T>
__global__ void fill_kernel(T* out, long long n, std::uint64_t stream, Distribution dist) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float x = dist.offset + dist.scale * normal(stream, 2 * i);
    if (dist.outlier_rate > 0.f) {
      const float pick = uniform_open(mix64(stream ^ mix64(2 * i + 1) ^ 0x5bd1e995ull));
      if (pick <= dist.outlier_rate) x += dist.outlier_scale * normal(~stream, i);
    }
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      out[i] = __float2bfloat16_rn(x);
    else
      out[i] = __float2half_rn(x);
  }
}

// The value regimes the trials cycle through. Scores have standard deviation about
// scale_q * scale_k (softmax_scale = 1/sqrt(d) cancels the sum over d).
struct Regime {
  const char* name;
  Distribution q, k, v;
};
constexpr Regime kRegimes[] = {
    // Plain unit normals.
    {"unit", {0.f, 1.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}},
    // Peaked softmax (score std ~ 6.25) and large outputs.
    {"peaked_large", {0.f, 2.5f, 0.f, 0.f}, {0.f, 2.5f, 0.f, 0.f}, {0.f, 32.f, 0.f, 0.f}},
    // Nearly flat softmax over small values with a common offset: O is a long average that
    // must not drift (an accumulation error shows directly).
    {"flat_small", {0.f, 0.25f, 0.f, 0.f}, {0.f, 0.25f, 0.f, 0.f}, {1.f / 32, 1.f / 64, 0.f, 0.f}},
    // FlashAttention-3's outlier test: N(0,1) + N(0,100^2) * Bernoulli(0.001), a large dynamic range.
    {"outliers", {0.f, 1.f, 1e-3f, 100.f}, {0.f, 1.f, 1e-3f, 100.f}, {0.f, 1.f, 1e-3f, 100.f}},
};
constexpr int kRegimeCount = sizeof(kRegimes) / sizeof(kRegimes[0]);

// ---------------------------------------------------------------------------------------------

class AttentionProblem final : public socratic::harness::Problem {
 public:
  void configure(const json& params) override {
    shape_ = socratic::attention::parse_shape(params);
    configured_ = true;
  }

  std::vector<TensorSpec> tensors() const override {
    require_configured();
    const Dtype d = shape_.dtype == SOCRATIC_BF16 ? Dtype::bf16 : Dtype::fp16;
    const auto q = static_cast<std::size_t>(shape_.q_elements());
    const auto kv = static_cast<std::size_t>(shape_.kv_elements());
    return {{"q", q, d, false}, {"k", kv, d, false}, {"v", kv, d, false}, {"o", q, d, true}};
  }

  std::string name() const override { return "attention"; }
  int input_regimes() const override { return kRegimeCount; }

  void generate_inputs(const std::vector<void*>& inputs, std::uint64_t seed, int trial,
                       cudaStream_t stream) override {
    require_configured();
    if (inputs.size() != 3) throw std::runtime_error("attention: expected 3 inputs (q, k, v)");
    const Regime& regime = kRegimes[((trial % kRegimeCount) + kRegimeCount) % kRegimeCount];
    const Distribution dists[3] = {regime.q, regime.k, regime.v};
    const long long counts[3] = {shape_.q_elements(), shape_.kv_elements(), shape_.kv_elements()};
    for (int t = 0; t < 3; ++t) {
      const std::uint64_t stream_id =
          mix64(seed ^ mix64(static_cast<std::uint64_t>(trial) * 0x100000001b3ull + t));
      const long long blocks = std::min<long long>((counts[t] + 255) / 256, 4096);
      if (shape_.dtype == SOCRATIC_BF16)
        fill_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
            static_cast<__nv_bfloat16*>(inputs[t]), counts[t], stream_id, dists[t]);
      else
        fill_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
            static_cast<__half*>(inputs[t]), counts[t], stream_id, dists[t]);
      const cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess)
        throw std::runtime_error(std::string("attention: input generation failed: ") +
                                 cudaGetErrorString(err));
    }
  }

  void reference(const std::vector<void*>& inputs, float* out, cudaStream_t stream) override {
    require_configured();
    if (inputs.size() != 3) throw std::runtime_error("attention: expected 3 inputs (q, k, v)");
    reference_.run(shape_, inputs[0], inputs[1], inputs[2], out, stream);
  }

  int launch(void* entry, const std::vector<void*>& inputs, const std::vector<void*>& outputs,
             cudaStream_t stream) override {
    require_configured();
    if (inputs.size() != 3 || outputs.size() != 1)
      throw std::runtime_error("attention: expected 3 inputs and 1 output");
    socratic_attention_args args{};
    args.q = inputs[0];
    args.k = inputs[1];
    args.v = inputs[2];
    args.o = outputs[0];
    args.batch = shape_.batch;
    args.seqlen_q = shape_.seqlen_q;
    args.seqlen_kv = shape_.seqlen_kv;
    args.heads_q = shape_.heads_q;
    args.heads_kv = shape_.heads_kv;
    args.head_dim = shape_.head_dim;
    args.causal = shape_.causal ? 1 : 0;
    args.dtype = shape_.dtype;
    args.softmax_scale = shape_.softmax_scale;
    using Entry = int (*)(const socratic_attention_args*, cudaStream_t);
    return reinterpret_cast<Entry>(entry)(&args, stream);
  }

  // 4 * d FLOPs per visible (query, key) pair: 2d for the row of Q K^T, 2d for the row of P V.
  double flops() const override {
    require_configured();
    return 4.0 * shape_.batch * shape_.heads_q * shape_.head_dim * visible_pairs();
  }

  // q, k, v read once and o written once, at 2 bytes an element. Under the bottom-right causal
  // mask the last query row sees every key, so no part of k or v can be skipped.
  double min_bytes() const override {
    require_configured();
    return 2.0 * (2.0 * static_cast<double>(shape_.q_elements()) +
                  2.0 * static_cast<double>(shape_.kv_elements()));
  }

  // FlashAttention's atol: 2 * max|out_ref + 0.3 - 0.3 - out_ref| in the output dtype, i.e. twice
  // half an ulp at |out| + 0.3 (FIELD-NOTES section 4): one ulp of the dtype there.
  double rounding_floor(double reference_max_abs) const override {
    require_configured();
    return ulp(std::fabs(reference_max_abs) + 0.3);
  }

  // A hard cap whatever the baseline does: 4 ulps of the largest output (2^-5 |max| for bf16,
  // 2^-8 for fp16), about 8x what a correct bf16/fp16 kernel shows, plus the floor.
  double max_error_cap(double reference_max_abs) const override {
    require_configured();
    const double m = std::fabs(reference_max_abs);
    return std::ldexp(m, -(mantissa_bits() - 2)) + rounding_floor(m);
  }

 private:
  void require_configured() const {
    if (!configured_) throw std::runtime_error("attention: configure() was not called");
  }

  int mantissa_bits() const { return shape_.dtype == SOCRATIC_BF16 ? 7 : 10; }

  double ulp(double x) const {  // spacing of the dtype's values at x > 0
    int exponent = 0;
    std::frexp(x, &exponent);  // x = f * 2^exponent, f in [0.5, 1)
    return std::ldexp(1.0, exponent - 1 - mantissa_bits());
  }

  // Number of (query, key) pairs the mask lets through, per (batch, head). Causal, bottom-right:
  // row i sees min(seqlen_kv, max(0, i + seqlen_kv - seqlen_q + 1)) keys.
  double visible_pairs() const {
    const long long sq = shape_.seqlen_q, skv = shape_.seqlen_kv;
    if (!shape_.causal) return static_cast<double>(sq) * static_cast<double>(skv);
    // Rows i in [first, last) see i + skv - sq + 1 keys (between 1 and skv); rows before see 0.
    const long long first = std::max(0LL, sq - skv);
    const long long n = sq - first;                 // rows that see at least one key
    const long long lo = first + skv - sq + 1;      // keys seen by row `first`
    const long long hi = sq - 1 + skv - sq + 1;     // keys seen by the last row (= skv)
    return static_cast<double>(n) * static_cast<double>(lo + hi) / 2.0;
  }

  socratic::attention::Shape shape_;
  bool configured_ = false;
  socratic::attention::Reference reference_;
};

}  // namespace

namespace socratic::attention {

Shape parse_shape(const json& params) {
  if (!params.is_object()) throw std::runtime_error("parameters: expected a JSON object");
  static const std::set<std::string> known = {"batch",    "seqlen_q", "seqlen_kv",
                                              "heads_q",  "heads_kv", "head_dim",
                                              "causal",   "dtype",    "softmax_scale"};
  for (auto it = params.begin(); it != params.end(); ++it)
    if (!known.count(it.key())) field_error(it.key(), "unknown parameter of problem attention");

  constexpr long long kMaxInt = std::numeric_limits<int>::max();
  socratic::attention::Shape s;
  s.batch = int_field(params, "batch", 1, 65535);
  s.seqlen_q = int_field(params, "seqlen_q", 1, kMaxInt);
  // seqlen_kv defaults to seqlen_q (scenario files write it out; this is for direct callers).
  s.seqlen_kv = params.contains("seqlen_kv") ? int_field(params, "seqlen_kv", 1, kMaxInt)
                                             : s.seqlen_q;
  s.heads_q = int_field(params, "heads_q", 1, 65535);
  s.heads_kv = int_field(params, "heads_kv", 1, 65535);
  if (s.heads_q % s.heads_kv != 0)
    field_error("heads_q", "must be a multiple of heads_kv (" + std::to_string(s.heads_kv) +
                               "), got " + std::to_string(s.heads_q));
  s.head_dim = int_field(params, "head_dim", 8, 256);
  if (s.head_dim % 8 != 0)
    field_error("head_dim",
                "must be a multiple of 8 between 8 and 256, got " + std::to_string(s.head_dim));

  s.causal = false;
  if (params.contains("causal")) {
    if (!params.at("causal").is_boolean())
      field_error("causal", "expected true or false, got " + shown(params.at("causal")));
    s.causal = params.at("causal").get<bool>();
  }
  s.dtype = SOCRATIC_BF16;
  if (params.contains("dtype")) {
    const json& d = params.at("dtype");
    if (d == "bf16")
      s.dtype = SOCRATIC_BF16;
    else if (d == "fp16")
      s.dtype = SOCRATIC_FP16;
    else
      field_error("dtype", "expected \"bf16\" or \"fp16\", got " + shown(d));
  }
  s.softmax_scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  if (params.contains("softmax_scale")) {
    const json& x = params.at("softmax_scale");
    if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() <= 0.0)
      field_error("softmax_scale", "expected a positive finite number, got " + shown(x));
    s.softmax_scale = x.get<float>();
  }

  // Keep every tensor addressable and the runner's memory sane (16 GiB per tensor at 2 B).
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 33;
  if (s.q_elements() > kMaxElements)
    field_error("seqlen_q", "q would hold " + std::to_string(s.q_elements()) +
                                " elements, more than 2^33");
  if (s.kv_elements() > kMaxElements)
    field_error("seqlen_kv", "k and v would hold " + std::to_string(s.kv_elements()) +
                                 " elements each, more than 2^33");
  return s;
}

}  // namespace socratic::attention

std::unique_ptr<socratic::harness::Problem> socratic_make_problem() {
  return std::make_unique<AttentionProblem>();
}

const char* socratic_problem_entry_point() { return "socratic_attention_forward"; }
