// The GEMV slab kernels (gemv.cu, v8/v9) as a small-M GEMM for the HGEMM families (v14 of
// hgemm.cu and gemm_gelu.cu). At M <= 16 the HGEMM's tiles waste most of every MMA and its
// split-K ends in a reduction tail; the slabs stream W once at the read's pace and finish each
// output in one block, so an epilogue is a few instructions at their store.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gelu.cuh"

// What the slab kernels apply to each fp32 result before the one rounding to fp16:
// y = act(v + bias[col]); bias null: no bias; gelu -1: no activation, else rl_gelu_fused's kind.
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
  __device__ __forceinline__ float operator()(float v, int col) const {
    if (bias != nullptr) v += __half2float(bias[col]);
    return act(v);
  }
  __device__ __forceinline__ float act(float v) const {  // the activation alone
    return gelu < 0 ? v : rl_gelu_fused(v, gelu);
  }
};

constexpr SlabEpi kSlabNoEpi = {nullptr, -1};

// A SlabEpi whose bias was staged: columns n0 .. n0 + 63 read from bias_s[col - n0] when
// bias_s is set, else from global memory as SlabEpi does.
struct SlabEpiAt {
  SlabEpi epi;
  const __half *bias_s;
  int n0;
  __device__ __forceinline__ float operator()(float v, int col) const {
    if (bias_s != nullptr) return epi.act(v + __half2float(bias_s[col - n0]));
    return epi(v, col);
  }
};

// Enqueues the GEMV's v9 slab kernel for y = epi(x . W) when one suits the shape (M <= 16,
// N % 8 == 0, 16-byte aligned W, a slab grid of half to one wave); *launched says whether it
// did. push (HGEMM v17): 1, a cluster pushes its partial sums to its peer (GEMV v13); 2
// (HGEMM v21), by st.async counted on the peer's mbarrier (GEMV v15); 0, it pulls them. top
// 1 (HGEMM v18): 2..8 rows run GEMV v14's kernel (issue-first, two groups in flight) where
// K % 16 == 0 and x is 8-byte aligned; 2: GEMV v16's (the same in units of two groups with
// one 16-byte x load each) where also K % 32 == 0 and x is 16-byte aligned. Returns 0 or a
// cudaError_t.
int rl_gemv_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                        SlabEpi epi, int push, cudaStream_t stream, bool *launched,
                        int top = 0);

// HGEMM v16: the GEMV's TMA slab kernel for y = epi(x . W) at 9..64 rows (sm_90; N and K
// multiples of 8, 16-byte aligned x and W, a slab grid of half to one wave, clusters of 2
// where the slabs alone are fewer, at most 3 m-tiles x 8192 of K per CTA); *launched says
// whether it applied; push as above; stageb (HGEMM v19, with push): the kernel copies the
// slab's 64 bias values into shared memory at its start. Returns 0 or a cudaError_t.
int rl_gemv_tma_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpi epi, int push, cudaStream_t stream, bool *launched,
                       bool stageb = false);
