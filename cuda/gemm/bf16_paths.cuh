// The GEMM family in bf16 (issue 42): C = epi(A.B) with A, B, C and the functor's operands in
// bf16 (__nv_bfloat16), fp32 accumulation, one rounding to bf16 at the store. Not a step of the
// ladder but the bf16 form of its best: HGEMM v23 and GEMM+bias+GELU v15 (at v23's widths) and
// GEMM+bias+residual v11 (its staged kernel first where it suits the shape, else v14's widths)
// launch this (rl_*_bf16, through gemm_bf16.cu), and so do HGEMM v14 (the residual's plain
// twin), HGEMM v18 / v21 / v22 and GEMM+bias+GELU v11 / v13 / v14 (their widths), GEMM+bias+GELU v7, and
// HGEMM v19 / GEMM+bias+GELU v12 (v18's widths, then v19's 128x64 pairs along N where no width
// suits the shape); no other variant has a bf16 form (the tables' bf16 column).
//
// What it runs, by shape (the first that applies; src/kernels/gemm.rs keeps the same table):
//   from 65 rows where a tile width keeps half of the tensor cores' time on C, 16-byte path,
//                    sm_90a: v14's persistent warp-specialized wgmma kernel (v13's width per
//                    shape, v14's TMA store), in bf16 (the same kernel as fp16: the same bytes in
//                    its ring and staging, the wgmmas' .bf16 form, bf16 tensor maps);
//   grids of a wave or more of 128x256 tiles that no width above took: v12's kernel, in bf16;
//   every other shape on the 16-byte path, sm_90a: v9's 128x64 wgmma tile over all of K, in
//                    bf16, at every M (v9 itself takes 65..512 rows; here it also takes the M <=
//                    64 that fp16 gives the GEMV's slabs and v10's few-row tile, and the shapes
//                    that fp16 gives the WMMA tiles: neither the slabs nor the WMMA ladder have a
//                    bf16 form, by design);
//   off the 16-byte path (N or K not a multiple of 8, unaligned operands) or without sm_90a:
//                    v1's WMMA kernel with bf16 fragments (sm_80 on): correct, not fast (fp16
//                    v1 measured ~26 TFLOP/s), for the awkward shapes the check runs.
// So the targets' shapes (2048³..8192³ and the LLM projections from 256 rows) run the same kernel
// as fp16, whose tensor-core rate is the same in bf16 (dense 989 TFLOP/s for both on the H200's
// datasheet); the small-M shapes run one wgmma tile where fp16 has a path per M.
#pragma once
#include "gemm/hgemm_19_a_multicast.cuh"
#include "gemm/hgemm_24_epilogue_under_next.cuh"

namespace rlg {

// v9's tile at any M, where it applies at all (16-byte path, sm_90a); *launched false: it did
// not (a tensor map refused, a grid past 2^31 blocks).
template <class Epi>
int try_wgmma_tile_bf16(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                        const Epi &epi, cudaStream_t stream, bool *launched) {
  *launched = false;
  if (!vec16_ok(A, B, C, N, K, epi) || !wgmma_capable()) return 0;
  return launch_wgmma(A, B, C, M, N, K, epi, stream, launched);
}

// The bf16 paths above, in order, with the family's functor (its bf16 form); W: the widths of
// the step whose bf16 form it is (v14's WsWidths<true>, v18's halves); A_MULTICAST: v19's
// 128x64 pairs along N where no width suits the shape (65..512 rows), before v12's kernel.
template <class W, bool A_MULTICAST, class Epi>
int launch_bf16(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K, const Epi &epi,
                cudaStream_t stream) {
  const auto others = [&] {
    return path_or(
        [&](bool *done) { return try_warp_specialized(A, B, C, M, N, K, epi, stream, done); },
        [&] {
          return path_or(
              [&](bool *done) {
                return try_wgmma_tile_bf16(A, B, C, M, N, K, epi, stream, done);
              },
              [&] { return launch_naive(A, B, C, M, N, K, epi, stream); });
        });
  };
  const auto after_widths = [&] {
    if constexpr (A_MULTICAST)
      return path_or(
          [&](bool *done) { return try_ws_a_multicast(A, B, C, M, N, K, epi, stream, done); },
          others);
    else
      return others();
  };
  return path_or(
      [&](bool *done) {
        return try_ws_widths<W>(A, B, C, M, N, K, epi, stream, done);
      },
      after_widths);
}

}  // namespace rlg
