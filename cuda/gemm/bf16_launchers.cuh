// The GEMM family's bf16 launchers (defined in gemm_bf16.cu), which the variant tables of
// hgemm.cu, gemm_bias_gelu.cu and gemm_residual.cu name in their bf16 column: the bf16 form of
// each family's best step (HGEMM v23, GEMM+bias+GELU v15, GEMM+bias+residual v11) and of HGEMM
// v14 / v18 / v19 / v21 / v22 / v24 / v32 and GEMM+bias+GELU v7 / v11 / v12 / v13 / v14 / v16 /
// v20 (gemm::BF16_FORMS, gemm_gelu::BF16_FORMS),
// the paths of gemm/bf16_paths.cuh with the family's functor in bf16. They live in an object of
// their own so that the fp16 tables' objects hold exactly the kernels they held before bf16: in
// one module with the bf16 instantiations, which come first, the module's extern shared arrays
// were declared in another order and ptxas put the fp16 warp-specialized kernel's dynamic
// shared base 64 bytes lower (0x440, not 0x480: the same ring after its 1024-byte alignment,
// not the same SASS).
// Arguments as the tables' fp16 launchers, already checked by the extern "C" launcher; bf16
// data throughout.
#pragma once
#include <cuda_runtime.h>

#include "gemm/elem.cuh"

namespace rlg {

// C = A.B.
int hgemm_bf16(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K, cudaStream_t s);
// C = gelu(A.B + bias), gelu_kind 0 tanh, 1 erf.
int bias_gelu_bf16(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M, int N, int K,
                   int gelu_kind, cudaStream_t s);
// C = A.B + bias + R (R: M rows of N), R staged for the TMA store where the warp-specialized
// kernel runs (GEMM+bias+residual v11), else the paths of gemm/bf16_paths.cuh.
int bias_residual_bf16(const bf16 *A, const bf16 *B, const bf16 *bias, const bf16 *R, bf16 *C,
                       int M, int N, int K, cudaStream_t s);
// HGEMM v18's and GEMM+bias+GELU v11's forms: as hgemm_bf16 and bias_gelu_bf16, on v18's
// widths (the 128x256 tile staged half a tile at a time).
int hgemm_bf16_halves(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                      cudaStream_t s);
int bias_gelu_bf16_halves(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M, int N,
                          int K, int gelu_kind, cudaStream_t s);
// HGEMM v19's and GEMM+bias+GELU v12's forms: v18's, with v19's 128x64 pairs along N (A shared
// by multicast) where no width suits the shape.
int hgemm_bf16_a_multicast(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                           cudaStream_t s);
int bias_gelu_bf16_a_multicast(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                               int N, int K, int gelu_kind, cudaStream_t s);
// HGEMM v21's and GEMM+bias+GELU v13's forms: v18's, the 128x256 tile's second half staged in
// the ring stage its last k-tile emptied.
int hgemm_bf16_half_in_ring(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                            cudaStream_t s);
int bias_gelu_bf16_half_in_ring(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                int N, int K, int gelu_kind, cudaStream_t s);
// HGEMM v22's and GEMM+bias+GELU v14's forms: v21's, the wgmma descriptors moved on by adds at
// every width.
int hgemm_bf16_lean_everywhere(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                               cudaStream_t s);
int bias_gelu_bf16_lean_everywhere(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                   int M, int N, int K, int gelu_kind, cudaStream_t s);
// HGEMM v23's and GEMM+bias+GELU v15's forms: v22's kernels, the 64-wide one at 65..512 rows
// too (no new kernel: the same configurations, another choice).
int hgemm_bf16_n64_mid_m(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                         cudaStream_t s);
int bias_gelu_bf16_n64_mid_m(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                             int N, int K, int gelu_kind, cudaStream_t s);
// HGEMM v24's and GEMM+bias+GELU v16's forms: v23's widths, each tile's epilogue under the
// next tile's first k-tiles.
int hgemm_bf16_epilogue_under_next(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                                   cudaStream_t s);
int bias_gelu_bf16_epilogue_under_next(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                       int M, int N, int K, int gelu_kind, cudaStream_t s);
// HGEMM v32's and GEMM+bias+GELU v20's forms: v23's widths, the cluster met once, relaxed, and
// left on the producer's tail.
int hgemm_bf16_producer_tail(const bf16 *A, const bf16 *B, bf16 *C, int M, int N, int K,
                             cudaStream_t s);
int bias_gelu_bf16_producer_tail(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                 int N, int K, int gelu_kind, cudaStream_t s);
// GEMM+bias+GELU v21's form: v20's, the bias loaded at each tile's start.
int bias_gelu_bf16_in_registers(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                int N, int K, int gelu_kind, cudaStream_t s);
// GEMM+bias+GELU v22's form: v21's, GELU applied by the epilogue warps.
int bias_gelu_bf16_epilogue_warps(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                  int N, int K, int gelu_kind, cudaStream_t s);
// GEMM+bias+GELU v23's form: v22's, the held half finished by the consumers.
int bias_gelu_bf16_held_half_by_consumers(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C,
                                          int M, int N, int K, int gelu_kind, cudaStream_t s);
// GEMM+bias+GELU v24's form: v23's where the shape takes a 192- or 256-wide tile, else v21's.
int bias_gelu_bf16_epilogue_warps_wide_only(const bf16 *A, const bf16 *B, const bf16 *bias,
                                            bf16 *C, int M, int N, int K, int gelu_kind,
                                            cudaStream_t s);
// GEMM+bias+GELU v25's form: v24's, each CTA's last wide tile staggered.
int bias_gelu_bf16_staggered_last(const bf16 *A, const bf16 *B, const bf16 *bias, bf16 *C, int M,
                                  int N, int K, int gelu_kind, cudaStream_t s);

}  // namespace rlg
