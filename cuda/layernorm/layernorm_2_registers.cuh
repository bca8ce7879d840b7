// LayerNorm v2 "registers": the row is read once into registers (16-byte loads), both
// statistics are computed from the registers (two-pass, exact), then normalized and written
// with 16-byte stores. One warp per row up to hidden 1024 (shuffles only), a 128-thread block
// per row above (one smem exchange per statistic). Templated on the per-thread vector count so
// the register array is indexed by constants only. Rows whose hidden is not a multiple of 8, or
// unaligned pointers, take the same code with scalar accesses; hidden > 16384 falls back to v1.
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; report F): 32768x4096 3970 GB/s = 96.2%
// of the copy ceiling in one launch; 4096x4096 in graph timing 3435 GB/s = 83.2% cold, 85.1%
// hot (predicted 88-92% and 82-87%).
#pragma once
#include "layernorm/layernorm_1_three_passes.cuh"

namespace rln {

// VEC halves per access: 8 (one 16-byte vector) or 1 (scalar path).
template <int VEC>
struct Pack;
template <>
struct Pack<8> {
  uint4 v;
  __device__ __forceinline__ void load(const __half *p) { v = *reinterpret_cast<const uint4 *>(p); }
  __device__ __forceinline__ void load_ro(const __half *p) {
    v = __ldg(reinterpret_cast<const uint4 *>(p));
  }
  __device__ __forceinline__ void zero() { v = make_uint4(0, 0, 0, 0); }
  __device__ __forceinline__ void to_float(float (&f)[8]) const {
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 t = __half22float2(h[j]);
      f[2 * j] = t.x;
      f[2 * j + 1] = t.y;
    }
  }
  __device__ __forceinline__ void store(__half *p, const float (&f)[8]) const {
    uint4 o;
    __half2 *h = reinterpret_cast<__half2 *>(&o);
#pragma unroll
    for (int j = 0; j < 4; ++j) h[j] = __floats2half2_rn(f[2 * j], f[2 * j + 1]);
    *reinterpret_cast<uint4 *>(p) = o;
  }
};
template <>
struct Pack<1> {
  __half v;
  __device__ __forceinline__ void load(const __half *p) { v = *p; }
  __device__ __forceinline__ void load_ro(const __half *p) { v = __ldg(p); }
  __device__ __forceinline__ void zero() { v = __float2half_rn(0.0f); }
  __device__ __forceinline__ void to_float(float (&f)[1]) const { f[0] = __half2float(v); }
  __device__ __forceinline__ void store(__half *p, const float (&f)[1]) const {
    *p = __float2half_rn(f[0]);
  }
};

// Sum over the WPR warps that share a row. For WPR > 1 a block holds exactly one row; each call
// gets its own red[] so that back-to-back calls need no second barrier.
template <int WPR>
__device__ __forceinline__ float row_sum(float v, float *red) {
  v = warp_sum(v);
  if constexpr (WPR > 1) {
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = 0.0f;
#pragma unroll
    for (int w = 0; w < WPR; ++w) v += red[w];
  }
  return v;
}

// A row is handled by WPR warps (T = 32 WPR threads); thread tr owns the accesses
// c = tr + j T, j < VPT, each covering elements [c VEC, c VEC + VEC). A block holds RPB rows.
// PRE: gamma and beta are loaded with the row (2 VPT more vectors in registers).
template <int VEC, int VPT, int WPR, int RPB, bool PRE>
__global__ void __launch_bounds__(32 * WPR * RPB)
    ln_reg(const __half *x, const __half *gamma, const __half *beta, __half *y, int rows,
           int hidden, float inv_hidden, float eps) {
  static_assert(WPR == 1 || RPB == 1, "row_sum assumes one row per block when WPR > 1");
  constexpr int T = 32 * WPR;
  __shared__ float red[2][WPR];
  const int warp = threadIdx.x >> 5;
  const int tr = (warp % WPR) * 32 + (threadIdx.x & 31);
  const long long row = (long long)blockIdx.x * RPB + warp / WPR;
  if (row >= rows) return;  // only warp-per-row blocks can overhang, and they have no barrier
  const size_t base = (size_t)row * hidden;

  Pack<VEC> raw[VPT], gpre[PRE ? VPT : 1], bpre[PRE ? VPT : 1];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = tr + j * T;
    if (c * VEC < hidden)
      raw[j].load(x + base + c * VEC);
    else
      raw[j].zero();  // adds 0 to the sum; skipped in the deviations below
  }
  if constexpr (PRE) {
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      const int c = tr + j * T;
      if (c * VEC < hidden) {
        gpre[j].load_ro(gamma + c * VEC);
        bpre[j].load_ro(beta + c * VEC);
      }
    }
  }

  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    float f[VEC];
    raw[j].to_float(f);
#pragma unroll
    for (int e = 0; e < VEC; ++e) s += f[e];
  }
  const float mean = row_sum<WPR>(s, red[0]) * inv_hidden;

  // Second pass over the registers: sum of squared deviations (no E[x^2] - mean^2 cancellation).
  float q = 0.0f;
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    if ((tr + j * T) * VEC < hidden) {
      float f[VEC];
      raw[j].to_float(f);
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const float d = f[e] - mean;
        q += d * d;
      }
    }
  }
  const float rstd = rsqrtf(row_sum<WPR>(q, red[1]) * inv_hidden + eps);

  // Without PRE gamma/beta are loaded here, one pair per j behind its bounds check (L1/L2
  // hits), after both reductions: fewer registers, but their latency is on the row's chain.
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = tr + j * T;
    if (c * VEC < hidden) {
      Pack<VEC> g, b;
      if constexpr (PRE) {
        g = gpre[j];
        b = bpre[j];
      } else {
        g.load_ro(gamma + c * VEC);
        b.load_ro(beta + c * VEC);
      }
      float f[VEC], gf[VEC], bf[VEC];
      raw[j].to_float(f);
      g.to_float(gf);
      b.to_float(bf);
#pragma unroll
      for (int e = 0; e < VEC; ++e) f[e] = (f[e] - mean) * rstd * gf[e] + bf[e];
      raw[j].store(y + base + c * VEC, f);
    }
  }
}

template <int VEC, int VPT, int WPR, int RPB, bool PRE = false>
void launch_reg(const __half *x, const __half *gamma, const __half *beta, __half *y, int rows,
                int hidden, float eps, cudaStream_t s) {
  const int grid = (int)rl_ceil_div(rows, RPB);
  ln_reg<VEC, VPT, WPR, RPB, PRE>
      <<<grid, 32 * WPR * RPB, 0, s>>>(x, gamma, beta, y, rows, hidden, 1.0f / hidden, eps);
}

// Picks the smallest bucket whose T * VPT accesses cover the row. Returns false if none does.
// PRE: v3 (gamma/beta with the row) for the 16-byte buckets of at most 4 vectors per thread.
template <bool PRE>
bool launch_v2(const __half *x, const __half *g, const __half *b, __half *y, int rows, int hidden,
               float eps, cudaStream_t s) {
  const bool vec = hidden % 8 == 0 && (uintptr_t)x % 16 == 0 && (uintptr_t)y % 16 == 0 &&
                   (uintptr_t)g % 16 == 0 && (uintptr_t)b % 16 == 0;
  if (vec) {
    const int nv = hidden / 8;  // 16-byte accesses per row
    if (nv <= 32) launch_reg<8, 1, 1, 4, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 64) launch_reg<8, 2, 1, 4, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 96) launch_reg<8, 3, 1, 4, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 128) launch_reg<8, 4, 1, 4, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 256) launch_reg<8, 2, 4, 1, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 384) launch_reg<8, 3, 4, 1, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 512) launch_reg<8, 4, 4, 1, PRE>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 768) launch_reg<8, 6, 4, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 1024) launch_reg<8, 8, 4, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 1536) launch_reg<8, 12, 4, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (nv <= 2048) launch_reg<8, 16, 4, 1>(x, g, b, y, rows, hidden, eps, s);
    else return false;
  } else {
    if (hidden <= 32) launch_reg<1, 1, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 64) launch_reg<1, 2, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 128) launch_reg<1, 4, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 256) launch_reg<1, 8, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 512) launch_reg<1, 16, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 1024) launch_reg<1, 32, 1, 4>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 2048) launch_reg<1, 4, 16, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 4096) launch_reg<1, 8, 16, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 8192) launch_reg<1, 16, 16, 1>(x, g, b, y, rows, hidden, eps, s);
    else if (hidden <= 16384) launch_reg<1, 16, 32, 1>(x, g, b, y, rows, hidden, eps, s);
    else return false;
  }
  return true;
}

// The register kernel where a bucket covers the row, else v1; PRE: gamma and beta with the
// row (v3).
template <bool PRE>
int layernorm_registers(const __half *x, const __half *g, const __half *b, __half *y, int rows,
                        int hidden, float eps, cudaStream_t s) {
  if (!launch_v2<PRE>(x, g, b, y, rows, hidden, eps, s))
    launch_three_passes(x, g, b, y, rows, hidden, eps, s);
  return rl_launch_status();
}

constexpr auto layernorm_v2 = layernorm_registers<false>;

}  // namespace rln
