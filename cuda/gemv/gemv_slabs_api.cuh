// The GEMV family's interface to the GEMM family: its slab kernels as a small-M GEMM, the one
// way the GEMM family reaches into the GEMV (gemv.cu defines these; nothing else of the GEMV's
// is part of the contract). At M <= 16 the GEMM's tiles waste most of every MMA and its
// split-K ends in a reduction tail; the slabs stream W once at the read's pace and finish each
// output in one block, so an epilogue is a few instructions at their store. HGEMM v8 on and
// GEMM+bias+GELU v1 on run them (cuda/gemm/hgemm_08_gemv_slabs.cuh), as does GEMM+bias+residual.
//
// Contract: y[M x N] = epi(x[M x K] . W[K x N]), fp16 in and out, fp32 accumulation, row-major;
// a launcher only enqueues work on `stream` and sets *launched when a kernel suits the shape
// (nothing is launched otherwise, and the caller takes another path); it returns 0 or a
// cudaError_t. The epilogue is a run-time descriptor, applied to each fp32 result before the
// one rounding to fp16: SlabEpi (a bias and a GELU), whose one instantiation of each kernel
// serves the GEMV itself, the plain GEMM and GEMM+bias+GELU; or SlabEpiResidual (SlabEpi and a
// residual), whose kernels are instantiations of their own, built for GEMM+bias+residual only.
// The residual is a compile-time property: with it in SlabEpi, tested at every store, the
// GEMV's own kernels (which never have one) measured ~8% slower at one row on the H200
// (docs/perf-log.md, GEMM + bias + residual).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gelu.cuh"

// What the slab kernels apply to each fp32 result y[row, col] before the one rounding to fp16:
// y = act(v + bias[col]); bias null: no bias; gelu -1: no activation, else rl_gelu_fused's kind.
// The run-time form of the GEMM family's epilogue contract (gemm/epilogue.cuh), so it too takes
// the output's row and column (this one reads no operand by row).
struct SlabEpi {
  const __half *bias;
  int gelu;

  // At kernel start: pulls the bias of columns [col0, col0 + 64) into L2, so that the loads
  // at the store, after the last sum, do not wait for HBM. (Holding the value in a register
  // through the main loop instead spills in the 16-row kernel, which has 128 registers.)
  __device__ __forceinline__ void prefetch(int col0, int N) const {
    if (bias == nullptr || threadIdx.x >= 2) return;
    const int col = col0 + 63 * threadIdx.x;  // first and last column: at most two lines
    if (col < N) asm volatile("prefetch.global.L2 [%0];" ::"l"(bias + col));
  }
  __device__ __forceinline__ float operator()(float v, int row, int col) const {
    if (bias != nullptr) v += __half2float(bias[col]);
    return after_bias(v, row, col);
  }
  // What follows the bias (a staged bias is added by the caller).
  __device__ __forceinline__ float after_bias(float v, int, int) const { return act(v); }
  __device__ __forceinline__ float act(float v) const {  // the activation alone
    return gelu < 0 ? v : rl_gelu_fused(v, gelu);
  }
};

constexpr SlabEpi kSlabNoEpi = {nullptr, -1};

// SlabEpi with a residual: y = act(v + bias[col]) + residual[row * ld + col], the residual
// (never null; ld elements a row) added after the bias and the activation, in fp32. The same
// members as SlabEpi, so the slab kernels take either as their Epi; SlabEpi is a private base,
// so a SlabEpiResidual never converts to a SlabEpi (which would drop the residual).
struct SlabEpiResidual : private SlabEpi {
  const __half *residual;
  int ld;

  constexpr SlabEpiResidual(const __half *bias_, int gelu_, const __half *residual_, int ld_)
      : SlabEpi{bias_, gelu_}, residual(residual_), ld(ld_) {}
  using SlabEpi::act;
  using SlabEpi::bias;
  using SlabEpi::gelu;
  using SlabEpi::prefetch;
  __device__ __forceinline__ float operator()(float v, int row, int col) const {
    return SlabEpi::operator()(v, row, col) + at(row, col);
  }
  __device__ __forceinline__ float after_bias(float v, int row, int col) const {
    return SlabEpi::after_bias(v, row, col) + at(row, col);
  }
  __device__ __forceinline__ float at(int row, int col) const {  // the residual's element
    return __half2float(residual[static_cast<size_t>(row) * ld + col]);
  }
};

// The register slabs at M <= 16 (N % 8 == 0, 16-byte aligned W, a slab grid of half to one
// wave): one row on the one-row slab, 2..8 rows in GEMV v10's loop order where K % 16 == 0 and
// x is 8-byte aligned, else W as the MMA's A operand; 16-row groups above; the (1, 2) clusters
// send their partial sums by st.async onto the peer's mbarrier, and one row in a cluster
// stages x first (GEMV v11's forms). The residual's overload runs the same forms, chosen alike.
int rl_gemv_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpi epi, cudaStream_t stream, bool *launched);
int rl_gemv_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpiResidual epi, cudaStream_t stream, bool *launched);

// The TMA slabs at 9..64 rows (sm_90; N and K multiples of 8, 16-byte aligned x and W, a slab
// grid of half to one wave, clusters of 2 where the slabs alone are fewer, their sums sent as
// above, at most 3 m-tiles x 8192 of K per CTA). stage_bias: the kernel copies the slab's 64
// bias values into shared memory at its start (the fused family's staged bias). With a residual
// only that staged form is built: stage_bias false launches nothing.
int rl_gemv_tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                           SlabEpi epi, bool stage_bias, cudaStream_t stream, bool *launched);
int rl_gemv_tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                           SlabEpiResidual epi, bool stage_bias, cudaStream_t stream,
                           bool *launched);
