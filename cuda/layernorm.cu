// LayerNorm forward over rows: y = (x - mean) / sqrt(var + eps) * gamma + beta, fp16 in/out,
// fp32 statistics, biased variance (torch). HBM-bound: x read once and y written once is the floor.
//   v1: one block per row; the row is read from global memory three times (sum, sum of squared
//       deviations, output).
//   v2: the row is read once into registers (16-byte loads), both statistics are computed from
//       the registers (two-pass, exact), then normalized and written with 16-byte stores. One warp
//       per row up to hidden 1024 (shuffles only), a 128-thread block per row above (one smem
//       exchange per statistic). Templated on the per-thread vector count so the register array
//       is indexed by constants only. Rows whose hidden is not a multiple of 8, or unaligned
//       pointers, take the same code with scalar accesses; hidden > 16384 falls back to v1.
//   v3: v2 with gamma and beta fetched right after the row, before the statistics, where a
//       thread owns at most 4 vectors (hidden <= 4096): their L2 latency then overlaps the
//       row's HBM latency instead of following the two reductions. Above that, v2 (the extra
//       registers would spill).
//   v4: two rows per 128-thread block (hidden 1032..4096, 16-byte path): both rows' loads are in
//       flight together, the statistics are one pass of shifted sums (x - x[row][0] and its
//       square: one block exchange instead of two), and each gamma/beta vector serves both rows.
//       Everything else takes v2. (A parallel-Welford merge in place of the shifted sums
//       measured 11% slower than v2: its shuffle/divide chain sits on every row's path.)
//   v5: v4 with the two-pass statistics of v2 (mean, then squared deviations from registers).
//   v6: v4 launched with programmatic dependent launch (sm_90): each block lets the next
//       kernel in the stream launch as soon as it starts, and waits for the previous kernel to
//       finish (griddepcontrol.wait) before its first global access. Back to back, the next
//       launch's blocks are already resident, waiting, while this one drains; the results and
//       their ordering are exactly v4's. Below compute capability 9.0, v4.
#include "common.cuh"

namespace {

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---------------------------------------------------------------- v1
constexpr int kV1Threads = 256;

// Sum over the block, returned to every thread; scratch is free again when it returns.
__device__ float block_sum(float v, float *scratch) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.0f;
  for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += scratch[w];
  __syncthreads();
  return t;
}

__global__ void __launch_bounds__(kV1Threads)
    ln_v1(const __half *x, const __half *gamma, const __half *beta, __half *y, int hidden,
          float inv_hidden, float eps) {
  __shared__ float scratch[kV1Threads / 32];
  const size_t base = (size_t)blockIdx.x * hidden;
  const __half *xr = x + base;
  float s = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) s += __half2float(xr[i]);
  const float mean = block_sum(s, scratch) * inv_hidden;
  float q = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float d = __half2float(xr[i]) - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_sum(q, scratch) * inv_hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = (__half2float(xr[i]) - mean) * rstd;
    y[base + i] = __float2half_rn(v * __half2float(gamma[i]) + __half2float(beta[i]));
  }
}

// ---------------------------------------------------------------- v2
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


// ---------------------------------------------------------------- v4, v5
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
}  // namespace

extern "C" int rl_layernorm(int variant, const void *x, const void *gamma, const void *beta,
                            void *y, int rows, int hidden, float eps, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= 6 && x != nullptr && gamma != nullptr &&
             beta != nullptr && y != nullptr && rows >= 1 && hidden >= 1);
  const __half *xh = static_cast<const __half *>(x);
  const __half *gh = static_cast<const __half *>(gamma);
  const __half *bh = static_cast<const __half *>(beta);
  __half *yh = static_cast<__half *>(y);
  cudaStream_t s = rl_stream(stream);
  bool done = false;
  cudaError_t err = cudaSuccess;
  switch (variant) {
    case 2: done = launch_v2<false>(xh, gh, bh, yh, rows, hidden, eps, s); break;
    case 3: done = launch_v2<true>(xh, gh, bh, yh, rows, hidden, eps, s); break;
    case 4:
      done = launch_two_rows<false, false>(xh, gh, bh, yh, rows, hidden, eps, s, &err) ||
             launch_v2<false>(xh, gh, bh, yh, rows, hidden, eps, s);
      break;
    case 5:
      done = launch_two_rows<true, false>(xh, gh, bh, yh, rows, hidden, eps, s, &err) ||
             launch_v2<false>(xh, gh, bh, yh, rows, hidden, eps, s);
      break;
    case 6:  // PDL where the device has it, else v4's launch; v2 where the shape does not fit
      done = (rl_cc9_or_newer()
                  ? launch_two_rows<false, true>(xh, gh, bh, yh, rows, hidden, eps, s, &err)
                  : launch_two_rows<false, false>(xh, gh, bh, yh, rows, hidden, eps, s, &err)) ||
             launch_v2<false>(xh, gh, bh, yh, rows, hidden, eps, s);
      break;
    default: break;  // v1
  }
  if (!done)
    ln_v1<<<rows, kV1Threads, 0, s>>>(xh, gh, bh, yh, hidden, 1.0f / hidden, eps);
  if (err != cudaSuccess) return (int)err;
  return rl_launch_status();
}

extern "C" int rl_layernorm_variant_count(void) { return 6; }

extern "C" const char *rl_layernorm_variant_name(int variant) {
  switch (variant) {
    case 1: return "v1 block per row, three passes over global memory";
    case 2: return "v2 row read once into registers, 16-byte accesses, warp or block per row";
    case 3: return "v3 v2 with gamma/beta loaded with the row, before the statistics";
    case 4: return "v4 two rows per block, one-pass shifted statistics (hidden 1032..4096), else v2";
    case 5: return "v5 v4 with two-pass statistics from the registers (exact), else v2";
    case 6: return "v6 v4 with programmatic dependent launch (sm_90: the next launch waits resident)";
    default: return nullptr;
  }
}
