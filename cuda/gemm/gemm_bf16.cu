// The GEMM family's bf16 forms (gemm/bf16_launchers.cuh): the paths of gemm/bf16_paths.cuh
// with each family's functor in bf16. The variant tables (hgemm.cu, gemm_bias_gelu.cu,
// gemm_residual.cu) name these in their bf16 column, for their last step only; their extern "C"
// rl_*_bf16 launchers check the arguments first.
#include "gemm/bf16_launchers.cuh"
#include "gemm/bf16_paths.cuh"
#include "gemm/bias_gelu_epilogue.cuh"
#include "gemm/bias_residual_epilogue.cuh"
#include "gemm/gemm_bias_gelu_21_bias_in_registers.cuh"
#include "gemm/gemm_bias_gelu_22_epilogue_warps.cuh"
#include "gemm/gemm_bias_gelu_25_staggered_last.cuh"
#include "gemm/hgemm_32_producer_tail.cuh"

namespace rlg {

int hgemm_bf16(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K, cudaStream_t s) {
  return launch_bf16<WsWidths<true>, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

// PARK_IN_PARTS (true, as GEMM+bias+GELU v5's functor) matters only to the WMMA tiles' parked
// epilogue, which no bf16 path runs.
int bias_gelu_bf16(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M, int N, int K,
                   int gelu_kind, cudaStream_t s) {
  using W = WsWidths<true>;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

int bias_residual_bf16(const bf16 *A, const bf16 *B, const bf16 *bias, const bf16 *R, bf16 *C,
                       int M, int N, int K, cudaStream_t s) {
  const EpiBiasResidualT<bf16> epi{bias, R, N};
  const EpiBiasResidualStagedT<bf16> staged{epi};
  return path_or(
      [&](bool *done) {
        return try_ws_widths<WsWidths<true>>(A, B, C, M, N, K, staged, s, done);
      },
      [&] { return launch_bf16<WsWidths<true>, false>(A, B, C, M, N, K, epi, s); });
}

// HGEMM v18's and GEMM+bias+GELU v11's forms: the same paths with v18's widths (the 128x256
// tile staged in halves, a fourth stage). Defined after v14's so that their kernels come later
// in the module and v14's keep their SASS (bf16_launchers.cuh says why the order matters).
using WsHalves = WsWidths<true, false, true>;

int hgemm_bf16_halves(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                      cudaStream_t s) {
  return launch_bf16<WsHalves, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_halves(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M, int N,
                          int K, int gelu_kind, cudaStream_t s) {
  if (gelu_kind == 0)
    return launch_bf16<WsHalves, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<WsHalves, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v19's and GEMM+bias+GELU v12's forms: v18's, with v19's 128x64 pairs along N where no
// width suits the shape; last, for the same reason as v18's.
int hgemm_bf16_a_multicast(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                           cudaStream_t s) {
  return launch_bf16<WsHalves, true>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_a_multicast(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                               int N, int K, int gelu_kind, cudaStream_t s) {
  if (gelu_kind == 0)
    return launch_bf16<WsHalves, true>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<WsHalves, true>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v21's and GEMM+bias+GELU v13's forms: v18's widths with the 128x256 tile's second half
// staged in the ring; last, for the same reason as v18's.
int hgemm_bf16_half_in_ring(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                            cudaStream_t s) {
  return launch_bf16<WsWidthsHalfInRing, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_half_in_ring(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsHalfInRing;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v22's and GEMM+bias+GELU v14's forms: v21's widths with the lean wgmma descriptors;
// last, for the same reason as v18's.
int hgemm_bf16_lean_everywhere(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                               cudaStream_t s) {
  return launch_bf16<WsWidthsLean, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_lean_everywhere(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                   int M, int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsLean;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v23's and GEMM+bias+GELU v15's forms: v22's kernels, the 64-wide one at 65..512 rows
// where the cost model picks it.
int hgemm_bf16_n64_mid_m(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                         cudaStream_t s) {
  return launch_bf16<WsWidthsN64MidM, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_n64_mid_m(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                             int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsN64MidM;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v24's and GEMM+bias+GELU v16's forms: v23's widths, each tile's epilogue under the next
// tile's first k-tiles.
int hgemm_bf16_epilogue_under_next(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                                   cudaStream_t s) {
  return launch_bf16<WsWidthsUnderNext, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_epilogue_under_next(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                       int M, int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsUnderNext;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// HGEMM v32's and GEMM+bias+GELU v20's forms: v23's widths, the cluster met once, relaxed,
// and left on the producer's tail.
int hgemm_bf16_producer_tail(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                             cudaStream_t s) {
  return launch_bf16<WsWidthsProducerTail, false>(A, B, C, M, N, K, EpiIdentity{}, s);
}

int bias_gelu_bf16_producer_tail(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                 int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsProducerTail;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<0, true, bf16>{bias}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGelu<1, true, bf16>{bias}, s);
}

// GEMM+bias+GELU v21's form: v20's, the bias loaded at each tile's start.
int bias_gelu_bf16_in_registers(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsProducerTail;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluEarly<0, bf16>{{bias}}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluEarly<1, bf16>{{bias}}, s);
}

// GEMM+bias+GELU v22's form: v21's, GELU applied by the epilogue warps.
int bias_gelu_bf16_epilogue_warps(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                  int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsEpilogueWarps;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<0, bf16>{{{bias}}}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<1, bf16>{{{bias}}}, s);
}

// GEMM+bias+GELU v23's form: v22's, the held half finished by the consumers.
int bias_gelu_bf16_held_half_by_consumers(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                          int M, int N, int K, int gelu_kind, cudaStream_t s) {
  using W = WsWidthsHeldHalfByConsumers;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<0, bf16>{{{bias}}}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<1, bf16>{{{bias}}}, s);
}

// GEMM+bias+GELU v24's form: v23's where the shape takes a 192- or 256-wide tile, else v21's.
int bias_gelu_bf16_epilogue_warps_wide_only(const bf16 *A, const bf16 *B, const bf16 *bias,
                                            bf16 *C, int M, int N, int K, int gelu_kind,
                                            cudaStream_t s) {
  const bool wide = gelu_kind == 0 ? epilogue_warps_pay_off<0, bf16>(M, N)
                                   : epilogue_warps_pay_off<1, bf16>(M, N);
  if (wide) return bias_gelu_bf16_held_half_by_consumers(A, B, bias, C, M, N, K, gelu_kind, s);
  return bias_gelu_bf16_in_registers(A, B, bias, C, M, N, K, gelu_kind, s);
}

// GEMM+bias+GELU v25's form: v24's, each CTA's last wide tile staggered.
int bias_gelu_bf16_staggered_last(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                  int N, int K, int gelu_kind, cudaStream_t s) {
  const bool wide = gelu_kind == 0 ? epilogue_warps_pay_off<0, bf16>(M, N)
                                   : epilogue_warps_pay_off<1, bf16>(M, N);
  if (!wide) return bias_gelu_bf16_in_registers(A, B, bias, C, M, N, K, gelu_kind, s);
  using W = WsWidthsStaggeredLast;
  if (gelu_kind == 0)
    return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<0, bf16>{{{bias}}}, s);
  return launch_bf16<W, false>(A, B, C, M, N, K, EpiBiasGeluSplit<1, bf16>{{{bias}}}, s);
}

}  // namespace rlg
