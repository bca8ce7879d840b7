// GEMV's tensor-core path (v4: mma.sync on W fragments, split-K through the workspace), whose
// groups and fragments the register slabs reuse.
// A part of gemv/gemv_common.cuh, which includes it after the shared constants and the parts
// before it, whose kernels and helpers it builds on.
namespace {

// ---------------------------------------------------------------- tensor-core path (v4)
// mma.sync m16n8k16: A = 16 rows of x (rows >= M are zero) x 16 k, B = 16 k x 8 columns of W.
// B wants pairs along k in one register, W holds pairs along n, so the k order inside a group
// of 16 rows is permuted (any permutation works if A uses the same): lane (g, t) = (lane / 4,
// lane % 4) loads rows k0 + 4t + {0,1,2,3} at columns n0 + 8g .. +8 (four 16-byte loads; each
// warp load is 4 rows x 128 contiguous bytes). For column n0 + 8g + i it forms
// b0 = {W[4t][.], W[4t+1][.]} and b1 = {W[4t+2][.], W[4t+3][.]} with byte permutes: fragment rows
// 2t, 2t+1, 2t+8, 2t+9 stand for k0 + 4t + 0..3. So the A registers of lane (g, t) are
// x[g][k0+4t .. +3] (a0, a2) and x[g+8][..] (a1, a3): 8 contiguous bytes each.
// MMA number i (0..7) accumulates D_i[m][nf] = y[m][n0 + 8 nf + i]; lane (g, t) holds
// m = g, g + 8 and nf = 2t, 2t + 1.
__device__ __forceinline__ void mma_16816(float &d0, float &d1, float &d2, float &d3, unsigned a0,
                                          unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                          unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned pack_half2(__half lo, __half hi) {
  return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}

// x[m][k .. k + 3] as two half2 registers; rows past M and k past K read as zero.
// xvec: K % 4 == 0 and x 8-byte aligned, so the 4 values are one aligned 8-byte load.
__device__ __forceinline__ uint2 load_x4(const __half *x, int m, int k, int M, int K, bool ok,
                                         bool xvec) {
  if (!ok || m >= M || k >= K) return make_uint2(0, 0);
  const __half *p = x + (size_t)m * K + k;
  if (xvec) return __ldg(reinterpret_cast<const uint2 *>(p));
  const __half z = __float2half_rn(0.0f);
  return make_uint2(pack_half2(__ldg(p), k + 1 < K ? __ldg(p + 1) : z),
                    pack_half2(k + 2 < K ? __ldg(p + 2) : z, k + 3 < K ? __ldg(p + 3) : z));
}

template <int MB>
struct MmaAcc {
  float v[8][MB / 4];  // [i][0..1]: rows g (nf = 2t, 2t+1); [i][2..3]: rows g + 8 (MB = 16)
};

// One group of 16 rows starting at k0. GUARD: some of this lane's rows may be outside
// [4 qa, 4 qb) or past K (the partial groups at the ends of a warp's range).
template <int MB, bool GUARD>
__device__ __forceinline__ void mma_group_load(const __half *x, const __half *W, int M, int N,
                                               int K, int n, bool col_ok, int k0, int t, int g,
                                               int qa, int qb, bool xvec, uint4 (&w)[4],
                                               uint2 (&a)[2]) {
  const int kq = k0 + 4 * t;  // this lane's 4 rows
  const bool quad_ok = !GUARD || (kq / 4 >= qa && kq / 4 < qb);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const bool ok = col_ok && quad_ok && (!GUARD || kq + j < K);
    w[j] = ok ? ldg_stream(W + (size_t)(kq + j) * N + n) : make_uint4(0, 0, 0, 0);
  }
  a[0] = load_x4(x, g, kq, M, K, quad_ok, xvec);
  if constexpr (MB == 16) a[1] = load_x4(x, g + 8, kq, M, K, quad_ok, xvec);
}

template <int MB>
__device__ __forceinline__ void mma_group_compute(MmaAcc<MB> &acc, const uint4 (&w)[4],
                                                  const uint2 (&a)[2]) {
  const unsigned *r0 = &w[0].x, *r1 = &w[1].x, *r2 = &w[2].x, *r3 = &w[3].x;
  const unsigned a1 = MB == 16 ? a[1].x : 0u, a3 = MB == 16 ? a[1].y : 0u;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const unsigned sel = (i & 1) ? 0x7632u : 0x5410u;  // high or low halves of the two words
    const unsigned b0 = __byte_perm(r0[i / 2], r1[i / 2], sel);
    const unsigned b1 = __byte_perm(r2[i / 2], r3[i / 2], sel);
    if constexpr (MB == 16) {
      mma_16816(acc.v[i][0], acc.v[i][1], acc.v[i][2], acc.v[i][3], a[0].x, a1, a[0].y, a3, b0,
                b1);
    } else {
      float z2 = 0.0f, z3 = 0.0f;  // rows 8..15 of x are zero: results discarded
      mma_16816(acc.v[i][0], acc.v[i][1], z2, z3, a[0].x, a1, a[0].y, a3, b0, b1);
    }
  }
}

// The per-warp mma accumulators of WARPS warps, summed through red[] (one padded 32 x JS slab
// per warp, conflict-free by lane and by value) into part[m * 64 + col]. Ends before the
// barrier that publishes part[]; red[] is free again after it.
template <int MB, int WARPS, int THREADS>
__device__ __forceinline__ void mma_warps_to_part(const MmaAcc<MB> &acc,
                                                  float (*red)[32][8 * (MB / 4) + 1],
                                                  float *part) {
  constexpr int JS = 8 * (MB / 4);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int q = 0; q < MB / 4; ++q) red[warp][lane][q * 8 + i] = acc.v[i][q];
  __syncthreads();
  for (int e = threadIdx.x; e < 32 * JS; e += THREADS) {
    const int l = e % 32, j = e / 32;  // consecutive threads: consecutive lanes, no conflicts
    float v = 0.0f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) v += red[w][l][j];
    const int i = j % 8, q = j / 8;
    const int m = (l >> 2) + 8 * (q >> 1), col = 8 * (2 * (l & 3) + (q & 1)) + i;
    part[m * kTileN + col] = v;
  }
}

template <int MB, int MODE>
__global__ void __launch_bounds__(kThreads, kMmaBlocksPerSm)
    gemv_mma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S,
             bool xvec) {
  constexpr int JS = 8 * (MB / 4);  // accumulators per lane
  __shared__ float red[kWarps][32][JS + 1];  // +1: conflict-free by lane and by value
  __shared__ float part[MB * kTileN];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n = blockIdx.x * kTileN + g * 8;
  const bool col_ok = n < N;  // N % 8 == 0
  const int quads = K / 4 + (K % 4 != 0);
  const int wid = blockIdx.y * kWarps + warp;
  const int qa = split_begin(quads, S * kWarps, wid), qb = split_begin(quads, S * kWarps, wid + 1);

  MmaAcc<MB> acc;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < MB / 4; ++j) acc.v[i][j] = 0.0f;

  // Groups of 4 quads: [ga, gb) overlap the range; those in [fa, fb) lie inside it and inside K.
  // Batches of up to U groups keep 4 U loads of 16 bytes in flight per lane; a batch that holds
  // a partial group (only the first and the last group can be) takes the bounds-checked loads.
  constexpr int U = kMmaUnroll<MB>;
  const int ga = qa / 4, gb = qa < qb ? (qb + 3) / 4 : ga;
  const int fa = (qa + 3) / 4, fb = min(qb / 4, K / 16);
  for (int gi = ga; gi < gb;) {
    const int cnt = min(U, gb - gi);
    uint4 w[U][4];
    uint2 a[U][2];
    if (gi >= fa && gi + cnt <= fb) {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (u < cnt)
          mma_group_load<MB, false>(x, W, M, N, K, n, col_ok, (gi + u) * 16, t, g, qa, qb, xvec,
                                    w[u], a[u]);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (u < cnt)
          mma_group_load<MB, true>(x, W, M, N, K, n, col_ok, (gi + u) * 16, t, g, qa, qb, xvec,
                                   w[u], a[u]);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (u < cnt) mma_group_compute<MB>(acc, w[u], a[u]);
    gi += cnt;
  }

  // Reduce the 8 warps: red[warp][lane][j], j = q * 8 + i for accumulator v[i][q].
  mma_warps_to_part<MB, kWarps, kThreads>(acc, red, part);
  __syncthreads();
  finish_tile<MB, MODE>(part, y, ws, M, N, S);
}

}  // namespace
