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

// 8 fp16 values (16-byte aligned) -> fp32.
__device__ __forceinline__ void unpack8(const uint4 &raw, float (&f)[8]) {
  const __half2 *h2 = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = __half22float2(h2[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}

__device__ __forceinline__ uint4 pack8(const float (&f)[8]) {
  uint4 raw;
  __half2 *h2 = reinterpret_cast<__half2 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) h2[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
  return raw;
}

// KIND: 0 tanh, 1 erf. PARK_IN_PARTS (GEMM+bias+GELU v3 on): with the tanh form a warp tile
// inside C is parked in 4 row parts (kParkParts), each part applied and stored before the next
// is parked (epilogue_parked in epilogue_parked.cuh); the same values. The erf form keeps the
// whole-tile park: its longer chain in 4 copies of the loop (one per part) made 2048³ 14%
// slower in run PK (the kernel's SASS grows from 4272 to 5952 instructions, run once per CTA:
// instruction fetch, a reading), though the probe's run PR found it 0.2-0.4 us faster
// (docs/perf-log.md): not settled.
template <int KIND, bool PARK_IN_PARTS>
struct EpiBiasGelu {
  static constexpr bool kColOperand = true;
  static constexpr int kParkParts = PARK_IN_PARTS && KIND == 0 ? 4 : 1;
  const half *bias;

  __host__ __device__ const half *col_operand() const { return bias; }
  // The tanh form takes bias / 2 (prep, once per column in registers): gelu(v + b) is then
  // rl_gelu_tanh_fast_half(fmaf(v, 0.5, b / 2)), one FFMA for the add and the halving.
  __device__ __forceinline__ float prep(float b) const { return rl_bias_gelu_prep(b, KIND); }
  __device__ __forceinline__ float apply1(float v, float op) const {
    return rl_bias_gelu_fast(v, op, KIND);
  }

  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], int col0, int N) const {
    float b[8];
    if constexpr (VEC) {
      unpack8(__ldg(reinterpret_cast<const uint4 *>(bias + col0)), b);
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) b[i] = col0 + i < N ? __half2float(__ldg(bias + col0 + i)) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = apply1(v[i], prep(b[i]));
  }

  bool vec_ok() const { return aligned_to(bias, 16); }
  SlabEpi slab_epi() const { return {bias, KIND}; }
};

}  // namespace rlg
