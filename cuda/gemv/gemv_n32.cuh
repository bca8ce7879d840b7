// GEMV's 32-column slabs (v13, v14): 2..16 rows over all of K, no cluster.
// A part of gemv/gemv_common.cuh, which includes it after the shared constants and the parts
// before it, whose kernels and helpers it builds on.
namespace {

// ---------------------------------------------------------------- v13: 32-column slabs
// Where v12 runs the (1, 2) clusters (N / 64 slabs between a quarter and a half of the SMs:
// N = 4096 on an H200), 2..16 rows here take 32-column slabs over all of K instead, N / 32
// CTAs of 16 warps and no cluster. The probe scripts/device/probes/gemv_xp_parts.cu (in git at
// 877c669) timed
// v12's unit loop at 4096² with its parts switched off: the walk reaches the read (within
// ~0.1 us), and the whole gap (1.0 us at 2..8 rows, 1.5 at 16) is the end, of which the
// cluster's start, exchange and its waits take ~0.5 us and the reduction through shared
// memory the rest, growing with the floats it moves (16 warps x 32 lanes x 16 per 8 rows).
// Here no exchange, and half the sums per lane:
// - lane (g, t) loads 8 bytes (columns 4g .. 4g + 3) of rows 16t .. 16t + 15 of a unit of
//   64 rows of K, four groups of 4 rows; each group is the A operand of 2 MMAs per 8 rows of
//   x (v12: 16 bytes, 4 MMAs), x one 16-byte load per 8 of the lane's rows;
// - TOP's order over half-units of two groups (8 loads: the next half's loads issued before
//   the current half is multiplied), so the bytes in flight per lane stay v12's (two
//   half-units x 64 B);
// - the end sums only the rows below M (at 2 rows a quarter of the entries).
// The probe's copy measured 0.3-0.4 us faster than v12 at 2..8 rows and 0.2 at 16 (graph);
// the product 0.03-0.45 us (X8), where at 16 rows x's loads (twice v12's per byte of W: each
// CTA reads all of K of x) take back most of the end's gain.
// K % 64 == 0 and x 16-byte aligned (the host checks); a lane past N loads column N - 4, a
// lane past M loads row M - 1 of x (sums never stored).
// PREFETCH_ONE_PASS (GEMV v14; probe scripts/device/probes/gemv_n32_end.cu at 877c669, runs
// NE1, NE2): W's loads carry an L2 prefetch of their 256-byte block (the walk 0.1-0.2 us
// faster), and the end is one pass: lane l of warp w sums entry w of lane l over the 16 warps,
// its own warp's term from its registers, in v13's order (bitwise v13's y), and stores it; no
// part[], one barrier.
constexpr int kN32Cols = 32, kN32UnitK = 64;

// One half-unit of a 32-column slab's lane (v13, v14): its two groups of W words w[j], each
// the A operand of one MMA pair per 8 rows of x (the half's x words xa[h][h2]).
template <int XR>
__device__ __forceinline__ void n32_compute_half(WaAcc (&wacc)[XR], const uint2 (&w)[2][4],
                                                 const uint4 (&xa)[XR][2], int h2) {
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int h = 0; h < XR; ++h) {
      const uint4 v = xa[h][h2];
      wa_group_compute(wacc[h], w[j], j == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w));
    }
}

// v13's end, first half: every warp's sums of the rows below M into red[] (lane t of half h
// holds rows 8h + 2t, 8h + 2t + 1), then the barrier.
template <int MB>
__device__ __forceinline__ void n32_red_store(const WaAcc (&wacc)[MB / 8],
                                              float (*red)[32][MB + 1], int M) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, t = lane & 3;
#pragma unroll
  for (int h = 0; h < MB / 8; ++h)
    if (8 * h + 2 * t < M)
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) red[warp][lane][h * 8 + i * 4 + q] = wacc[h].v[i][q];
  __syncthreads();
}

// v13's end: red[] summed over the 16 warps into part[m * 32 + col], a second barrier, the store.
template <int MB>
__device__ __forceinline__ void n32_end_parts(const WaAcc (&wacc)[MB / 8],
                                              float (*red)[32][MB + 1], float *part, __half *y,
                                              int M, int N, int n0) {
  n32_red_store<MB>(wacc, red, M);
#pragma unroll
  for (int h = 0; h < MB / 8; ++h) {
    const int T = min(4, max(0, (M - 8 * h + 1) / 2));  // lanes t < T hold rows below M
    // Entry e: g fastest, then jj (i, q), then t, so that a warp's reads hit 32 banks.
    for (int e = threadIdx.x; e < T * 64; e += kSlabThreads) {
      const int gg = e % 8, jj = e / 8 % 8, tt = e / 64;
      float v = 0.0f;
#pragma unroll
      for (int w = 0; w < kSlabWarps; ++w) v += red[w][4 * gg + tt][h * 8 + jj];
      const int m = 8 * h + 2 * tt + (jj & 1), col = 4 * gg + 2 * (jj / 4) + (jj % 4 >> 1);
      part[m * kN32Cols + col] = v;
    }
  }
  __syncthreads();
  for (int e = threadIdx.x; e < M * kN32Cols; e += kSlabThreads) {
    const int m = e / kN32Cols, col = n0 + e % kN32Cols;
    if (col < N) y[(size_t)m * N + col] = __float2half_rn(part[e]);
  }
}

// v14's end, first half (see above): every entry of the lane's sums but its own (entry `warp`)
// into red[]; returns the own one. The caller's barrier follows.
template <int MB>
__device__ __forceinline__ float n32_own_to_red(const WaAcc (&wacc)[MB / 8],
                                                float (*red)[32][MB + 1], int M) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, t = lane & 3;
  float own = 0.0f;
#pragma unroll
  for (int h = 0; h < MB / 8; ++h)
    if (8 * h + 2 * t < M)
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int j = h * 8 + i * 4 + q;
          if (j == warp)
            own = wacc[h].v[i][q];
          else
            red[warp][lane][j] = wacc[h].v[i][q];
        }
  return own;
}

// v14's end, second half: entry `warp` of this lane summed over the 16 warps (its own term
// from `own`) and stored.
template <int MB>
__device__ __forceinline__ void n32_own_sum_store(float own, float (*red)[32][MB + 1], __half *y,
                                                  int M, int N, int n0) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  // Entry j of lane (g, t): row 8h + 2t + (q & 1), column 4g + 2i + (q >> 1) (j = 8h + 4i + q).
  const int j = warp, h = j / 8, i = j / 4 % 2, q = j % 4;
  const int m = 8 * h + 2 * t + (q & 1), col = n0 + 4 * g + 2 * i + (q >> 1);
  if (j >= MB || m >= M || col >= N) return;
  float v = 0.0f;
#pragma unroll
  for (int w = 0; w < kSlabWarps; ++w) v += w == warp ? own : red[w][lane][j];
  y[(size_t)m * N + col] = __float2half_rn(v);
}

// v14's end (see above): red[] holds every warp's entries but each lane's own (entry `warp`).
template <int MB>
__device__ __forceinline__ void n32_end_own(const WaAcc (&wacc)[MB / 8],
                                            float (*red)[32][MB + 1], __half *y, int M, int N,
                                            int n0) {
  const float own = n32_own_to_red<MB>(wacc, red, M);
  __syncthreads();
  n32_own_sum_store<MB>(own, red, y, M, N, n0);
}

template <int MB, bool PREFETCH_ONE_PASS>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_n32(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;  // a lane's rows per unit
  __shared__ float red[kSlabWarps][32][JS + 1];  // + 1: conflict-free both ways
  __shared__ float part[PREFETCH_ONE_PASS ? 1 : MB * kN32Cols];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);  // N % 8 == 0
  const int units = K / kN32UnitK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r)
    xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * kN32UnitK + LR * t;
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];           // [half-unit][group][row]
  uint4 xa[XR][2], xb[XR][2];  // x of the current and the next unit: [half][8 rows of K]
  size_t off = 0;
  const auto load_half = [&](uint2(&w)[2][4], int h2) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(8 * h2 + 4 * j) * N;
      const auto ld = [](const __half *p) {
        return PREFETCH_ONE_PASS ? ldg_stream8_l2(p) : ldg_stream8(p);
      };
      w[j][0] = ld(w0 + o);
      w[j][1] = ld(w1 + o);
      w[j][2] = ld(w2 + o);
      w[j][3] = ld(w3 + o);
    }
  };
  const auto load_x = [&](uint4(&v)[XR][2]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      v[r][0] = __ldg(reinterpret_cast<const uint4 *>(xp[r]));
      v[r][1] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + 8));
      xp[r] += kSlabWarps * kN32UnitK;
    }
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) {
    load_half(wb[0], 0);
    load_x(xa);
  }
  for (int u = 0; u < cntu; ++u) {
    load_half(wb[1], 1);
    n32_compute_half<XR>(wacc, wb[0], xa, 0);
    if (u + 1 < cntu) {  // the next unit's first half
      off += step;
      load_half(wb[0], 0);
      load_x(xb);
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  if constexpr (PREFETCH_ONE_PASS)
    n32_end_own<MB>(wacc, red, y, M, N, n0);
  else
    n32_end_parts<MB>(wacc, red, part, y, M, N, n0);
}

}  // namespace
