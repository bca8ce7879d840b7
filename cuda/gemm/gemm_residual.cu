// GEMM + bias + residual, C = A.B + bias[N] + R[M x N]: the variant table. The epilogue is one
// functor (bias_residual_epilogue.cuh) written to the family's contract, with its row and
// column, and each row of the table runs a step of the HGEMM ladder with it (its plain twin),
// as GEMM+bias+GELU does: no kernel or path was written for it (only its run-time form for the
// GEMV's slabs, SlabEpiResidual, whose slab kernels are built for it alone), so it is the
// contract's proof that a new epilogue reaches every M path; v5-v10 are one table row each, on
// HGEMM v12-v17. v11 is its own step: v7 with R staged for the TMA store
// (gemm_residual_11_staged_residual.cuh).
//
// "best" is v11: HGEMM v14's kernels, every M path of them with bias and residual added before
// the store (the paths by shape: hgemm.cu); where the warp-specialized wgmma kernel suits the
// shape, R staged in shared memory for its TMA store (gemm_residual_11_staged_residual.cuh),
// elsewhere v7's paths (v4's below the kernel: HGEMM v11's, the lean loop in the fused family's
// form). v11 alone has a bf16 form (rl_gemm_residual_bf16, gemm_bf16.cu: the same staged
// kernel in bf16 where it suits the shape, else the paths of gemm/bf16_paths.cuh).
#include "gemm/bf16_launchers.cuh"
#include "gemm/bias_residual_epilogue.cuh"
#include "gemm/gemm.h"
#include "gemm/gemm_residual_11_staged_residual.cuh"
#include "gemm/hgemm_17_pingpong.cuh"
#include "variant_table.cuh"

namespace {

using rlg::bf16;
using rlg::EpiBiasResidual;

using Step = int (*)(const half *, const half *, half *, int, int, int, const EpiBiasResidual &,
                     cudaStream_t);
using Launch = int (*)(const half *, const half *, const half *, const half *, half *, int, int,
                       int, cudaStream_t);

// A step of the HGEMM ladder with the bias+residual epilogue (R: M rows of N).
template <Step STEP>
int with_residual(const half *A, const half *B, const half *bias, const half *R, half *C, int M,
                  int N, int K, cudaStream_t s) {
  return STEP(A, B, C, M, N, K, EpiBiasResidual{bias, R, N}, s);
}

using LaunchBf16 = decltype(&rlg::bias_residual_bf16);

struct Variant {
  int id;
  const char *name;
  const char *summary;
  int plain_twin;  // the HGEMM variant whose kernels it runs
  Launch launch;
  LaunchBf16 bf16;  // the bf16 form (rl_gemm_residual_bf16, gemm_bf16.cu), or null: only v7's
};

constexpr Variant kVariants[] = {
    {1, "gemv_slabs",
     "bias + residual before the store of every path of HGEMM v8 (WMMA tiles parked or per "
     "strip, split-K, the GEMV's slabs)",
     8, with_residual<rlg::launch_gemv_slabs<EpiBiasResidual>>, nullptr},
    {2, "wgmma_mid_m", "v1 on HGEMM v9: 65..512 rows on the 128x64 wgmma tile", 9,
     with_residual<rlg::launch_wgmma_mid_m<EpiBiasResidual>>, nullptr},
    {3, "wgmma_few_rows",
     "v2 on HGEMM v10: 17..64 rows on the few-row wgmma tile (built for the functor)", 10,
     with_residual<rlg::launch_wgmma_few_rows<EpiBiasResidual>>, nullptr},
    {4, "lean_loop", "v3 on HGEMM v11's lean loop, in the fused family's form", 11,
     with_residual<rlg::launch_lean_loop<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>, nullptr},
    {5, "warp_specialized",
     "v4 on HGEMM v12: grids of a wave or more on the persistent warp-specialized wgmma "
     "kernel, bias + residual at its coalesced store",
     12, with_residual<rlg::launch_warp_specialized<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {6, "ws_tile_per_shape",
     "v5 on HGEMM v13: the warp-specialized kernel at the tile width each shape asks for",
     13,
     with_residual<rlg::launch_ws_tile_per_shape<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {7, "tma_store",
     "v6 on HGEMM v14: bias + residual in the consumers' registers (the residual read per "
     "element inside C), the tile stored by TMA",
     14, with_residual<rlg::launch_ws_tma_store<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {8, "stream_k",
     "v7 on HGEMM v15: a partial last wave's tiles cut along K, bias + residual on the owner's "
     "sum (S37: v15's loss where it cuts)",
     15, with_residual<rlg::launch_ws_stream_k<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {9, "staged_halves",
     "v8 on HGEMM v16: the 128x256 tile stored half a tile at a time, a fourth stage",
     16,
     with_residual<rlg::launch_ws_staged_halves<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {10, "pingpong",
     "v9 on HGEMM v17: a tile per consumer warpgroup, one's bias + residual and store under "
     "the other's wgmmas (S37: v17 is 16-20% slower than v14)",
     17, with_residual<rlg::launch_ws_pingpong<rlg::kLoopLeanOpaqueLast, EpiBiasResidual>>,
     nullptr},
    {11, "staged_residual",
     "best: v7 with R staged in shared memory by cp.async under the main loop's second half, "
     "added from the TMA store's staging (S37: 1.05x plain at 4096³, v7 1.35x)",
     14, with_residual<rlg::launch_residual_staged<rlg::kLoopLeanOpaqueLast>>,
     rlg::bias_residual_bf16},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

extern "C" int rl_gemm_residual(int variant, const void *A, const void *B, const void *bias,
                                const void *R, void *C, int M, int N, int K, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && bias != nullptr && R != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  const size_t cb = static_cast<size_t>(M) * static_cast<size_t>(N) * sizeof(half);
  RL_REQUIRE(!rl_overlap(C, cb, R, cb) && !rl_overlap(C, cb, bias, N * sizeof(half)));
  return v->launch(static_cast<const half *>(A), static_cast<const half *>(B),
                   static_cast<const half *>(bias), static_cast<const half *>(R),
                   static_cast<half *>(C), M, N, K, rl_stream(stream));
}

extern "C" int rl_gemm_residual_bf16(int variant, const void *A, const void *B, const void *bias,
                                     const void *R, void *C, int M, int N, int K, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && v->bf16 != nullptr && bias != nullptr && R != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  const size_t cb = static_cast<size_t>(M) * static_cast<size_t>(N) * sizeof(bf16);
  RL_REQUIRE(!rl_overlap(C, cb, R, cb) && !rl_overlap(C, cb, bias, N * sizeof(bf16)));
  return v->bf16(static_cast<const bf16 *>(A), static_cast<const bf16 *>(B),
                 static_cast<const bf16 *>(bias), static_cast<const bf16 *>(R),
                 static_cast<bf16 *>(C), M, N, K, rl_stream(stream));
}

extern "C" int rl_gemm_residual_variant_bf16(int variant) {
  return rl_table::has_bf16(kVariants, variant);
}

extern "C" int rl_gemm_residual_variant_count(void) { return rl_table::count(kVariants); }

extern "C" const char *rl_gemm_residual_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_gemm_residual_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}

extern "C" int rl_gemm_residual_plain_variant(int variant) {
  return rl_table::plain_twin(kVariants, variant);
}
