// Attention forward for Hopper (sm_90a), FlashAttention-3-style: TMA, wgmma, warp specialisation,
// inline PTX only, no library. The candidate the evaluator builds is this file; the headers beside
// it are on its include path (README.md in this folder maps them).
//
// Design:
//   * warpgroup 0 is the producer, warpgroups 1..kWGs are consumers, each owning 64 query rows
//     (setmaxnreg moves registers to them);
//   * the producer's one elected thread issues TMA loads of Q and of K and V tiles into a ring of
//     128-byte-swizzled shared-memory stages; each stage completes on an mbarrier (transaction
//     bytes), and consumers hand stages back on "empty" mbarriers;
//   * consumers compute S = Q K^T with wgmma (both operands from shared memory, K-major) and
//     O += P V with wgmma (P from registers, V from shared memory, MN-major), the online softmax in
//     registers; the softmax of key tile j runs while the P V product of tile j-1 is in flight, and
//     the consumer warpgroups take turns issuing their GEMMs (named barriers), so one's softmax
//     hides under the others' tensor-core work;
//   * causal tiles wholly above the (bottom-right aligned) diagonal are never loaded; tails past
//     seqlen are zero-filled by TMA and masked; rows with no visible key produce zeros;
//   * GQA: query head h reads key/value head h / (heads_q / heads_kv);
//   * two kernels, per-tile and persistent (kernels.cuh), and a dispatch table that picks an
//     instance per shape (dispatch.cuh); head dims other than 64/128/256 and misaligned tensors
//     take the general kernel (fallback.cuh);
//   * per-build state has internal linkage: everything but the entry point lives in an anonymous
//     namespace, so function-local statics (the attribute guards, cached SM counts, the driver
//     entry point) and the scheduler's counters are not STB_GNU_UNIQUE symbols shared with another
//     build loaded into the same process (D2: a v1 and a v3 build broke each other's launches that
//     way). Check: `nm -C --defined-only BUILT.so | grep -i " u "` is empty. The persistent
//     kernel's counters reset themselves (the last CTA of a launch zeroes them), so its launches
//     must not run concurrently on two streams.
//
// This is v45 of the campaign that made it (notebook/attention-h200/: the log, and the changelog
// in kernel-history.md); split into these headers with its machine code unchanged
// (notebook/attention-h200/split-v45.md).
#include "attention_args.h"
#include "dispatch.cuh"
#include "fallback.cuh"

// Test hook: a build with -DHOPPER_FORCE_GENERAL=1 sends every shape down the general path.
#ifndef HOPPER_FORCE_GENERAL
#define HOPPER_FORCE_GENERAL 0
#endif

extern "C" int socratic_attention_forward(const socratic_attention_args* args, cudaStream_t stream) {
  using namespace hopper_attn;
  if (!args_valid(args)) return static_cast<int>(ReturnCode::kInvalidArguments);
  if (args->seqlen_q == 0) return static_cast<int>(ReturnCode::kOk);
  if (!HOPPER_FORCE_GENERAL && fast_path_takes(*args)) {
    const ReturnCode rc = args->dtype == SOCRATIC_BF16 ? launch_fast<SOCRATIC_BF16>(*args, stream)
                                                       : launch_fast<SOCRATIC_FP16>(*args, stream);
    if (rc == ReturnCode::kOk) return static_cast<int>(ReturnCode::kOk);
  }
  return static_cast<int>(launch_general(*args, stream));
}
