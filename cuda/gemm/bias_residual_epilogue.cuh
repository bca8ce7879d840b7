// GEMM+bias+residual's epilogue functor: C = A.B + bias[N] + R[M x N], the output projection of
// a transformer block with its residual connection (x + (h.W + b)): bias, then the residual, no
// activation after, both added in fp32 before the one rounding to fp16. Written once to the GEMM
// family's epilogue contract (gemm/epilogue.cuh), it runs on every M path: the WMMA tiles (VEC:
// the bias and the residual's row read 16 bytes at a time), the parked and split-K epilogues and
// both wgmma tiles (apply, apply1: one element at (row, col)), and, through slab_epi(), the
// GEMV's slabs (SlabEpiResidual: slab kernels instantiated for the residual alone, so the
// GEMV's own and the plain GEMM's keep theirs unchanged). The few-row wgmma tile runs the
// functor itself (its own instantiation, not the shared one: SharesRuntimeForm).
#pragma once
#include "gemm/epilogue.cuh"

namespace rlg {

// T: the element type of C, the bias and the residual (half; bf16 on the paths of
// gemm/bf16_paths.cuh). EpiBiasResidual is the fp16 form every path runs.
template <class T>
struct EpiBiasResidualT {
  static constexpr bool kColOperand = true, kElemOperand = true;
  const T *bias;      // N values
  const T *residual;  // M rows of ld values (ld = N for rl_gemm_residual)
  int ld;

  __host__ __device__ const T *col_operand() const { return bias; }
  __device__ __forceinline__ float prep(float b) const { return b; }
  __device__ __forceinline__ float apply1(float v, float b, int row, int col) const {
    return v + b + Elem<T>::to_float(__ldg(residual + static_cast<size_t>(row) * ld + col));
  }

  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], const float (&b)[8], int row, int col0,
                                        int N) const {
    float r[8];
    load_operand8<VEC>(residual + static_cast<size_t>(row) * ld + col0, col0, N, r);
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = v[i] + b[i] + r[i];
  }

  bool vec_ok() const { return aligned_to(bias, 16) && aligned_to(residual, 16) && ld % 8 == 0; }
  SlabEpiResidual slab_epi() const {
    static_assert(std::is_same_v<T, half>, "the GEMV's slabs are fp16 kernels");
    return {bias, -1, residual, ld};
  }
};
using EpiBiasResidual = EpiBiasResidualT<half>;

// The same functor with R staged in shared memory by the warp-specialized kernel
// (ws_staged_operand.cuh: residual v11); only that kernel takes it (its static_assert).
template <class T>
struct EpiBiasResidualStagedT : EpiBiasResidualT<T> {
  static constexpr bool kStagedOperand = true;
  __host__ __device__ const T *elem_operand() const { return this->residual; }
  __device__ __forceinline__ float apply_staged(float v, float b, float r) const {
    return v + b + r;
  }
};
using EpiBiasResidualStaged = EpiBiasResidualStagedT<half>;

}  // namespace rlg
