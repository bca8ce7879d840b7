// HGEMM, C = A.B on Tensor Cores: the variant table. Each row's launcher runs one step of the
// ladder (cuda/gemm/hgemm_NN_<name>.cuh, whose header says what the step changes and what it
// measured) with the identity epilogue; each step builds on the one before it.
//
// bf16 (rl_hgemm_bf16): v32 (best), v23, v22, v21, v18, v19, v24 and v14 have bf16 forms
// (gemm_bf16.cu: the paths of gemm/bf16_paths.cuh at each one's widths, v19's pairs); v14's
// stays for GEMM+bias+residual v11, whose plain twin it is.
//
// "best" is v32. What it runs, by shape (the first that applies; src/kernels/gemm.rs keeps the
// same table for `roofline list`):
//   from 65 rows, 16-byte path, sm_90a, where a tile of 128 x 256/192/128/64 keeps half of
//                    the tensor cores' time on C: the persistent warp-specialized wgmma
//                    kernel at that width (v13), TMA multicast, results stored by TMA (v14),
//                    the 128x256 tile's half a tile at a time for a fourth stage (v18), its
//                    second half in the ring stage its last k-tile emptied (v21), the wgmma
//                    descriptors moved on by adds at every width (v22), the 64-wide tile at
//                    every M the cost model gives it (v23; before, v9's tile below 513 rows),
//                    the cluster met once, relaxed, and left on the producer's tail (v32);
//   grids of a wave or more of 128x256 tiles (<= 1/4 of their area outside C) that no width
//                    above took: v12's form of that kernel;
//   17..64 rows      the 64x64 wgmma tile, K split over a cluster of 1-4 CTAs (v10), where its
//                    grid fills half of the GPU in one wave (sm_90a);
//   9..64 rows       the GEMV's TMA slabs (v8), where their grid suits the shape;
//   M <= 16          the GEMV's register slabs (v8);
//   65..512 rows     the 128x64 wgmma tile over all of K (v9), where v7 would split K and no
//                    width above took the shape;
//   K >= 1024, few tiles   split-K over a cluster (v7);
//   else             v5's pipelined loop on v6's tile for the shape, the 256x128 tile's
//                    whole-tile shapes on the lean loop (v11); off the 16-byte path v4's tiles.
#include "gemm/bf16_launchers.cuh"
#include "gemm/gemm.h"
#include "gemm/hgemm_17_pingpong.cuh"
#include "gemm/hgemm_19_a_multicast.cuh"
#include "gemm/hgemm_20_lean_descriptors.cuh"
#include "gemm/hgemm_21_half_in_ring.cuh"
#include "gemm/hgemm_24_epilogue_under_next.cuh"
#include "gemm/hgemm_25_release_per_warpgroup.cuh"
#include "gemm/hgemm_26_rows64_mid_m.cuh"
#include "gemm/hgemm_27_split_k_pair.cuh"
#include "gemm/hgemm_28_b_prefetch.cuh"
#include "gemm/hgemm_29_b_halves.cuh"
#include "gemm/hgemm_30_map_prefetch.cuh"
#include "gemm/hgemm_31_exit_on_read.cuh"
#include "gemm/hgemm_32_producer_tail.cuh"
#include "gemm/ws_epilogue_warps_model.cuh"
#include "variant_table.cuh"

namespace {

using rlg::bf16;
using rlg::EpiIdentity;

using Step = int (*)(const half *, const half *, half *, int, int, int, const EpiIdentity &,
                     cudaStream_t);

// A step of the ladder as the plain GEMM: the identity epilogue.
template <Step STEP>
int plain(const half *A, const half *B, half *C, int M, int N, int K, cudaStream_t s) {
  return STEP(A, B, C, M, N, K, EpiIdentity{}, s);
}

struct Variant {
  int id;
  const char *name;
  const char *summary;
  int (*launch)(const half *, const half *, half *, int, int, int, cudaStream_t);
  // The variant's bf16 form (rl_hgemm_bf16), or null: v14, v18, v19, v21-v24, v32 (gemm_bf16.cu,
  // compiled apart so that this file's fp16 kernels stay as they were).
  int (*bf16)(const bf16 *, const bf16 *, bf16 *, int, int, int, cudaStream_t);
};

constexpr Variant kVariants[] = {
    {1, "naive", "one warp per 16x16 tile, WMMA fragments straight from global memory",
     plain<rlg::launch_naive<EpiIdentity>>, nullptr},
    {2, "smem_tiles",
     "128x128x32 block tile through shared memory, 8 warps of 64x32, synchronous loads",
     plain<rlg::launch_smem_tiles<EpiIdentity>>, nullptr},
    {3, "cp_async", "v2's tile fed by cp.async through a 4-stage ring",
     plain<rlg::launch_cp_async<EpiIdentity>>, nullptr},
    {4, "big_warp_tiles",
     "128x256 tile of 64x64 warp tiles in a grouped raster; smaller tiles where it leaves SMs "
     "idle",
     plain<rlg::launch_big_warp_tiles<EpiIdentity>>, nullptr},
    {5, "pipelined",
     "v4's tile in a software-pipelined loop: k-tiles of 64, double-buffered fragments, one "
     "barrier per k-tile",
     plain<rlg::launch_pipelined<EpiIdentity>>, nullptr},
    {6, "tile_per_shape", "v5's loop on a tile chosen per shape by a cost model (256x128 .. 32x32)",
     plain<rlg::launch_tile_per_shape<EpiIdentity>>, nullptr},
    {7, "cluster_split_k",
     "v6, with K split over the CTAs of a cluster (DSMEM reduction) where v6 leaves SMs idle",
     plain<rlg::launch_cluster_split_k<EpiIdentity>>, nullptr},
    {8, "gemv_slabs",
     "v7, with M <= 64 on the GEMV's slab kernels (registers at M <= 16, TMA at 9..64 rows)",
     plain<rlg::launch_gemv_slabs<EpiIdentity>>, nullptr},
    {9, "wgmma_mid_m",
     "v8, with 65..512 rows on a 128x64 wgmma tile over all of K where v8 would split K (not "
     "WMMA)",
     plain<rlg::launch_wgmma_mid_m<EpiIdentity>>, nullptr},
    {10, "wgmma_few_rows",
     "v9, with 17..64 rows on a 64x64 wgmma tile, K split over a cluster of 1-4 CTAs (not WMMA)",
     plain<rlg::launch_wgmma_few_rows<EpiIdentity>>, nullptr},
    {11, "lean_loop",
     "v10, with the 256x128 tile's whole-tile shapes in a lean loop (ring unrolled, no "
     "bounds predicates)",
     plain<rlg::launch_lean_loop<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {12, "warp_specialized",
     "v11, with grids of a wave or more on a persistent warp-specialized wgmma kernel: 128x256 "
     "tiles, TMA multicast over a cluster of 2, 4-stage ring (sm_90a)",
     plain<rlg::launch_warp_specialized<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {13, "ws_tile_per_shape",
     "v12's kernel at a tile width per shape (128 x 64/128/192/256, by the waves each needs) "
     "wherever it keeps half of the tensor cores' time on C, from 65 rows",
     plain<rlg::launch_ws_tile_per_shape<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {14, "tma_store",
     "v13, with the warp-specialized kernel's results staged by stmatrix and stored by TMA "
     "while the next tile's wgmmas run",
     plain<rlg::launch_ws_tma_store<rlg::kLoopLean, EpiIdentity>>, rlg::hgemm_bf16},
    {15, "stream_k",
     "v14, with the tiles of a partial last wave cut along K over every cluster (Stream-K; "
     "partial sums through L2) where that beats the idle SMs (S37: loses but at one shape)",
     plain<rlg::launch_ws_stream_k<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {16, "staged_halves",
     "v15, with the 128x256 tile stored half a tile at a time: 32 KB of staging, a fourth "
     "stage (S37: +1-2% over v14 at the squares)",
     plain<rlg::launch_ws_staged_halves<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {17, "pingpong",
     "v16, with whole-tile shapes on a pingpong schedule: each consumer warpgroup a 64x256 tile "
     "of its own, one's epilogue under the other's wgmmas (S37: 16-20% slower than v14)",
     plain<rlg::launch_ws_pingpong<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {18, "halves_whole_tiles",
     "v16's tile stored in halves (a fourth stage) on v14's schedule: v14's widths, whole "
     "tiles, no Stream-K cut (S38a: +2-3.4% over v14 where the 128x256 tile runs)",
     plain<rlg::launch_ws_halves_whole_tiles<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_halves},
    {19, "a_multicast",
     "v18, with the 65..512-row shapes no width of v18 suits on a 128x64 tile of its kernel, "
     "the cluster pair along N sharing A by multicast, 8 stages (S39a, H100: 12% slower than "
     "v9's tile at 256x4096²)",
     plain<rlg::launch_ws_a_multicast<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_a_multicast},
    {20, "lean_descriptors",
     "v19, its 128x64 pairs' consumers moving the wgmma descriptors on by adds, not building "
     "each from its address (S41a, H100: 38% fewer instructions, 6% faster than v19 at "
     "256x4096², 7% slower than v9's tile)",
     plain<rlg::launch_ws_lean_descriptors<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {21, "half_in_ring",
     "v18, the 128x256 tile's second half staged in the ring stage its last k-tile "
     "emptied, not behind the first half's store (S42a/b, H100: +0-0.5% at the squares, "
     "+1.2% in bf16 at 4096³, +0.8-1.4% at 2048x8192x2048)",
     plain<rlg::launch_ws_half_in_ring<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_half_in_ring},
    {22, "lean_everywhere",
     "v21, with v20's lean wgmma descriptors at every tile width: built once, moved on "
     "by adds (S43a, H200: +5.5-7.6% over v21 at 1024x14336x4096, +0.5-0.8% at 8192³, +0.2-0.4% "
     "at 4096³)",
     plain<rlg::launch_ws_lean_everywhere<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_lean_everywhere},
    {23, "n64_mid_m",
     "best: v22, with its 64-wide tile also at 65..512 rows where the cost model picks it, not "
     "v9's tile (S43d, H100: +4.5% over v22 at 256x4096², +4-6% at 256x4096x11008)",
     plain<rlg::launch_ws_n64_mid_m<rlg::kLoopLean, EpiIdentity>>, rlg::hgemm_bf16_n64_mid_m},
    {24, "epilogue_under_next",
     "v23, with each tile's results packed to registers after its last wgmma and stored under "
     "the next tile's first two k-tiles (S43e, H100: -0.9..-1.3% at 4096³, +0.2% at 8192³; "
     "the tensor pipe's active share unchanged)",
     plain<rlg::launch_ws_epilogue_under_next<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_epilogue_under_next},
    {25, "release_per_warpgroup",
     "v23, with each ring stage released once per consumer warpgroup (one lane per CTA of the "
     "cluster), not once per warp (S43h, H100: within noise of v23; 256x4096² -0.9..+4.3%)",
     plain<rlg::launch_ws_release_per_warpgroup<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {26, "rows64_mid_m",
     "v23, with its 128x64 tile below 513 rows replaced by a 64x128 tile per consumer "
     "warpgroup in turn (v17's pingpong, lean descriptors, the pair along M sharing B), "
     "cuBLAS's tile there (S44a, H100: 6-8% slower than v23 at 256x4096², 256x4096x11008)",
     plain<rlg::launch_ws_rows64_mid_m<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {27, "split_k_pair",
     "v23, with its 128x64 tile below 513 rows replaced by 128x128 tiles whose k-tiles two "
     "groups of a cluster split, the partial sums meeting in shared memory (S44d, H100: level "
     "with v23 at 256x4096² and 256x4096x11008)",
     plain<rlg::launch_ws_split_k_pair<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {28, "b_prefetch",
     "v23, its producer also fetching each B box 8 k-tiles ahead into L2, so that more of B's "
     "DRAM reads are in flight than the ring holds (S45a, H100: 11% slower than v23 at "
     "256x4096², 10% at 256x4096x11008; the squares level)",
     plain<rlg::launch_ws_b_prefetch<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {29, "b_halves",
     "v23, where a tile's B boxes do not divide evenly over the pair (the 64-wide tile's one, the "
     "192-wide's three) each box loaded as two k-row slices, one per CTA (S45b, H100: level "
     "with v23 everywhere)",
     plain<rlg::launch_ws_b_halves<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {30, "map_prefetch",
     "v23, each CTA fetching its A, B and C tensor maps into the TMA unit at the kernel's start, "
     "not on their first use (S45f, H100: level with v23)",
     plain<rlg::launch_ws_map_prefetch<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {31, "exit_on_read",
     "v30, each CTA's last TMA stores waited for until they have read the staging, not "
     "completed, before it leaves (S45f, H100: level with v30 and v23)",
     plain<rlg::launch_ws_exit_on_read<rlg::kLoopLean, EpiIdentity>>, nullptr},
    {32, "producer_tail",
     "v23, its cluster's first meeting with a relaxed arrive and no last meeting: each producer "
     "waits until its stages are released, then the CTA leaves (S46a, H100: 9-11% faster than v23 "
     "at 256x4096², 4.6% at 2048³, level at 1024x14336x4096)",
     plain<rlg::launch_ws_producer_tail<rlg::kLoopLean, EpiIdentity>>,
     rlg::hgemm_bf16_producer_tail},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

extern "C" int rl_hgemm(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                        void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  return v->launch(static_cast<const half *>(A), static_cast<const half *>(B),
                   static_cast<half *>(C), M, N, K, rl_stream(stream));
}

extern "C" int rl_hgemm_bf16(int variant, const void *A, const void *B, void *C, int M, int N,
                             int K, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && v->bf16 != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  return v->bf16(static_cast<const bf16 *>(A), static_cast<const bf16 *>(B),
                 static_cast<bf16 *>(C), M, N, K, rl_stream(stream));
}

extern "C" int rl_hgemm_variant_bf16(int variant) {
  return rl_table::has_bf16(kVariants, variant);
}

extern "C" int rl_hgemm_variant_count(void) { return rl_table::count(kVariants); }

extern "C" int rl_gemm_stream_k_units_check(int total, int clusters, int k_tiles, int sk_tiles) {
  return rlg::ws_sk_units_check(total, clusters, k_tiles, sk_tiles);
}

extern "C" int rl_gemm_ws_schedule_check(int M, int N, int along_n) {
  return along_n != 0 ? rlg::ws_schedule_check<rlg::WsMidM>(M, N)
                      : rlg::ws_schedule_check<rlg::WsWidths<true, false, true>::N256>(M, N);
}

extern "C" int rl_gemm_ws_pair_check(int M, int N, int k_tiles, int solo) {
  return solo != 0 ? rlg::ws_pair_check<rlg::WsPairKSolo>(M, N, k_tiles)
                   : rlg::ws_pair_check<rlg::WsPairK>(M, N, k_tiles);
}

extern "C" int rl_gemm_pingpong_ring_check(int stages, int tiles, int k_tiles, unsigned seed,
                                           int handoff) {
  return rlg::ws_pp_ring_check(stages, tiles, k_tiles, seed, handoff != 0);
}

extern "C" int rl_gemm_epilogue_warps_check(int stages, int tiles, int k_tiles, unsigned seed,
                                            int mutation, int held_by_consumers, int stagger) {
  return rlg::ws_epi_model_check(stages, tiles, k_tiles, seed, mutation, held_by_consumers != 0,
                                 stagger);
}

extern "C" const char *rl_hgemm_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_hgemm_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}
