// GEMM + bias + GELU, C = gelu(A.B + bias[N]): the variant table. Each row runs a step of the
// HGEMM ladder (its plain twin) with the bias+GELU functor (bias_gelu_epilogue.cuh), and
// names what changed for the fused kernel (cuda/gemm/gemm_bias_gelu_N_<name>.cuh, whose
// header says what the step changes and what it measured).
//
// "best" is v24: HGEMM v32's kernels, every M path of them with bias and GELU applied before
// the store (the paths by shape: hgemm.cu): the warp-specialized wgmma kernel at a tile width per
// shape, each tile's bias in registers from its start, stored by TMA (the 128x256 tile in
// halves, the second in the ring), where it suits the shape, else v4's (the lean loop in its
// fused form); at the 192- and 256-wide tiles the GELU of each tile's first part but a CTA's
// last applied and stored by the producer warpgroup's idle warps (v23). v7, v11-v16 and
// v20-v25 have bf16 forms (rl_gemm_bias_gelu_bf16, gemm_bf16.cu: the paths of
// gemm/bf16_paths.cuh, the functor in bf16).
#include "gemm/bf16_launchers.cuh"
#include "gemm/gemm.h"
#include "gemm/gemm_bias_gelu_16_epilogue_under_next.cuh"
#include "gemm/gemm_bias_gelu_17_b_prefetch.cuh"
#include "gemm/gemm_bias_gelu_18_map_prefetch.cuh"
#include "gemm/gemm_bias_gelu_19_exit_on_read.cuh"
#include "gemm/gemm_bias_gelu_20_producer_tail.cuh"
#include "gemm/gemm_bias_gelu_21_bias_in_registers.cuh"
#include "gemm/gemm_bias_gelu_22_epilogue_warps.cuh"
#include "gemm/gemm_bias_gelu_25_staggered_last.cuh"
#include "variant_table.cuh"

namespace {

using rlg::bf16;
using Launch = int (*)(const half *, const half *, const half *, half *, int, int, int,
                       cudaStream_t);
using LaunchBf16 = int (*)(const bf16 *, const bf16 *, const bf16 *, bf16 *, int, int, int, int,
                           cudaStream_t);

struct Variant {
  int id;
  const char *name;
  const char *summary;
  int plain_twin;  // the HGEMM variant whose kernels it runs
  Launch tanh;     // gelu_kind 0
  Launch erf;      // gelu_kind 1
  LaunchBf16 bf16;  // the bf16 form (rl_gemm_bias_gelu_bf16, gemm_bf16.cu), or null: v7, v11-v16
};

constexpr Variant kVariants[] = {
    {1, "fused",
     "bias + GELU in the epilogue of every path of HGEMM v8 (staged bias; tiles parked or in "
     "registers, slabs at their store)",
     8, rlg::launch_bias_gelu_fused<0>, rlg::launch_bias_gelu_fused<1>, nullptr},
    {2, "wgmma_mid_m", "v1 on HGEMM v9: 65..512 rows on the wgmma tile, bias + GELU at its store",
     9, rlg::launch_bias_gelu_wgmma_mid_m<0>, rlg::launch_bias_gelu_wgmma_mid_m<1>, nullptr},
    {3, "parked_parts",
     "v2 on HGEMM v10 (the few-row tile shared with the plain GEMM); tanh: the tile parked in 4 "
     "row parts",
     10, rlg::launch_bias_gelu_parked_parts<0>, rlg::launch_bias_gelu_parked_parts<1>, nullptr},
    {4, "lean_loop",
     "v3 on HGEMM v11's lean loop, its last k-step's stage offset opaque to the compiler",
     11, rlg::launch_bias_gelu_lean_loop<0>, rlg::launch_bias_gelu_lean_loop<1>, nullptr},
    {5, "warp_specialized",
     "v4 on HGEMM v12: its persistent warp-specialized wgmma kernel, bias + GELU at the "
     "coalesced store",
     12, rlg::launch_bias_gelu_warp_specialized<0>, rlg::launch_bias_gelu_warp_specialized<1>,
     nullptr},
    {6, "ws_tile_per_shape",
     "v5 on HGEMM v13: the warp-specialized kernel at the tile width each shape asks for",
     13, rlg::launch_bias_gelu_ws_tile_per_shape<0>, rlg::launch_bias_gelu_ws_tile_per_shape<1>,
     nullptr},
    {7, "tma_store",
     "v6 on HGEMM v14: bias + GELU in the consumers' registers, the tile stored by TMA "
     "while the next one's wgmmas run",
     14, rlg::launch_bias_gelu_tma_store<0>, rlg::launch_bias_gelu_tma_store<1>,
     rlg::bias_gelu_bf16},
    {8, "stream_k",
     "v7 on HGEMM v15: a partial last wave's tiles cut along K, bias + GELU on the owner's sum "
     "(S37: v15's loss where it cuts)",
     15, rlg::launch_bias_gelu_stream_k<0>, rlg::launch_bias_gelu_stream_k<1>, nullptr},
    {9, "staged_halves",
     "v8 on HGEMM v16: the 128x256 tile stored half a tile at a time, a fourth stage",
     16, rlg::launch_bias_gelu_staged_halves<0>, rlg::launch_bias_gelu_staged_halves<1>,
     nullptr},
    {10, "pingpong",
     "v9 on HGEMM v17: a tile per consumer warpgroup, one's bias + GELU and store under the "
     "other's wgmmas (S37: fused / plain 1.017 at 4096³, but v17 is 16-20% slower than v14)",
     17, rlg::launch_bias_gelu_pingpong<0>, rlg::launch_bias_gelu_pingpong<1>, nullptr},
    {11, "halves_whole_tiles",
     "v10 on HGEMM v18: v7's cooperative tile at v14's widths, the 128x256 tile's "
     "functor and store in halves for a fourth stage, whole tiles (S39a, H100: 0.98x "
     "cuBLASLt's GELU_BIAS at 4096³, v7 0.96x)",
     18, rlg::launch_bias_gelu_halves_whole_tiles<0>,
     rlg::launch_bias_gelu_halves_whole_tiles<1>, rlg::bias_gelu_bf16_halves},
    {12, "a_multicast",
     "v11 on HGEMM v19: the 65..512-row shapes no width suits on 128x64 pairs along N sharing "
     "A, bias + GELU in registers, stored by TMA (S39a, H100: 14% slower than v7 at 256x4096²)",
     19, rlg::launch_bias_gelu_a_multicast<0>, rlg::launch_bias_gelu_a_multicast<1>,
     rlg::bias_gelu_bf16_a_multicast},
    {13, "half_in_ring",
     "v11 on HGEMM v21: the 128x256 tile's second half staged in the ring stage its "
     "last k-tile emptied, not behind the first half's store (S42a/b, H100: +0.7-1.2% over "
     "v11 at 4096³, 0.98-0.99x cuBLASLt's GELU_BIAS)",
     21, rlg::launch_bias_gelu_half_in_ring<0>, rlg::launch_bias_gelu_half_in_ring<1>,
     rlg::bias_gelu_bf16_half_in_ring},
    {14, "lean_everywhere",
     "v13 on HGEMM v22: v20's lean wgmma descriptors at every tile width (S43a, H200: "
     "+0.8-2.6% over v13 at 4096³, 0.99-1.00x cuBLASLt's GELU_BIAS)",
     22, rlg::launch_bias_gelu_lean_everywhere<0>, rlg::launch_bias_gelu_lean_everywhere<1>,
     rlg::bias_gelu_bf16_lean_everywhere},
    {15, "n64_mid_m",
     "best: v14 on HGEMM v23: the lean 64-wide tile also at 65..512 rows where the cost model "
     "picks it, not v9's tile (S43d, H100: +1-3% over v14 at 256x4096², bf16 +1.4%)",
     23, rlg::launch_bias_gelu_n64_mid_m<0>, rlg::launch_bias_gelu_n64_mid_m<1>,
     rlg::bias_gelu_bf16_n64_mid_m},
    {16, "epilogue_under_next",
     "v15 on HGEMM v24: bias + GELU and the store of each tile under the next tile's first two "
     "k-tiles, from results packed to fp16 (S43e, H100: -0.5..-1.3% at 4096³, bf16 -19%: "
     "spills; the tensor pipe's active share unchanged)",
     24, rlg::launch_bias_gelu_epilogue_under_next<0>,
     rlg::launch_bias_gelu_epilogue_under_next<1>, rlg::bias_gelu_bf16_epilogue_under_next},
    {17, "b_prefetch",
     "v15 on HGEMM v28: each B box also prefetched into L2 8 k-tiles ahead of the ring (S45a, "
     "H100: 8-10% slower than v15 at 256x4096², 1% at 4096³)",
     28, rlg::launch_bias_gelu_b_prefetch<0>, rlg::launch_bias_gelu_b_prefetch<1>, nullptr},
    {18, "map_prefetch",
     "v15 on HGEMM v30: each CTA fetches its A, B and C tensor maps into the TMA unit at the "
     "kernel's start (S45f, H100: level with v15)",
     30, rlg::launch_bias_gelu_map_prefetch<0>, rlg::launch_bias_gelu_map_prefetch<1>, nullptr},
    {19, "exit_on_read",
     "v18 on HGEMM v31: the last TMA stores waited for until they have read the staging, not "
     "completed, before a CTA leaves (S45f, H100: level with v15 and v18)",
     31, rlg::launch_bias_gelu_exit_on_read<0>, rlg::launch_bias_gelu_exit_on_read<1>, nullptr},
    {20, "producer_tail",
     "v15 on HGEMM v32: the cluster's first meeting with a relaxed arrive and no last meeting, "
     "each producer waiting for its stages' releases instead (S46a, H100: 9% faster than v15 at "
     "256x4096², 3% at 2048³)",
     32, rlg::launch_bias_gelu_producer_tail<0>, rlg::launch_bias_gelu_producer_tail<1>,
     rlg::bias_gelu_bf16_producer_tail},
    {21, "bias_in_registers",
     "v20 with each tile's bias read into registers when a consumer starts the tile, not at its "
     "store (S46b/c/f, H200: 0.5-4.8% faster than v20 in 15 of 18 interleaved pairs, the other 3 "
     "within noise)",
     32, rlg::launch_bias_gelu_in_registers<0>, rlg::launch_bias_gelu_in_registers<1>,
     rlg::bias_gelu_bf16_in_registers},
    {22, "epilogue_warps",
     "v21 with GELU applied to each staged tile but a CTA's last by the producer warpgroup's "
     "three idle warps, under the next tile's main loop (S47a, H100: correct; 3-5% slower than "
     "v21 at several tiles a CTA, level at one)",
     32, rlg::launch_bias_gelu_epilogue_warps<0>, rlg::launch_bias_gelu_epilogue_warps<1>,
     rlg::bias_gelu_bf16_epilogue_warps},
    {23, "held_half_by_consumers",
     "v22 with the 256-wide tile's second half (in the held ring stage) finished and stored by "
     "the consumers as in v21, the first half by the epilogue warps (S48a/b/d, H100: 0.7-1.4% "
     "faster than v21 at the 192- and 256-wide tiles' shapes, 0.4-5% slower at the 128- and "
     "64-wide)",
     32, rlg::launch_bias_gelu_held_half_by_consumers<0>,
     rlg::launch_bias_gelu_held_half_by_consumers<1>, rlg::bias_gelu_bf16_held_half_by_consumers},
    {24, "epilogue_warps_wide_only",
     "v23's kernels where the shape takes the 192- or 256-wide tile, v21's at the 128- and "
     "64-wide tiles and every other path (S48d, H100: within noise of the faster of the two at "
     "every shape measured)",
     32, rlg::launch_bias_gelu_epilogue_warps_wide_only<0>,
     rlg::launch_bias_gelu_epilogue_warps_wide_only<1>,
     rlg::bias_gelu_bf16_epilogue_warps_wide_only},
    {25, "staggered_last",
     "v24 with each CTA's last wide tile run with its consumer warpgroups two k-tiles apart, "
     "the first one's GELU under the second's last k-tiles (S49b, H100: ~1.3 us slower than v24 "
     "a CTA's last tile)",
     32, rlg::launch_bias_gelu_staggered_last<0>, rlg::launch_bias_gelu_staggered_last<1>,
     rlg::bias_gelu_bf16_staggered_last},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

extern "C" int rl_gemm_bias_gelu(int variant, const void *A, const void *B, const void *bias,
                                 void *C, int M, int N, int K, int gelu_kind, void *stream) {
  RL_REQUIRE(bias != nullptr);
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  const Launch launch = gelu_kind == 0 ? v->tanh : v->erf;
  return launch(static_cast<const half *>(A), static_cast<const half *>(B),
                static_cast<const half *>(bias), static_cast<half *>(C), M, N, K,
                rl_stream(stream));
}

extern "C" int rl_gemm_bias_gelu_bf16(int variant, const void *A, const void *B, const void *bias,
                                      void *C, int M, int N, int K, int gelu_kind,
                                      void *stream) {
  RL_REQUIRE(bias != nullptr);
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && v->bf16 != nullptr);
  RL_REQUIRE(rlg::gemm_args_ok(A, B, C, M, N, K));
  return v->bf16(static_cast<const bf16 *>(A), static_cast<const bf16 *>(B),
                 static_cast<const bf16 *>(bias), static_cast<bf16 *>(C), M, N, K, gelu_kind,
                 rl_stream(stream));
}

extern "C" int rl_gemm_bias_gelu_variant_bf16(int variant) {
  return rl_table::has_bf16(kVariants, variant);
}

extern "C" int rl_gemm_bias_gelu_variant_count(void) {
  return rl_table::count(kVariants);
}

extern "C" const char *rl_gemm_bias_gelu_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_gemm_bias_gelu_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}

extern "C" int rl_gemm_bias_gelu_plain_variant(int variant) {
  return rl_table::plain_twin(kVariants, variant);
}
