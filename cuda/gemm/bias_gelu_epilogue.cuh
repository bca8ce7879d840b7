// GEMM+bias+GELU's epilogue functor: C = gelu(A.B + bias[N]) with bias and GELU applied in
// fp32 before the one rounding to fp16, written once to the GEMM family's epilogue contract
// (gemm/epilogue.cuh) so that every M path of the plain GEMM runs it. The tanh form is
// rl_gelu_tanh_fast_half (hardware tanh), the erf form the logistic polynomial
// rl_gelu_erf_fast (gelu.cuh); the slab paths get the same epilogue as the run-time
// descriptor slab_epi() (their erf form: erff).
#pragma once
#include "gelu.cuh"
#include "gemm/epilogue.cuh"

namespace rlg {

// KIND: 0 tanh, 1 erf. PARK_IN_PARTS (GEMM+bias+GELU v3 on): with the tanh form a warp tile
// inside C is parked in 4 row parts (kParkParts), each part applied and stored before the next
// is parked (epilogue_parked in epilogue_parked.cuh); the same values. The erf form keeps the
// whole-tile park: its longer chain in 4 copies of the loop (one per part) made 2048³ 14%
// slower in run PK (the kernel's SASS grows from 4272 to 5952 instructions, run once per CTA:
// instruction fetch, a reading), though the probe's run PR found it 0.2-0.4 us faster
// (docs/perf-log.md): not settled.
// T: the element type of C and the bias (half; bf16 on the paths of gemm/bf16_paths.cuh).
template <int KIND, bool PARK_IN_PARTS, class T = half>
struct EpiBiasGelu {
  static constexpr bool kColOperand = true, kElemOperand = false;
  static constexpr int kParkParts = PARK_IN_PARTS && KIND == 0 ? 4 : 1;
  const T *bias;

  __host__ __device__ const T *col_operand() const { return bias; }
  // The tanh form takes bias / 2 (prep, once per column in registers): gelu(v + b) is then
  // rl_gelu_tanh_fast_half(fmaf(v, 0.5, b / 2)), one FFMA for the add and the halving.
  __device__ __forceinline__ float prep(float b) const { return rl_bias_gelu_prep(b, KIND); }
  __device__ __forceinline__ float apply1(float v, float op, int, int) const {
    return rl_bias_gelu_fast(v, op, KIND);
  }

  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], const float (&op)[8], int row, int col0,
                                        int) const {
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = apply1(v[i], op[i], row, col0 + i);
  }

  bool vec_ok() const { return aligned_to(bias, 16); }
  SlabEpi slab_epi() const {
    static_assert(std::is_same_v<T, half>, "the GEMV's slabs are fp16 kernels");
    return {bias, KIND};
  }
};

}  // namespace rlg
