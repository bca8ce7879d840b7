// LayerNorm v4 "two_rows": two rows per 128-thread block (hidden 1032..4096, 16-byte path; 72
// registers: 7 blocks = 14 rows in flight per SM, v2: 9): both rows' loads are in flight
// together, the statistics are one pass of shifted sums (x - x[row][0] and its square: one
// block exchange instead of two), and each gamma/beta vector serves both rows. Everything else
// takes v2. (A parallel-Welford merge in place of the shifted sums measured 11% slower than
// v2: its shuffle/divide chain sits on every row's path.)
//
// Measured on the H200 (docs/perf-log.md, LayerNorm; V2): 4096x4096 in graph timing 3492 GB/s
// = 84.6% (v2 83.1% in the same run), 32768x4096 94.7% (= v2); predicted 86-89%.
#pragma once
#include "layernorm/layernorm_2_registers.cuh"

namespace rln {

// Thread tr owns vectors c = tr + 128 j (j < VPT) of rows 2 blockIdx.x and 2 blockIdx.x + 1.
// TWO_PASS false (v4): statistics from sums of d = x - x[row][0] and d^2 in one pass (one
// block exchange); the shift keeps the sums small where the mean is large against the spread.
// TWO_PASS true (v5): the mean, then the sum of squared deviations from the registers (two
// exchanges, exact). Either way each gamma/beta vector is loaded once for both rows.
// PDL (v6): the launch was made with programmatic stream serialization allowed; the block
// releases its dependents at once and waits for its own predecessor before touching memory.
template <int VPT, bool TWO_PASS, bool PDL>
__global__ void __launch_bounds__(128)
    ln_two_rows(const __half *x, const __half *gamma, const __half *beta, __half *y, int rows,
                int hidden, float inv_hidden, float eps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (PDL) {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }
#endif
  __shared__ float red[2][4][4];
  const int tr = threadIdx.x, lane = tr & 31, warp = tr >> 5;
  const long long r0 = 2LL * blockIdx.x;
  const bool has1 = r0 + 1 < rows;
  const __half *x0 = x + (size_t)r0 * hidden, *x1 = x0 + hidden;
  Pack<8> a[VPT], b[VPT];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = tr + j * 128;
    if (c * 8 < hidden) {
      a[j].load(x0 + c * 8);
      if (has1) b[j].load(x1 + c * 8); else b[j].zero();
    }
  }
  // Sums over the block of v[0..N) (every thread gets them); exchange k uses its own slot.
  auto block_sums = [&](float (&v)[4], int k) {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = warp_sum(v[i]);
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < 4; ++i) red[k][warp][i] = v[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = red[k][0][i] + red[k][1][i] + red[k][2][i] + red[k][3][i];
  };
  // v[0], v[1]: the two rows' sums of (x - s0), (x - s1); v[2], v[3] of their squares.
  auto row_sums = [&](float s0, float s1, bool squares, float (&v)[4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = 0.0f;
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
      if ((tr + j * 128) * 8 < hidden) {
        float fa[8], fb[8];
        a[j].to_float(fa);
        b[j].to_float(fb);
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const float d0 = fa[e] - s0, d1 = fb[e] - s1;
          if (!squares) {
            v[0] += d0;
            v[1] += d1;
          }
          if (squares || !TWO_PASS) {
            v[2] = fmaf(d0, d0, v[2]);
            v[3] = fmaf(d1, d1, v[3]);
          }
        }
      }
    }
  };
  float v[4], mean0, mean1, var0, var1;
  if constexpr (TWO_PASS) {
    row_sums(0.0f, 0.0f, false, v);
    block_sums(v, 0);
    mean0 = v[0] * inv_hidden;
    mean1 = v[1] * inv_hidden;
    row_sums(mean0, mean1, true, v);
    block_sums(v, 1);
    var0 = v[2] * inv_hidden;
    var1 = v[3] * inv_hidden;
  } else {
    const float sh0 = __half2float(x0[0]), sh1 = has1 ? __half2float(x1[0]) : 0.0f;
    row_sums(sh0, sh1, false, v);
    block_sums(v, 0);
    const float m0 = v[0] * inv_hidden, m1 = v[1] * inv_hidden;
    var0 = fmaxf(v[2] * inv_hidden - m0 * m0, 0.0f);
    var1 = fmaxf(v[3] * inv_hidden - m1 * m1, 0.0f);
    mean0 = sh0 + m0;
    mean1 = sh1 + m1;
  }
  const float rstd0 = rsqrtf(var0 + eps), rstd1 = rsqrtf(var1 + eps);
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = tr + j * 128;
    if (c * 8 < hidden) {
      Pack<8> g, bb;
      g.load_ro(gamma + c * 8);
      bb.load_ro(beta + c * 8);
      float gf[8], bf[8], f[8];
      g.to_float(gf);
      bb.to_float(bf);
      a[j].to_float(f);
#pragma unroll
      for (int e = 0; e < 8; ++e) f[e] = (f[e] - mean0) * rstd0 * gf[e] + bf[e];
      a[j].store(y + (size_t)r0 * hidden + c * 8, f);
      if (has1) {
        b[j].to_float(f);
#pragma unroll
        for (int e = 0; e < 8; ++e) f[e] = (f[e] - mean1) * rstd1 * gf[e] + bf[e];
        b[j].store(y + (size_t)(r0 + 1) * hidden + c * 8, f);
      }
    }
  }
}

// One launch of ln_two_rows; PDL: with programmatic stream serialization (v6).
template <int VPT, bool TWO_PASS, bool PDL>
cudaError_t launch_two_rows_kernel(const __half *x, const __half *g, const __half *b, __half *y,
                                   int rows, int hidden, float eps, cudaStream_t s) {
  const unsigned grid = (unsigned)rl_ceil_div(rows, 2);
  const float inv = 1.0f / hidden;
  if constexpr (!PDL) {
    ln_two_rows<VPT, TWO_PASS, false><<<grid, 128, 0, s>>>(x, g, b, y, rows, hidden, inv, eps);
    return cudaSuccess;
  } else {
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(grid, 1, 1);
    lc.blockDim = dim3(128, 1, 1);
    lc.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    lc.attrs = attr;
    lc.numAttrs = 1;
    return cudaLaunchKernelEx(&lc, ln_two_rows<VPT, TWO_PASS, true>, x, g, b, y, rows, hidden,
                              inv, eps);
  }
}

// v4 / v5 (TWO_PASS) / v6 (PDL) where they apply (16-byte path, 128 < hidden / 8 <= 512);
// false: use v2. A refused launch is reported through *err.
template <bool TWO_PASS, bool PDL>
bool launch_two_rows(const __half *x, const __half *g, const __half *b, __half *y, int rows,
                     int hidden, float eps, cudaStream_t s, cudaError_t *err) {
  const bool vec = hidden % 8 == 0 && (uintptr_t)x % 16 == 0 && (uintptr_t)y % 16 == 0 &&
                   (uintptr_t)g % 16 == 0 && (uintptr_t)b % 16 == 0;
  const int nv = hidden / 8;
  if (!vec || nv <= 128 || nv > 512) return false;
  if (nv <= 256)
    *err = launch_two_rows_kernel<2, TWO_PASS, PDL>(x, g, b, y, rows, hidden, eps, s);
  else if (nv <= 384)
    *err = launch_two_rows_kernel<3, TWO_PASS, PDL>(x, g, b, y, rows, hidden, eps, s);
  else
    *err = launch_two_rows_kernel<4, TWO_PASS, PDL>(x, g, b, y, rows, hidden, eps, s);
  return true;
}


// The status of a two-row launch that happened: its launch error, else the last error.
inline int two_rows_status(cudaError_t err) {
  return err != cudaSuccess ? (int)err : rl_launch_status();
}

// The two-row kernel where it takes the shape, else v2; TWO_PASS: v5's statistics.
template <bool TWO_PASS>
int layernorm_two_rows(const __half *x, const __half *g, const __half *b, __half *y, int rows,
                       int hidden, float eps, cudaStream_t s) {
  cudaError_t err = cudaSuccess;
  if (launch_two_rows<TWO_PASS, false>(x, g, b, y, rows, hidden, eps, s, &err))
    return two_rows_status(err);
  return layernorm_v2(x, g, b, y, rows, hidden, eps, s);
}

constexpr auto layernorm_v4 = layernorm_two_rows<false>;

}  // namespace rln
