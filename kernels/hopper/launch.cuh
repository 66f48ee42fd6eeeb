#pragma once
// The host side of one launch: the device's SM count, the tensor maps (cuTensorMapEncodeTiled
// through the runtime's driver entry point: the candidate links no libcuda), the shared-memory
// attribute, the parameters and the grid of an instance.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "attention_args.h"
#include "kernels.cuh"
#include "scheduler.cuh"
#include "traits.cuh"

namespace hopper_attn {
namespace {

/// SMs of the current device, asked once per device (launches must not pay for the query).
inline int sm_count() {
  static int cached[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return 0;
  if (device >= 64) {
    int sms = 0;
    return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess ? sms : 0;
  }
  if (cached[device] <= 0) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
    cached[device] = sms;
  }
  return cached[device];
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

/// cuTensorMapEncodeTiled through the runtime's driver entry point: the candidate links no libcuda.
inline EncodeTiled encode_fn() {
  static EncodeTiled fn = []() -> EncodeTiled {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
      return nullptr;
    return reinterpret_cast<EncodeTiled>(ptr);
  }();
  return fn;
}

/// A [batch][seqlen][heads][head_dim] tensor seen as boxes of 64 elements x 1 head x `rows` rows.
inline bool make_map(CUtensorMap* map, const void* ptr, bool bf16, int head_dim, int heads, int seqlen, int batch,
                     int rows) {
  const EncodeTiled encode = encode_fn();
  if (!encode) return false;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(seqlen), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(head_dim) * 2,
                                 static_cast<cuuint64_t>(heads) * head_dim * 2,
                                 static_cast<cuuint64_t>(seqlen) * heads * head_dim * 2};
  const cuuint32_t box[4] = {64, 1, static_cast<cuuint32_t>(rows), 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
                const_cast<void*>(ptr), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// Whether an instance's kernel has been given its dynamic shared-memory size. A variable template
/// in the anonymous namespace (internal linkage), not a function-local static of a template
/// (STB_GNU_UNIQUE: shared with any other build of this file loaded into the process).
template <class C>
bool g_configured = false;

/// Launches instance C on `stream` (the fast path's shapes: aligned pointers, lengths > 0).
template <class C>
ReturnCode launch(const socratic_attention_args& a, cudaStream_t stream) {
  CUtensorMap tq, tk, tv, to;
  const bool bf16 = C::kBf16;
  if (!make_map(&tq, a.q, bf16, a.head_dim, a.heads_q, a.seqlen_q, a.batch, C::kBlockM) ||
      !make_map(&tk, a.k, bf16, a.head_dim, a.heads_kv, a.seqlen_kv, a.batch, C::kBlockN) ||
      !make_map(&tv, a.v, bf16, a.head_dim, a.heads_kv, a.seqlen_kv, a.batch, C::kBlockN) ||
      !make_map(&to, a.o, bf16, a.head_dim, a.heads_q, a.seqlen_q, a.batch, 64))  // O: one warpgroup's rows
    return ReturnCode::kTensorMapFailed;
  const auto kernel = [] {
    if constexpr (C::kPersistent) return attention_fwd_persistent_kernel<C>;
    else return attention_fwd_kernel<C>;
  }();
  if (!g_configured<C>) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes) != cudaSuccess)
      return ReturnCode::kSetAttributeFailed;
    g_configured<C> = true;
  }
  Params p;
  p.o = a.o;
  p.seqlen_q = a.seqlen_q;
  p.seqlen_kv = a.seqlen_kv;
  p.heads_q = a.heads_q;
  p.heads_kv = a.heads_kv;
  p.group = a.heads_q / a.heads_kv;
  p.num_m_blocks = (a.seqlen_q + C::kBlockM - 1) / C::kBlockM;
  p.causal = a.causal != 0;
  p.scale_log2 = a.softmax_scale * 1.4426950408889634f;
  p.num_tiles = 0;
  p.num_bh = a.heads_q * a.batch;
  p.section_bh = p.num_bh;
  dim3 grid(p.num_m_blocks, a.heads_q, a.batch);
  if constexpr (C::kPersistent) {
    const long long tiles = static_cast<long long>(p.num_m_blocks) * a.heads_q * a.batch;
    if (tiles > 0x7fffffffLL) return ReturnCode::kTooManyTiles;
    p.num_tiles = static_cast<int>(tiles);
    p.section_bh = l2_section_pairs(l2_section_budget(a.seqlen_kv, C::D), a.seqlen_kv, C::D, p.num_bh);
    // One CTA per SM (shared memory allows no second), fed by the dynamic scheduler.
    const int sms = sm_count();
    if (sms <= 0) return ReturnCode::kNoSmCount;
    grid = dim3(p.num_tiles < sms ? p.num_tiles : sms, 1, 1);
  }
  kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(tq, tk, tv, to, p);
  return cudaPeekAtLastError() == cudaSuccess ? ReturnCode::kOk : ReturnCode::kLaunchFailed;
}

}  // namespace
}  // namespace hopper_attn
