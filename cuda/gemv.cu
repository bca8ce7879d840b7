// GEMV / small-M GEMM for decode: y[M x N] = x[M x K] . W[K x N], fp16 in/out, fp32 accumulation.
// Reading W (2 K N bytes) is the whole cost; x and y are tiny.
//   v1: one thread per output element, loop over K; loads coalesced along N, no vectors.
//   v2: 16-byte loads of W (8 columns per lane), a block owns 64 columns and splits K over its
//       8 warps (shared-memory reduction); x rows through L1; M bucketed (1, 2, 4, 8, 16) so the
//       M x 8 fp32 accumulators are registers. Few blocks when N is small (64 at N = 4096).
//   v3: v2 with K also split across blocks so one resident wave covers every SM; partial sums go
//       to the workspace and the last block of each column tile (atomic ticket) adds them up,
//       writes y and zeroes what it used.
//   v4: v3 with the inner product on tensor cores (mma.sync m16n8k16, W fragments built from the
//       same 16-byte loads with byte permutes): the FMA path needs 16 FFMA per W element at
//       M = 16, which is as much issue time as the HBM time; this needs 1/64 of an MMA.
//   v5: v4 with the split-K reduction inside a thread-block cluster through distributed shared
//       memory (sm_90): no workspace, no global round trips at the end. Elsewhere: v4 with S = 1.
//   v6: v5 with W streamed through a per-lane cp.async ring in shared memory (6 groups = 384 B
//       per lane in flight from the first instruction to the end of the warp's range, no drain
//       between register batches, x one group ahead in registers). Elsewhere: S = 1.
//   v7: v3 for one row, v4 for 2..16 (the best of those two on the H200).
//   v8: slabs: one 512-thread block per 64-column slab streams all of K (or half of it, in a
//       cluster of 2 reduced over DSMEM) with double-buffered register loads, so there is
//       no split-K tail through global memory (measured at ~3 us of v3's 4096^2 time). One row:
//       FMA with x staged in shared memory after W's first loads are issued; 2..16 rows: v4's
//       tensor-core groups. Shapes whose slabs would not fill the GPU take v7's kernels.
//   v9: v8 with W as the MMA's A operand and x^T as B for 2..8 rows: 4 MMAs per 16 x 64 group
//       instead of 8 (the 8 columns of B are the rows of x, none wasted on zero rows).
//  v10: v9 with a lean main loop for 2..16 rows where K % 16 == 0: no guarded loads, row
//       pointers stepped by a constant, a rolling ring of 3-4 groups in flight (else v9).
//  v11: v10 with those groups issued and multiplied in batches where a warp has >= 4 batches.
//  v12: v11 with 9..16 rows on the TMA slabs (sm_90; N, K multiples of 8): W and x come into
//       a 4-stage ring of shared memory through cp.async.bulk.tensor, so the bytes in flight
//       no longer depend on registers and scoreboards (2..8 rows keep v11's W-as-A groups,
//       half the MMAs, 1-3% faster there). The same kernel, with up to 4 m-tiles of 16 rows,
//       is the HGEMM's v16 for 9..64 rows.
//  v13: v12 with the clusters pushing their partial sums into the peer's shared memory.
//  v14: v13 with 2..8 rows in the one-row slab's loop order (two groups in flight).
//  v15: v14 with the sums sent by st.async onto the peer's mbarrier; one row stages x first.
//  v16: v15 with 2..8 rows walking K in units of two groups, one 16-byte x load per unit.
//  v17: v16's loop at 9..16 rows as well: each W fragment the A operand of two MMAs, one per 8
//       rows of x (else v16's TMA slab).
// v2..v6 need N % 8 == 0 and a 16-byte aligned W; otherwise they use a scalar-column kernel.
// Launches cover at most 16 rows of x; larger M is done in chunks of 16 rows.
#include <cooperative_groups.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <climits>
#include <mutex>

#include "common.cuh"
#include "gemv_slab.cuh"
#include "tma.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kTileN = 64;     // columns per block: 8 lanes x 8 halves = one 128-byte line per row
constexpr int kMaxRows = 16;   // rows of x per launch
constexpr int kMaxSplitsWs = 32;       // split-K cap with the workspace
constexpr int kMaxSplitsCluster = 8;   // portable cluster size
constexpr int kMinQuadsPerWarp = 4;    // below this a split adds more reduction than it saves
// gemv_mma: 2 blocks x 256 threads x 12..16 loads x 16 B = 96..128 KiB of W in flight per SM
// (13..17 MiB on 132 SMs, 3-4x what HBM latency needs) within 128 registers. (3 blocks x 8
// loads, 80 registers, spills.)
constexpr int kMmaBlocksPerSm = 2;
template <int MB>
constexpr int kMmaUnroll = MB == 16 ? 3 : 4;  // groups of 16 rows per loop step

// ---------------------------------------------------------------- v1
__global__ void __launch_bounds__(kThreads)
    gemv_v1(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  for (int m = blockIdx.y; m < M; m += gridDim.y) {
    const __half *xr = x + (size_t)m * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(xr[k]) * __half2float(W[(size_t)k * N + n]);
    y[(size_t)m * N + n] = __float2half_rn(acc);
  }
}

// ---------------------------------------------------------------- scalar fallback (v2..v6)
// N % 8 != 0 or W unaligned: a block owns 32 columns (one per lane), its 8 warps split K
// (interleaved rows, 64-byte coalesced reads), shared-memory reduction.
template <int MB>
__global__ void __launch_bounds__(kThreads)
    gemv_scalar(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  __shared__ float red[kWarps][MB][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int n = blockIdx.x * 32 + lane;
  float acc[MB];
#pragma unroll
  for (int m = 0; m < MB; ++m) acc[m] = 0.0f;
  if (n < N) {
#pragma unroll(MB <= 4 ? 8 : 2)  // loads in flight, within registers
    for (int k = warp; k < K; k += kWarps) {
      const float w = __half2float(W[(size_t)k * N + n]);
#pragma unroll
      for (int m = 0; m < MB; ++m)
        if (m < M) acc[m] += __half2float(__ldg(x + (size_t)m * K + k)) * w;
    }
  }
#pragma unroll
  for (int m = 0; m < MB; ++m) red[warp][m][lane] = acc[m];
  __syncthreads();
  for (int e = threadIdx.x; e < MB * 32; e += kThreads) {
    const int m = e / 32, col = blockIdx.x * 32 + e % 32;
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += red[w][m][e % 32];
    if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(s);
  }
}

// ---------------------------------------------------------------- shared by v2..v6
__device__ __forceinline__ uint4 ldg_stream(const __half *p) {  // W: read once, skip L1
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}
__device__ __forceinline__ uint2 ldg_stream8(const __half *p) {  // 8 bytes of W (v18)
  uint2 v;
  asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
// 8 bytes of W with a hint to fetch the aligned 256 bytes around them into L2 (v19): a 32-column
// slab reads 64 bytes of each row, its three neighbours the rest of the 256-byte block.
__device__ __forceinline__ uint2 ldg_stream8_l2(const __half *p) {
  uint2 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];"
      : "=r"(v.x), "=r"(v.y)
      : "l"(p));
  return v;
}

// Balanced contiguous split of [0, total) into parts; part i gets [begin(i), begin(i + 1)).
__device__ __forceinline__ int split_begin(int total, int parts, int i) {
  return (int)((long long)total * i / parts);
}

enum Mode { kDirect = 0, kWorkspace = 1, kCluster = 2 };

// Workspace layout: `tiles` uint32 tickets (padded to 256 bytes), then fp32 partial slots,
// slot (tile, split) holding MB x 64 values.
__host__ __device__ __forceinline__ size_t ticket_bytes(int tiles) {
  return ((size_t)tiles * 4 + 255) / 256 * 256;
}

// The block's M x 64 partial sums are in part[m * 64 + col] (shared memory, complete after a
// barrier). Writes y, adding the other splits' partials first when K was split (S > 1).
template <int MB, int MODE>
__device__ __forceinline__ void finish_tile(const float *part, __half *y, void *ws, int M, int N,
                                            int S) {
  constexpr int EL = MB * kTileN;
  const int tile = blockIdx.x, n0 = tile * kTileN;
  auto store = [&](int e, float v) {
    const int m = e / kTileN, col = n0 + e % kTileN;
    if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(v);
  };
  if constexpr (MODE == kDirect) {
    for (int e = threadIdx.x; e < EL; e += kThreads) store(e, part[e]);
  } else if constexpr (MODE == kWorkspace) {
    __shared__ bool last;
    const int tiles = gridDim.x;
    unsigned *ticket = static_cast<unsigned *>(ws) + tile;
    float *slots = reinterpret_cast<float *>(static_cast<char *>(ws) + ticket_bytes(tiles)) +
                   (size_t)tile * S * EL;
    for (int e = threadIdx.x; e < EL; e += kThreads) __stcg(slots + blockIdx.y * EL + e, part[e]);
    __threadfence();  // this thread's partials are visible device-wide before the ticket
    __syncthreads();
    if (threadIdx.x == 0) {
      last = atomicAdd(ticket, 1u) == (unsigned)S - 1;
      if (last) *ticket = 0;  // every split has arrived: reset for the next launch
      __threadfence();        // order the partial reads below after the ticket
    }
    __syncthreads();
    if (!last) return;
    // Fixed summation order (the result does not depend on arrival order); all of a thread's
    // loads for 4 splits are in flight together. Then leave the workspace zeroed.
    constexpr int EPT = (EL + kThreads - 1) / kThreads;
    float v[EPT] = {};
#pragma unroll 4
    for (int r = 0; r < S; ++r)
#pragma unroll
      for (int p = 0; p < EPT; ++p) {
        const int e = threadIdx.x + p * kThreads;
        if (e < EL) v[p] += __ldcg(slots + r * EL + e);
      }
#pragma unroll
    for (int p = 0; p < EPT; ++p) {
      const int e = threadIdx.x + p * kThreads;
      if (e < EL) {
        for (int r = 0; r < S; ++r) __stcg(slots + r * EL + e, 0.0f);
        store(e, v[p]);
      }
    }
  } else {
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every block's part[] is complete (release/acquire across the cluster)
    const int rank = (int)cluster.block_rank();
    const int lo = split_begin(EL, S, rank), hi = split_begin(EL, S, rank + 1);
    for (int e = lo + threadIdx.x; e < hi; e += kThreads) {
      float v = 0.0f;
#pragma unroll
      for (int r = 0; r < kMaxSplitsCluster; ++r)
        if (r < S) v += cluster.map_shared_rank(part, r)[e];
      store(e, v);
    }
    cluster.sync();  // peers may still be reading this block's part[]
#else
    __trap();  // never launched: the host only uses clusters on sm_90
#endif
  }
}

// ---------------------------------------------------------------- FMA path (v2, v3)
// Lane (c, r) = (lane % 8, lane / 8) owns columns n0 + 8c .. +8 and, of each "quad" of 4 rows,
// row r: one warp load covers 4 rows x 128 contiguous bytes. The S x 8 warps of a column tile
// split the quads of K evenly. Accumulators: MB x 8 fp32 per lane.
template <int MB, int MODE>
__global__ void __launch_bounds__(kThreads)
    gemv_fma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S) {
  constexpr int U = MB <= 4 ? 8 : MB == 8 ? 4 : 2;  // W loads in flight per lane (registers)
  __shared__ float red[kWarps][MB][kTileN];
  __shared__ float part[MB * kTileN];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int c = lane & 7, r = lane >> 3;
  const int n = blockIdx.x * kTileN + c * 8;
  const bool col_ok = n < N;  // N % 8 == 0: a lane's 8 columns are all in or all out
  const int quads = K / 4 + (K % 4 != 0);
  const int wid = blockIdx.y * kWarps + warp;
  const int qa = split_begin(quads, S * kWarps, wid), qb = split_begin(quads, S * kWarps, wid + 1);

  float acc[MB][8];
#pragma unroll
  for (int m = 0; m < MB; ++m)
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[m][i] = 0.0f;

  for (int q0 = qa; q0 < qb; q0 += U) {
    uint4 w[U];
    float xv[U][MB];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = (q0 + u) * 4 + r;
      const bool ok = q0 + u < qb && k < K;
      w[u] = ok && col_ok ? ldg_stream(W + (size_t)k * N + n) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int m = 0; m < MB; ++m)
        xv[u][m] = ok && m < M ? __half2float(__ldg(x + (size_t)m * K + k)) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const __half2 *h = reinterpret_cast<const __half2 *>(&w[u]);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float2 f = __half22float2(h[j]);
#pragma unroll
        for (int m = 0; m < MB; ++m) {
          acc[m][2 * j] = fmaf(xv[u][m], f.x, acc[m][2 * j]);
          acc[m][2 * j + 1] = fmaf(xv[u][m], f.y, acc[m][2 * j + 1]);
        }
      }
    }
  }

  // Sum the 4 row lanes (r) of the warp, then the 8 warps through shared memory.
#pragma unroll
  for (int m = 0; m < MB; ++m)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float v = acc[m][i];
      v += __shfl_xor_sync(0xffffffffu, v, 8);
      v += __shfl_xor_sync(0xffffffffu, v, 16);
      acc[m][i] = v;
    }
  if (r == 0) {
#pragma unroll
    for (int m = 0; m < MB; ++m)
#pragma unroll
      for (int i = 0; i < 8; ++i) red[warp][m][c * 8 + i] = acc[m][i];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < MB * kTileN; e += kThreads) {
    float v = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) v += red[w][e / kTileN][e % kTileN];
    part[e] = v;
  }
  __syncthreads();
  finish_tile<MB, MODE>(part, y, ws, M, N, S);
}

// ---------------------------------------------------------------- tensor-core path (v4, v5)
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


// ---------------------------------------------------------------- v6: cp.async ring
// v5's groups and index math, but W goes through a per-lane ring of kRingStages groups in shared
// memory filled by cp.async (zero-fill where a row is outside the warp's range, past K, or past
// N). The ring is filled first thing, before x or anything else is touched; then every step
// waits for the oldest group, computes it, and refills its slot with the group kRingStages
// ahead, so kRingStages groups (384 B per lane) stay in flight until the warp's range runs out:
// no drain between batches, and no registers spent on loads in flight. A lane fills and reads
// only its own slots, so the ring needs no barrier. x (A fragments) is loaded one group ahead
// into registers. After the loop the ring is reused for the cross-warp reduction.
constexpr int kRingStages = 6;
constexpr size_t kRingBytes = (size_t)kRingStages * 4 * kThreads * sizeof(uint4);  // 96 KiB
template <int MB>
constexpr size_t kRingRedBytes = (size_t)kWarps * 32 * (8 * (MB / 4) + 1) * sizeof(float);
template <int MB>
constexpr size_t kRingSmem =
    (kRingBytes > kRingRedBytes<MB> ? kRingBytes : kRingRedBytes<MB>) + MB * kTileN * sizeof(float);

// 16-byte cp.async that writes zeros (reads nothing) when !ok.
__device__ __forceinline__ void cp_async16_zfill(void *smem, const void *gmem, bool ok) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem),
               "r"(ok ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {  // all but the newest PENDING groups are done
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

template <int MB, int MODE>
__global__ void __launch_bounds__(kThreads, kMmaBlocksPerSm)
    gemv_ring(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S,
              bool xvec) {
  constexpr int JS = 8 * (MB / 4);
  extern __shared__ __align__(16) unsigned char smem[];
  uint4 *ring = reinterpret_cast<uint4 *>(smem);  // [stage][j][thread]
  float(*red)[32][JS + 1] = reinterpret_cast<float(*)[32][JS + 1]>(smem);  // after the loop
  float *part = reinterpret_cast<float *>(
      smem + (kRingBytes > kRingRedBytes<MB> ? kRingBytes : kRingRedBytes<MB>));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n = blockIdx.x * kTileN + g * 8;
  const bool col_ok = n < N;  // N % 8 == 0
  const int quads = K / 4 + (K % 4 != 0);
  const int wid = blockIdx.y * kWarps + warp;
  const int qa = split_begin(quads, S * kWarps, wid), qb = split_begin(quads, S * kWarps, wid + 1);
  const int ga = qa / 4, gb = qa < qb ? (qb + 3) / 4 : ga;

  // Group gi into ring slot `slot`: rows 16 gi + 4t + j, j < 4, columns n .. n + 8.
  // p = &W[16 gi + 4t][n] (formed incrementally; only dereferenced where the row is valid).
  auto issue = [&](int gi, int slot, const __half *p) {
    const int q = gi * 4 + t, kq = 4 * q;  // this lane's quad and its first row
    const bool quad_ok = col_ok && q >= qa && q < qb;
    uint4 *dst = ring + slot * 4 * kThreads + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const bool ok = quad_ok && kq + j < K;
      cp_async16_zfill(dst + j * kThreads, ok ? p : W, ok);
      p += N;
    }
  };
  // x[g (+8)][4 rows of group gi]; zeros outside the warp's range (no access).
  auto load_a = [&](int gi, uint2 (&a)[2]) {
    const int q = gi * 4 + t, kq = 4 * q;
    const bool quad_ok = q >= qa && q < qb;
    a[0] = load_x4(x, g, kq, M, K, quad_ok, xvec);
    a[1] = MB == 16 ? load_x4(x, g + 8, kq, M, K, quad_ok, xvec) : make_uint2(0, 0);
  };

  // One commit per stage even when empty, so "wait for all but the newest kRingStages - 1" always
  // means "the oldest stage has landed".
  const size_t gstep = (size_t)16 * N;  // one group of rows
  const __half *pg = W + ((size_t)ga * 16 + 4 * t) * N + n;
#pragma unroll
  for (int d = 0; d < kRingStages; ++d) {
    if (ga + d < gb) issue(ga + d, d, pg);
    cp_async_commit();
    pg += gstep;
  }
  // pg = &W[16 (gi + kRingStages) + 4t][n] from here on.

  MmaAcc<MB> acc;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < MB / 4; ++j) acc.v[i][j] = 0.0f;

  uint2 a_cur[2];
  load_a(ga, a_cur);
  int slot = 0;
  for (int gi = ga; gi < gb; ++gi) {
    uint2 a_next[2];
    load_a(gi + 1, a_next);
    cp_async_wait<kRingStages - 1>();
    uint4 w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) w[j] = ring[slot * 4 * kThreads + j * kThreads + threadIdx.x];
    mma_group_compute<MB>(acc, w, a_cur);
    // The MMAs above consume w, so the slot has been read before the refill is issued.
    if (gi + kRingStages < gb) issue(gi + kRingStages, slot, pg);
    cp_async_commit();
    pg += gstep;
    a_cur[0] = a_next[0];
    a_cur[1] = a_next[1];
    slot = slot + 1 == kRingStages ? 0 : slot + 1;
  }
  cp_async_wait<0>();
  __syncthreads();  // every lane is done with the ring: red[] overwrites it

  mma_warps_to_part<MB, kWarps, kThreads>(acc, red, part);
  __syncthreads();
  finish_tile<MB, MODE>(part, y, ws, M, N, S);
}

// ---------------------------------------------------------------- v8: slabs
constexpr int kSlabThreads = 512, kSlabWarps = kSlabThreads / 32;
constexpr int kSlabU = 4;                   // W loads per lane per buffer (two buffers)
constexpr int kSlabXSmemMax = 64 * 1024;    // x staged in smem: K <= 32760 (one row)
constexpr int kSlabLanesPerRow = 8;         // one-row slabs: 8 lanes x 16 B = 64 columns

// Cluster barrier halves (sm_90; nothing on older targets, which never launch clusters):
// every thread of both CTAs arrives, then waits.
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#endif
}

// The first of `total` units that rank `rank` of S takes, total * rank / S, for S = gridDim.y
// of a slab kernel: 1 or 2 in every launch (a (1, 2) cluster or none; launch_config and the
// probes), where a shift gives the same value. The 64-bit division it replaces compiled to ~50
// instructions (a CALL slow path among them) ahead of each kernel's first load, and a guard
// keeping it for S > 2 kept all of them (ptxas computes both sides). total * 2 < 2^31 here.
__host__ __device__ constexpr int slab_split(int total, int S, int rank) {
  return (total * rank) >> (S - 1);
}
// The division's values at S = 1, 2 (odd and even totals, both ends, a large total).
static_assert(slab_split(1031, 1, 0) == 0 && slab_split(1031, 1, 1) == 1031 &&
                  slab_split(1031, 2, 1) == 1031 / 2 && slab_split(1031, 2, 2) == 1031 &&
                  slab_split(128, 2, 1) == 64 && slab_split(1 << 26, 2, 1) == 1 << 25 &&
                  slab_split(1 << 26, 2, 2) == 1 << 26,
              "slab_split: total * rank / S for S in {1, 2}");

// PUSH == 2 (GEMV v15): the peer's half of the sums arrives by st.async, which counts its
// bytes on this CTA's recv barrier, instead of plain DSMEM stores behind a cluster barrier.
// The bytes a rank receives: half of an MB x 64 fp32 tile.
__host__ __device__ constexpr unsigned slab_recv_bytes(int mb) { return mb * kTileN / 2 * 4; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The barrier on which this CTA's recv[] arrives (PUSH == 2; one per CTA).
__device__ __forceinline__ unsigned long long *slab_recv_bar() {
  __shared__ unsigned long long bar;
  return &bar;
}
// The shared::cluster address of `addr` (a shared::cta address) in CTA `rank` of the cluster.
__device__ __forceinline__ unsigned cluster_map(unsigned addr, int rank) {
  unsigned out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(addr), "r"(rank));
  return out;
}
// One float into another CTA's shared memory, counted on that CTA's barrier `bar`.
__device__ __forceinline__ void st_async_f32(unsigned addr, float v, unsigned bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               ::"r"(addr), "r"(__float_as_uint(v)), "r"(bar)
               : "memory");
}
// Waits for phase `parity` of a barrier completed by other CTAs' writes (acquire, cluster).
__device__ __forceinline__ void mbar_wait_cluster(unsigned long long *b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAITC_%=:\n"
      " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAITC_%=;\n}" ::"r"(smem_addr(b)),
      "r"(parity)
      : "memory");
}
#endif

// The start of a pushing cluster kernel (PUSH 1 or 2): arrive on the cluster barrier phase
// that slab_store_tile waits for before it writes into the peer. PUSH == 2 first sets up the
// recv barrier for BYTES of the peer's sums; the fence makes that setup visible to the peer's
// st.async before the arrive releases it.
template <int PUSH, unsigned BYTES>
__device__ __forceinline__ void slab_cluster_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (PUSH == 2) {
    if (threadIdx.x == 0) {
      unsigned long long *bar = slab_recv_bar();
      mbar_init(bar, 1);
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      mbar_expect_tx(bar, BYTES);  // the one arrival; the phase ends when BYTES have landed
    }
  }
#endif
  cluster_arrive_relaxed();
}

// The end of a tensor-core slab: part[m * 64 + col] holds the block's M x 64 sums (written
// before this call, not yet behind a barrier). Without a cluster the block stores its tile;
// with the (1, 2) cluster each rank stores half of it from both blocks' partial sums.
// - pull (PUSH 0): a cluster barrier, each rank reads the peer's part[] over DSMEM, a
//   second barrier keeps part[] alive until the peer has read it.
// - PUSH 1: each rank writes the peer's half of its part[] into the peer's recv[] (EL / 2
//   floats of shared memory used for nothing else), then one cluster barrier; both ranks then
//   read only their own shared memory, so no second barrier. The kernel must have called
//   slab_cluster_start() at its start: the wait here for that phase makes sure the peer is
//   running before its shared memory is written.
// - PUSH 2: as PUSH 1, with the writes as st.async counted on the peer's recv barrier, and
//   each rank waiting on its own barrier instead of the cluster barrier: the sums travel one
//   way, where the barrier's release waits for the stores' acknowledgement and then signals.
template <int MB, bool CLUSTER, int THREADS = kSlabThreads, int PUSH = 0,
          class Epi = SlabEpi>
__device__ __forceinline__ void slab_store_tile(const float *part, __half *y, int M, int N,
                                                int n0, const Epi &epi, float *recv = nullptr) {
  constexpr int EL = MB * kTileN;
  if constexpr (CLUSTER && PUSH) {
    cluster_wait();  // the start's phase: the peer runs (PUSH 2: its recv barrier is set up)
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank(), peer = rank ^ 1;
    __syncthreads();  // this block's part[] complete
    const int plo = peer * EL / 2, phi = (peer + 1) * EL / 2;
    if constexpr (PUSH == 2) {
      unsigned long long *bar = slab_recv_bar();
      const unsigned peer_recv = cluster_map(smem_addr(recv), peer);
      const unsigned peer_bar = cluster_map(smem_addr(bar), peer);
      for (int e = plo + threadIdx.x; e < phi; e += THREADS)
        st_async_f32(peer_recv + 4 * (e - plo), part[e], peer_bar);
      mbar_wait_cluster(bar, 0);  // the peer's half of our sums is in recv[]
    } else {
      float *peer_recv = cluster.map_shared_rank(recv, peer);
      for (int e = plo + threadIdx.x; e < phi; e += THREADS) peer_recv[e - plo] = part[e];
      cluster.sync();  // release / acquire: the peer's half of our sums is in recv[]
    }
    const int lo = rank * EL / 2, hi = (rank + 1) * EL / 2;
    for (int e = lo + threadIdx.x; e < hi; e += THREADS) {
      const int m = e / kTileN, col = n0 + e % kTileN;
      if (m < M && col < N)
        y[(size_t)m * N + col] = __float2half_rn(epi(part[e] + recv[e - lo], col));
    }
#else
    __trap();  // never launched: the host only uses clusters on sm_90
#endif
  } else if constexpr (!CLUSTER) {
    __syncthreads();
    for (int e = threadIdx.x; e < EL; e += THREADS) {
      const int m = e / kTileN, col = n0 + e % kTileN;
      if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(epi(part[e], col));
    }
  } else {
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // both partial tiles complete and visible
    const float *p0 = cluster.map_shared_rank(part, 0), *p1 = cluster.map_shared_rank(part, 1);
    const int rank = (int)cluster.block_rank();
    const int lo = rank * EL / 2, hi = (rank + 1) * EL / 2;
    for (int e = lo + threadIdx.x; e < hi; e += THREADS) {
      const int m = e / kTileN, col = n0 + e % kTileN;
      if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(epi(p0[e] + p1[e], col));
    }
    cluster.sync();  // the peer may still be reading this block's part[]
#else
    __trap();  // never launched: the host only uses clusters on sm_90
#endif
  }
}

// One row of x. With LPR = kSlabLanesPerRow, lane (c, r) = (tid % LPR, tid / LPR) owns columns
// n0 + 8c .. +8 and rows kb + r, kb + r + RPP, ... of the block's K range (RPP = 512 / LPR rows
// per pass; a warp load covers 32 / LPR rows x 16 LPR contiguous bytes). Loads for the next kSlabU rows are issued
// before the current ones are multiplied, so 2 kSlabU x 16 B per lane stay in flight.
// CLUSTER: the two CTAs of a (1, 2) cluster take the two halves of K and each writes half of
// the slab from both partial sums (DSMEM).
__host__ __device__ constexpr int slab1_split_begin(int K, int S, int rank) {
  return rank == S ? K : slab_split(K, S, rank) & ~7;  // multiples of 8: aligned x
}
inline int slab1_smem(int K, int S) { return ((K + S - 1) / S + 8) * 2; }

// XFAST (GEMV v15 / HGEMM v21 in a cluster, 16-byte x only): the staging of x issues its
// first loads before W's (behind W's they queue after ~4 MB of requests chip-wide, and the
// barrier that publishes x holds every refill of W until they land), and a lane past N loads
// column N - 8 instead of a guarded zero (its sums are never stored). x first alone measured
// 0.1-0.3 us slower in this kernel (C5); with the guard gone too, 0.7 us faster at 4096² (C7;
// the probe gemv_slab1_parts.cu found the pair on its copy of the kernel, D3).
template <bool CLUSTER, int PUSH = 0, bool XFAST = false>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab1(const __half *x, const __half *W, __half *y, int N, int K, SlabEpi epi) {
  constexpr int LPR = kSlabLanesPerRow, COLS = LPR * 8, RPP = kSlabThreads / LPR, U = kSlabU;
  extern __shared__ __align__(16) unsigned char slab_smem[];
  __half *xs = reinterpret_cast<__half *>(slab_smem);
  __shared__ float red[kSlabWarps][COLS];
  __shared__ float part[COLS];
  __shared__ float recv[PUSH ? COLS / 2 : 1];  // PUSH: the peer's half of our sums
  if constexpr (CLUSTER && PUSH) slab_cluster_start<PUSH, slab_recv_bytes(1)>();
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = tid % LPR, r = tid / LPR;
  const int n = blockIdx.x * COLS + c * 8;
  const bool col_ok = n < N;  // N % 8 == 0
  const int nw = XFAST ? min(n, N - 8) : n;  // the column this lane loads
  const int S = gridDim.y, rank = blockIdx.y;
  const int kb = slab1_split_begin(K, S, rank), ke = slab1_split_begin(K, S, rank + 1);
  float acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.f;
  uint4 wa[U], wb[U];
  auto load = [&](uint4(&w)[U], int k0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + u * RPP;
      const bool ok = XFAST ? k < ke : k < ke && col_ok;
      w[u] = ok ? ldg_stream(W + (size_t)k * N + nw) : make_uint4(0, 0, 0, 0);
    }
  };
  auto fma = [&](const uint4(&w)[U], int k0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + u * RPP;
      const float xv = k < ke ? __half2float(xs[k - kb]) : 0.f;
      const __half2 *h = reinterpret_cast<const __half2 *>(&w[u]);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float2 f = __half22float2(h[j]);
        acc[2 * j] = fmaf(xv, f.x, acc[2 * j]);
        acc[2 * j + 1] = fmaf(xv, f.y, acc[2 * j + 1]);
      }
    }
  };
  int k0 = kb + r;
  if constexpr (XFAST) {  // the host launches it for K % 8 == 0 and 16-byte aligned x only
    const int nx = (ke - kb) / 8;
    const uint4 *x16 = reinterpret_cast<const uint4 *>(x + kb);
    uint4 *xs16 = reinterpret_cast<uint4 *>(xs);
    uint4 xfirst = make_uint4(0, 0, 0, 0);
    if (tid < nx) xfirst = __ldg(x16 + tid);
    load(wa, k0);
    epi.prefetch(blockIdx.x * COLS, N);
    if (tid < nx) xs16[tid] = xfirst;
    for (int i = tid + kSlabThreads; i < nx; i += kSlabThreads) xs16[i] = __ldg(x16 + i);
  } else {
    load(wa, k0);  // W first: its latency then covers x's
    epi.prefetch(blockIdx.x * COLS, N);
    if (K % 8 == 0 && ((uintptr_t)x & 15) == 0) {
      for (int i = tid; i < (ke - kb) / 8; i += kSlabThreads)
        reinterpret_cast<uint4 *>(xs)[i] = __ldg(reinterpret_cast<const uint4 *>(x + kb) + i);
    } else {
      for (int i = tid; i < ke - kb; i += kSlabThreads) xs[i] = x[kb + i];
    }
  }
  __syncthreads();
  for (; k0 < ke; k0 += 2 * U * RPP) {
    load(wb, k0 + U * RPP);
    fma(wa, k0);
    load(wa, k0 + 2 * U * RPP);
    fma(wb, k0 + U * RPP);
  }
  // Lanes with the same c: xor over the row bits of the lane, then the 16 warps via smem.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float v = acc[i];
#pragma unroll
    for (int o = LPR; o < 32; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane < LPR) red[warp][c * 8 + i] = v;
  }
  __syncthreads();
  for (int e = tid; e < COLS; e += kSlabThreads) {
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < kSlabWarps; ++w) v += red[w][e];
    part[e] = v;
  }
  // One row of 64 columns: the tensor-core slabs' tile store with M = 1.
  slab_store_tile<1, CLUSTER, kSlabThreads, PUSH>(part, y, 1, N, blockIdx.x * COLS, epi, recv);
}

// 2..16 rows: a 64-column slab (v4's lane layout: a warp's group is 16 rows x 64 columns),
// warp w takes groups w, w + 16, ... of the block's K range, two groups per buffer, double
// buffered. CLUSTER: the two CTAs of a (1, 2) cluster take the two halves of K and each
// writes half of the tile from both partial tiles (DSMEM).
template <int MB>  // red[][][], part[MB x 64], and PUSH's recv[] (half of part)
constexpr int kSlabMmaSmem = kSlabWarps * 32 * (8 * (MB / 4) + 1) * 4 + MB * kTileN * 4 * 3 / 2;

// v9 (WA, 2..8 rows): W is the MMA's A operand and x^T its B operand (m16n8k16 with the 8
// columns of B = 8 rows of x), so a group of 16 k x 64 columns takes 4 MMAs instead of 8.
// The lane loads are v4's: lane (g, t) holds W rows k0 + 4t + 0..3 at columns n0 + 8g .. +8
// and x[g][k0 + 4t .. +3]. The k order is permuted as in v4 (fragment k 2t, 2t+1, 2t+8, 2t+9
// = rows 4t .. 4t+3) and so are the A rows: MMA i (0..3) takes column n0 + 8g + 2i as A row g
// and n0 + 8g + 2i + 1 as row g + 8, so b0/b1 are exactly x[g][k0+4t .. +3] (load_x4) and
// D row g / g + 8, column 2t / 2t+1 is y[2t (+1)][n0 + 8g + 2i (+1)].
struct WaAcc {
  float v[4][4];  // [i][q]: y[2t + (q & 1)][n0 + 8g + 2i + (q >> 1)]
};

// One group of 4 rows of W in a lane's words (16 bytes each: 4 MMAs; 8 bytes, v18: 2): word i
// of the four rows holds columns 2i, 2i + 1 of the lane's, the A fragment of MMA i.
template <class V>
__device__ __forceinline__ void wa_group_compute(WaAcc &acc, const V (&w)[4], uint2 a) {
  constexpr int I = sizeof(V) / 4;
  const unsigned *r0 = &w[0].x, *r1 = &w[1].x, *r2 = &w[2].x, *r3 = &w[3].x;
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const unsigned a0 = __byte_perm(r0[i], r1[i], 0x5410), a1 = __byte_perm(r0[i], r1[i], 0x7632);
    const unsigned a2 = __byte_perm(r2[i], r3[i], 0x5410), a3 = __byte_perm(r2[i], r3[i], 0x7632);
    mma_16816(acc.v[i][0], acc.v[i][1], acc.v[i][2], acc.v[i][3], a0, a1, a2, a3, a.x, a.y);
  }
}

// WA over 16 rows (GEMV v17): two B operands, x rows 0..7 and 8..15, on the same A fragments
// of W; H (1 or 2) WaAcc per lane, one per half.
template <int MB, bool WA>
constexpr int kWaHalves = WA ? MB / 8 : 1;

// H WaAcc of every warp summed through red[] into part[m * 64 + col] (as mma_warps_to_part);
// half h holds rows 8h .. 8h + 7.
template <int WARPS, int THREADS, int H>
__device__ __forceinline__ void wa_warps_to_part(const WaAcc (&acc)[H],
                                                 float (*red)[32][16 * H + 1], float *part) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int h = 0; h < H; ++h)
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int q = 0; q < 4; ++q) red[warp][lane][h * 16 + i * 4 + q] = acc[h].v[i][q];
  __syncthreads();
  for (int e = threadIdx.x; e < 32 * 16 * H; e += THREADS) {
    const int l = e % 32, j = e / 32;
    float v = 0.0f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) v += red[w][l][j];
    const int h = j / 16, i = j % 16 / 4, q = j % 4;
    const int m = 8 * h + 2 * (l & 3) + (q & 1), col = 8 * (l >> 2) + 2 * i + (q >> 1);
    part[m * kTileN + col] = v;
  }
}

// One group of a tensor-core slab: W as the A operand (WA, 2..8 rows; 16 with v17's halves,
// one x fragment a[h] each) or v4's groups.
template <int MB, bool WA>
__device__ __forceinline__ void slab_group_compute(MmaAcc<MB> &acc,
                                                   WaAcc (&wacc)[kWaHalves<MB, WA>],
                                                   const uint4 (&w)[4], const uint2 (&a)[2]) {
  if constexpr (WA) {
#pragma unroll
    for (int h = 0; h < MB / 8; ++h) wa_group_compute(wacc[h], w, a[h]);
  } else {
    mma_group_compute<MB>(acc, w, a);
  }
}

// The 16 warps' accumulators of a slab block into part[m * 64 + col] (before its barrier).
template <int MB, bool WA>
__device__ __forceinline__ void slab_warps_to_part(const MmaAcc<MB> &acc,
                                                   const WaAcc (&wacc)[kWaHalves<MB, WA>],
                                                   float (*red)[32][8 * (MB / 4) + 1],
                                                   float *part) {
  if constexpr (WA)  // red is [32][16 H + 1]
    wa_warps_to_part<kSlabWarps, kSlabThreads, MB / 8>(wacc, red, part);
  else
    mma_warps_to_part<MB, kSlabWarps, kSlabThreads>(acc, red, part);
}

template <int MB, bool CLUSTER, bool WA = false, int PUSH = 0>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_mma(const __half *x, const __half *W, __half *y, int M, int N, int K, bool xvec,
                  SlabEpi epi) {
  static_assert(!WA || MB == 8, "W as the A operand covers up to 8 rows");
  constexpr int JS = 8 * (MB / 4);
  extern __shared__ __align__(16) unsigned char slab_smem[];
  float(*red)[32][JS + 1] = reinterpret_cast<float(*)[32][JS + 1]>(slab_smem);
  float *part = reinterpret_cast<float *>(slab_smem) + kSlabWarps * 32 * (JS + 1);
  if constexpr (CLUSTER && PUSH) slab_cluster_start<PUSH, slab_recv_bytes(MB)>();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kTileN, n = n0 + g * 8;
  const bool col_ok = n < N;
  const int quads = K / 4 + (K % 4 != 0);
  const int S = gridDim.y, rank = blockIdx.y;
  const int groups = (K + 15) / 16;
  const int ga = slab_split(groups, S, rank), gb = slab_split(groups, S, rank + 1);
  MmaAcc<MB> acc = {};  // zeros; the W-as-A kernels use wacc instead
  WaAcc wacc[kWaHalves<MB, WA>] = {};
  const auto compute = [&](const uint4(&w)[4], const uint2(&a)[2]) {
    slab_group_compute<MB, WA>(acc, wacc, w, a);
  };
  // Group gi of W and x; zeros past the block's range (gi is warp-uniform: no divergence).
  auto ld = [&](int gi, uint4(&w)[4], uint2(&a)[2]) {
    if (gi < gb) {
      if ((gi + 1) * 16 <= K)
        mma_group_load<MB, false>(x, W, M, N, K, n, col_ok, gi * 16, t, g, 0, quads, xvec, w, a);
      else
        mma_group_load<MB, true>(x, W, M, N, K, n, col_ok, gi * 16, t, g, 0, quads, xvec, w, a);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) w[j] = make_uint4(0, 0, 0, 0);
      a[0] = a[1] = make_uint2(0, 0);
    }
  };
  constexpr int W16 = kSlabWarps;
  uint4 wA[2][4], wB[2][4];
  uint2 aA[2][2], aB[2][2];
  int j = ga + warp;
  ld(j, wA[0], aA[0]);
  ld(j + W16, wA[1], aA[1]);
  epi.prefetch(n0, N);
  for (; j < gb; j += 4 * W16) {
    ld(j + 2 * W16, wB[0], aB[0]);
    ld(j + 3 * W16, wB[1], aB[1]);
    compute(wA[0], aA[0]);
    compute(wA[1], aA[1]);
    ld(j + 4 * W16, wA[0], aA[0]);
    ld(j + 5 * W16, wA[1], aA[1]);
    compute(wB[0], aB[0]);
    compute(wB[1], aB[1]);
  }
  // The 16 warps' accumulators through smem (same mapping as gemv_mma), into part[m][col].
  slab_warps_to_part<MB, WA>(acc, wacc, red, part);
  slab_store_tile<MB, CLUSTER, kSlabThreads, PUSH>(part, y, M, N, n0, epi, part + MB * kTileN);
}

// ---------------------------------------------------------------- v10: lean slab loop
// v9's slabs for 2..16 rows (W as the A operand for 2..8 rows, v4's groups for 9..16; same
// grid, split, reduction and store) with a main loop that does little but the loads and the
// MMAs. In v9's SASS a group of 16 rows costs ~90 instructions, most of them rebuilding four
// 64-bit row addresses and choosing between guarded and unguarded paths; here ~35:
// - only shapes with K % 16 == 0 and x 8-byte aligned come here (no partial groups, x one
//   8-byte load), so no load is guarded;
// - a lane past N loads column N - 8 and a lane past M loads row M - 1 of x: their sums land
//   only in outputs that are never stored (in an MMA a row of A or a column of B reaches only
//   its own row or column of D);
// - four row pointers and the x pointers advance by a constant step (16 warps x 16 rows);
// - P groups in flight per warp in a rolling register ring: group i + P is issued as soon as
//   group i is multiplied, instead of v9's two-group batches.
template <int MB>
constexpr int kV10Depth = MB == 8 ? 4 : 3;  // groups in flight per warp, within 128 registers

// BATCH (v11): where a warp has at least 4 P groups, its steady state issues P groups together
// and multiplies them together (no branches there; ptxas then computes all P before issuing
// the next P). The reading behind it: ptxas puts every W load of a warp on one scoreboard, so
// a rolling wait before a group also waits for the groups issued after it, where a batch
// waits once per P groups. Measured on the H200: at 4096^2 (cluster of 2, 8 groups per warp)
// rolling is faster, at 8192^2 (32 groups per warp) batches are, by 2-5%; under Nsight
// Compute the two differ by 3% (docs/perf-log.md, GEMV v10 / v11).
// TOP (v14, 2..8 rows): the one-row slab's loop instead: two groups in flight, the next group's
// loads issued at the top of each step, before the current group is multiplied (load B,
// multiply A, load A, multiply B). That is the order in which the one-row slab streams at the
// read's pace; the same slab in a rotated order (multiply A, load A, multiply B, load B)
// measured 4-8% slower (Y1), and so, it turned out, did v10's rolling ring, which is that
// order with P groups (Z1). Launched for 2..8 rows only: at 16 rows (8 MMAs per group, 128
// registers) it measured up to 4% slower than the TMA slabs at 8192² (Z2).
// XP (v16, with TOP, 2..8 rows): a warp walks units of 32 rows of K instead of 16, each unit
// two groups: lane t takes rows 8t + 0..3 in the first and 8t + 4..7 in the second, so that
// its x for both is one 16-byte load, x[g][8t .. 8t + 7] (the group's k order is free as long
// as W's rows and x's match). One x load per two groups instead of one per group, W's loads and
// the bytes in flight as TOP's. Only for K % 32 == 0 and 16-byte aligned x (the host checks).
template <int MB, bool CLUSTER, bool BATCH = false, int PUSH = 0, bool TOP = false,
          bool XP = false>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_v10(const __half *x, const __half *W, __half *y, int M, int N, int K,
                  SlabEpi epi) {
  constexpr bool WA = MB == 8 || XP;  // XP at 16 rows (v17): two halves of x per A fragment
  constexpr int P = kV10Depth<MB>, XR = MB / 8, JS = 8 * (MB / 4);
  extern __shared__ __align__(16) unsigned char slab_smem[];
  float(*red)[32][JS + 1] = reinterpret_cast<float(*)[32][JS + 1]>(slab_smem);
  float *part = reinterpret_cast<float *>(slab_smem) + kSlabWarps * 32 * (JS + 1);
  if constexpr (CLUSTER && PUSH) slab_cluster_start<PUSH, slab_recv_bytes(MB)>();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kTileN;
  const int n = min(n0 + g * 8, N - 8);  // N % 8 == 0
  static_assert(!XP || TOP, "XP: the TOP loop");
  constexpr int UR = XP ? 32 : 16, LR = XP ? 8 : 4;  // rows of K per unit; a lane's first row
  const int units = K / UR, S = gridDim.y, rank = blockIdx.y;
  const int ga = slab_split(units, S, rank), gb = slab_split(units, S, rank + 1);
  const int first = ga + warp;  // this warp: units first, first + 16, ... < gb
  const int cntu = first < gb ? (gb - first + kSlabWarps - 1) / kSlabWarps : 0;
  const int cnt = XP ? 2 * cntu : cntu;  // groups
  const size_t step = (size_t)kSlabWarps * UR * N;
  const __half *w0 = W + (size_t)(first * UR + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r) xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + first * UR + LR * t;
  epi.prefetch(n0, N);

  MmaAcc<MB> acc = {};  // zeros; the W-as-A kernels use wacc instead
  WaAcc wacc[kWaHalves<MB, WA>] = {};

  uint4 wb[P][4];
  uint2 ab[P][2];
  const auto load_w = [&](uint4(&w)[4], size_t adv) {
    w[0] = ldg_stream(w0);
    w[1] = ldg_stream(w1);
    w[2] = ldg_stream(w2);
    w[3] = ldg_stream(w3);
    w0 += adv;
    w1 += adv;
    w2 += adv;
    w3 += adv;
  };
  const auto load = [&](uint4(&w)[4], uint2(&a)[2]) {
    load_w(w, step);
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      a[r] = __ldg(reinterpret_cast<const uint2 *>(xp[r]));
      xp[r] += kSlabWarps * 16;
    }
  };
  const auto compute = [&](const uint4(&w)[4], const uint2(&a)[2]) {
    slab_group_compute<MB, WA>(acc, wacc, w, a);
  };
  if constexpr (XP) {  // TOP's order over the units' two groups (cnt is even)
    const size_t adv_a = (size_t)4 * N, adv_b = step - adv_a;  // to the second group, the next unit
    uint4 xa[XR], xb[XR];  // the unit's x for the XR halves of rows: current, next
    const auto load_x = [&](uint4(&v)[XR]) {
#pragma unroll
      for (int r = 0; r < XR; ++r) {
        v[r] = __ldg(reinterpret_cast<const uint4 *>(xp[r]));
        xp[r] += kSlabWarps * UR;
      }
    };
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r] = xb[r] = make_uint4(0, 0, 0, 0);
    if (cnt > 0) {
      load_w(wb[0], adv_a);
      load_x(xa);
    }
    for (int i = 0; i < cnt; i += 2) {
      load_w(wb[1], adv_b);  // group i + 1
#pragma unroll
      for (int r = 0; r < XR; ++r) ab[0][r] = make_uint2(xa[r].x, xa[r].y);
      compute(wb[0], ab[0]);
      if (i + 2 < cnt) {  // group i + 2: the next unit
        load_w(wb[0], adv_a);
        load_x(xb);
      }
#pragma unroll
      for (int r = 0; r < XR; ++r) ab[1][r] = make_uint2(xa[r].z, xa[r].w);
      compute(wb[1], ab[1]);
#pragma unroll
      for (int r = 0; r < XR; ++r) xa[r] = xb[r];
    }
  } else if constexpr (TOP) {
    static_assert(P >= 2, "two buffers");
    if (cnt > 0) load(wb[0], ab[0]);
    int i = 0;
    for (; i + 1 < cnt; i += 2) {
      load(wb[1], ab[1]);  // group i + 1
      compute(wb[0], ab[0]);
      if (i + 2 < cnt) load(wb[0], ab[0]);  // group i + 2
      compute(wb[1], ab[1]);
    }
    if (i < cnt) compute(wb[0], ab[0]);
  } else {
#pragma unroll
    for (int u = 0; u < P; ++u)
      if (u < cnt) load(wb[u], ab[u]);
    int i = 0;
    if (BATCH && cnt >= 4 * P) {
      for (; i + 2 * P <= cnt; i += P) {
#pragma unroll
        for (int u = 0; u < P; ++u) {
          compute(wb[u], ab[u]);
          load(wb[u], ab[u]);
        }
      }
    }
    for (; i < cnt; i += P) {
#pragma unroll
      for (int u = 0; u < P; ++u) {
        if (i + u < cnt) {
          compute(wb[u], ab[u]);
          if (i + u + P < cnt) load(wb[u], ab[u]);
        }
      }
    }
  }

  slab_warps_to_part<MB, WA>(acc, wacc, red, part);
  slab_store_tile<MB, CLUSTER, kSlabThreads, PUSH>(part, y, M, N, n0, epi, part + MB * kTileN);
}

// ---------------------------------------------------------------- v18: 32-column slabs
// Where v17 runs the (1, 2) clusters (N / 64 slabs between a quarter and a half of the SMs:
// N = 4096 on an H200), 2..16 rows here take 32-column slabs over all of K instead, N / 32
// CTAs of 16 warps and no cluster. The probe scripts/device/probes/gemv_xp_parts.cu timed
// v17's unit loop at 4096² with its parts switched off: the walk reaches the read (within
// ~0.1 us), and the whole gap (1.0 us at 2..8 rows, 1.5 at 16) is the end, of which the
// cluster's start, exchange and its waits take ~0.5 us and the reduction through shared
// memory the rest, growing with the floats it moves (16 warps x 32 lanes x 16 per 8 rows).
// Here no exchange, and half the sums per lane:
// - lane (g, t) loads 8 bytes (columns 4g .. 4g + 3) of rows 16t .. 16t + 15 of a unit of
//   64 rows of K, four groups of 4 rows; each group is the A operand of 2 MMAs per 8 rows of
//   x (v17: 16 bytes, 4 MMAs), x one 16-byte load per 8 of the lane's rows;
// - TOP's order over half-units of two groups (8 loads: the next half's loads issued before
//   the current half is multiplied), so the bytes in flight per lane stay v17's (two
//   half-units x 64 B);
// - the end sums only the rows below M (at 2 rows a quarter of the entries).
// The probe's copy measured 0.3-0.4 us faster than v17 at 2..8 rows and 0.2 at 16 (graph);
// the product 0.03-0.45 us (X8), where at 16 rows x's loads (twice v17's per byte of W: each
// CTA reads all of K of x) take back most of the end's gain.
// K % 64 == 0 and x 16-byte aligned (the host checks); a lane past N loads column N - 4, a
// lane past M loads row M - 1 of x (sums never stored).
// V19 (GEMV v19; probe scripts/device/probes/gemv_n32_end.cu, runs NE1, NE2): W's loads carry
// an L2 prefetch of their 256-byte block (the walk 0.1-0.2 us faster), and the end is one
// pass: lane l of warp w sums entry w of lane l over the 16 warps, its own warp's term from
// its registers, in v18's order (bitwise v18's y), and stores it; no part[], one barrier.
constexpr int kN32Cols = 32, kN32UnitK = 64;

// One half-unit of a 32-column slab's lane (v18, v19): its two groups of W words w[j], each
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

// v18's end, first half: every warp's sums of the rows below M into red[] (lane t of half h
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

// v18's end: red[] summed over the 16 warps into part[m * 32 + col], a second barrier, the store.
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

// V19's end (see above): red[] holds every warp's entries but each lane's own (entry `warp`).
template <int MB>
__device__ __forceinline__ void n32_end_own(const WaAcc (&wacc)[MB / 8],
                                            float (*red)[32][MB + 1], __half *y, int M, int N,
                                            int n0) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
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
  __syncthreads();
  // Entry j of lane (g, t): row 8h + 2t + (q & 1), column 4g + 2i + (q >> 1) (j = 8h + 4i + q).
  const int j = warp, h = j / 8, i = j / 4 % 2, q = j % 4;
  const int m = 8 * h + 2 * t + (q & 1), col = n0 + 4 * g + 2 * i + (q >> 1);
  if (j >= MB || m >= M || col >= N) return;
  float v = 0.0f;
#pragma unroll
  for (int w = 0; w < kSlabWarps; ++w) v += w == warp ? own : red[w][lane][j];
  y[(size_t)m * N + col] = __float2half_rn(v);
}

template <int MB, bool V19>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_n32(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;  // a lane's rows per unit
  __shared__ float red[kSlabWarps][32][JS + 1];  // + 1: conflict-free both ways
  __shared__ float part[V19 ? 1 : MB * kN32Cols];
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
      const auto ld = [](const __half *p) { return V19 ? ldg_stream8_l2(p) : ldg_stream8(p); };
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
  if constexpr (V19)
    n32_end_own<MB>(wacc, red, y, M, N, n0);
  else
    n32_end_parts<MB>(wacc, red, part, y, M, N, n0);
}

// ---------------------------------------------------------------- TMA slabs: up to 64 rows
// (Used at 9..64 rows: GEMV v12 for 9..16, HGEMM v16 for 9..64; see the host side.)
// The slab of v10 with W and x brought into shared memory by the Tensor Memory Accelerator
// (cp.async.bulk.tensor.2d, 128-byte swizzle), so that the bytes in flight sit in a ring of
// shared memory instead of registers: v10's register ring is held back by ptxas's single
// scoreboard for all of a warp's loads, and at 17..64 rows its accumulators leave no room for
// more than 2 groups per warp (the register ring measured 1.1-1.7x v15 there). The TMA probe
// (scripts/device/probes/tma_slab.cu) streamed a 64-column slab this way with 4 stages of
// 16 KB within ~4% of the plain read.
// - A CTA is 8 warps; thread 0 also issues the copies (a ninth, producer warp would cost
//   ptxas a register budget of 12 warps and spill R = 4). A stage is 128 rows of K: W's
//   128 x 64 tile (16 KB) and x's 16 R x 128 tile (two 64-wide boxes). Stage i is waited for
//   on full[i % D] (thread 0's expect_tx, the copies' complete_tx) and released on
//   empty[i % D] (one arrive per warp); thread 0 then refills the slot with stage i + D.
// - Warp w takes group w (16 rows of K) of every stage, in the natural k order of
//   mma.m16n8k16 (lane (g, t): rows 2t, 2t+1, 2t+8, 2t+9; with the 128-byte swizzle, chunk
//   c of row r sits at c ^ (r % 8), which makes both W's 16-byte and x's 4-byte fragment
//   reads conflict-free). One set of W fragments feeds R m-tiles of 16 rows of x.
// - TMA zero-fills what lies past M, N or K, so every shape with N % 8 == 0 and K % 8 == 0
//   (the tensor maps' 16-byte strides) and 16-byte aligned x and W runs unguarded.
// - CLUSTER: the two CTAs of a (1, 2) cluster take the two halves of the stages and reduce
//   over DSMEM, as v10's slabs.
// - STAGEB (HGEMM v19, the fused family): thread 0 also copies the bias of the slab's 64
//   columns into shared memory (one bulk copy on its own mbarrier, after the first stages),
//   so that the store after the last sum reads it there. Otherwise the store loads it from
//   global memory, where the L2 prefetch at the start (`SlabEpi::prefetch`, a hint) may not
//   have brought it.
constexpr int kTmaConsumers = 8, kTmaThreads = kTmaConsumers * 32, kTmaStageK = 128;
constexpr int kTmaDepth = 4;  // stages in flight: 64 KB of W per SM (the probe's best)
constexpr int kTmaMaxRows = 64;
template <int R>
constexpr int kTmaStageBytes = kTmaStageK * kTileN * 2 + 16 * R * kTmaStageK * 2;
template <int R>
constexpr int kTmaRedBytes = kTmaConsumers * 32 * (32 * R + 1) * 4 + 16 * R * kTileN * 4;
template <int R>
__host__ __device__ constexpr int kTmaRingD(int D) {  // D stages, or the reduction after them
  return D * kTmaStageBytes<R> > kTmaRedBytes<R> ? D * kTmaStageBytes<R> : kTmaRedBytes<R>;
}
// + 1 KB for the 1024-byte alignment, + the peer's half of the sums (PUSH's recv[]).
template <int R>
constexpr int kTmaSmemD(int D) {
  return 1024 + kTmaRingD<R>(D) + 16 * R * kTileN / 2 * 4;
}
template <int R>
constexpr int kTmaSmem = kTmaSmemD<R>(kTmaDepth);

// D: stages in the ring (kTmaDepth in the product; other depths in the probe
// scripts/device/probes/gemv_tma_depth.cu).
template <int R, bool CLUSTER, int D = kTmaDepth, int PUSH = 0, bool STAGEB = false>
__global__ void __launch_bounds__(kTmaThreads, 1)
    gemv_slab_tma(const __grid_constant__ CUtensorMap wmap, const __grid_constant__ CUtensorMap xmap,
                  __half *y, int M, int N, int K, SlabEpi epi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int WB = kTmaStageK * kTileN * 2, XB = 16 * R * 64 * 2;  // W tile, one x box
  constexpr int JS = 32 * R;
  extern __shared__ unsigned char tma_smem_raw[];
  // The swizzle pattern repeats every 1024 bytes: tiles start on 1024-byte boundaries.
  unsigned char *ring = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(tma_smem_raw) + 1023) & ~uintptr_t(1023));
  __shared__ unsigned long long full[D], empty[D];
  __shared__ unsigned long long bias_bar;         // STAGEB: the bias copy's completion
  __shared__ __align__(16) __half bias_s[kTileN];  // STAGEB: bias of columns n0 .. n0 + 63
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int n0 = blockIdx.x * kTileN;
  const int stages = (K + kTmaStageK - 1) / kTmaStageK, S = gridDim.y, rank = blockIdx.y;
  const int sa = slab_split(stages, S, rank), sb = slab_split(stages, S, rank + 1);
  // A bulk copy needs 16-byte aligned source and size: N % 8 == 0 here, so only the base counts.
  const bool stage_bias =
      STAGEB && epi.bias != nullptr && (reinterpret_cast<uintptr_t>(epi.bias) & 15) == 0;
  if constexpr (CLUSTER && PUSH) slab_cluster_start<PUSH, slab_recv_bytes(16 * R)>();
  if (threadIdx.x == 0) {
    for (int i = 0; i < D; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kTmaConsumers);
    }
    if (stage_bias) mbar_init(&bias_bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (!stage_bias) epi.prefetch(n0, N);
  const int n_st = sb - sa;
  // Thread 0 also produces: stage i goes into slot i % D once every warp released stage i - D.
  const auto produce = [&](int i) {
    const int slot = i % D, s = sa + i;
    unsigned char *st = ring + slot * kTmaStageBytes<R>;
    mbar_expect_tx(&full[slot], kTmaStageBytes<R>);
    tma_load_2d(st, &wmap, n0, s * kTmaStageK, &full[slot]);
    tma_load_2d(st + WB, &xmap, s * kTmaStageK, 0, &full[slot]);
    tma_load_2d(st + WB + XB, &xmap, s * kTmaStageK + 64, 0, &full[slot]);
  };
  if (threadIdx.x == 0) {
    for (int i = 0; i < D && i < n_st; ++i) produce(i);
    if (stage_bias) {
      const unsigned bytes = (unsigned)min(kTileN, N - n0) * 2;
      mbar_expect_tx(&bias_bar, bytes);
      bulk_load_1d(bias_s, epi.bias + n0, bytes, &bias_bar);
    }
  }
  float acc[R][8][4] = {};
  const int g = lane >> 2, t = lane & 3;
  const int wr = warp * 16 + 2 * t;             // this lane's first W row in a stage (+1, +8, +9)
  const int xk = (warp * 16) % 64 * 2 + 4 * t;  // byte of k = 16 warp + 2t in its x box
  const int xbox = warp / 4;                    // groups 0..3: box 0, 4..7: box 1
  for (int i = 0; i < n_st; ++i) {
    const int slot = i % D;
    mbar_wait(&full[slot], (i / D) & 1);
    const unsigned char *st = ring + slot * kTmaStageBytes<R>;
    uint4 w[4];
    w[0] = *reinterpret_cast<const uint4 *>(st + swz(wr, g * 16));
    w[1] = *reinterpret_cast<const uint4 *>(st + swz(wr + 1, g * 16));
    w[2] = *reinterpret_cast<const uint4 *>(st + swz(wr + 8, g * 16));
    w[3] = *reinterpret_cast<const uint4 *>(st + swz(wr + 9, g * 16));
    const unsigned char *xs = st + WB + xbox * XB;
    unsigned a[R][4];  // a0..a3 of m-tile r: rows g, g + 8; k 2t..2t+1, 2t+8..2t+9
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int m = 16 * r + g;
      a[r][0] = *reinterpret_cast<const unsigned *>(xs + swz(m, xk));
      a[r][1] = *reinterpret_cast<const unsigned *>(xs + swz(m + 8, xk));
      a[r][2] = *reinterpret_cast<const unsigned *>(xs + swz(m, xk + 16));
      a[r][3] = *reinterpret_cast<const unsigned *>(xs + swz(m + 8, xk + 16));
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[slot]);  // this warp's reads of the stage are done
    if (threadIdx.x == 0 && i + D < n_st) {
      mbar_wait(&empty[slot], (i / D) & 1);
      produce(i + D);
    }
    const unsigned *r0 = &w[0].x, *r1 = &w[1].x, *r2 = &w[2].x, *r3 = &w[3].x;
#pragma unroll
    for (int c = 0; c < 8; ++c) {  // column n0 + 8g + c
      const unsigned sel = (c & 1) ? 0x7632u : 0x5410u;
      const unsigned b0 = __byte_perm(r0[c / 2], r1[c / 2], sel);
      const unsigned b1 = __byte_perm(r2[c / 2], r3[c / 2], sel);
#pragma unroll
      for (int r = 0; r < R; ++r)
        mma_16816(acc[r][c][0], acc[r][c][1], acc[r][c][2], acc[r][c][3], a[r][0], a[r][1],
                  a[r][2], a[r][3], b0, b1);
    }
  }
  __syncthreads();  // every stage consumed: the ring's memory becomes the reduction's
  // The consumer warps' sums through red[] into part[m * 64 + col]: MMA c of m-tile r holds
  // y[16 r + g (+8)][n0 + 8 (2t (+1)) + c] in acc[r][c][0..3] (as mma_group_compute).
  float(*red)[32][JS + 1] = reinterpret_cast<float(*)[32][JS + 1]>(ring);
  float *part = reinterpret_cast<float *>(ring) + kTmaConsumers * 32 * (JS + 1);
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c)
#pragma unroll
      for (int q = 0; q < 4; ++q) red[warp][lane][r * 32 + q * 8 + c] = acc[r][c][q];
  __syncthreads();
  for (int e = threadIdx.x; e < 32 * JS; e += kTmaThreads) {
    const int l = e % 32, j = e / 32;
    float v = 0.0f;
#pragma unroll
    for (int w = 0; w < kTmaConsumers; ++w) v += red[w][l][j];
    const int r = j / 32, c = j % 8, q = (j / 8) % 4;
    const int m = 16 * r + (l >> 2) + 8 * (q >> 1), col = 8 * (2 * (l & 3) + (q & 1)) + c;
    part[m * kTileN + col] = v;
  }
  if (stage_bias) mbar_wait(&bias_bar, 0);
  slab_store_tile<16 * R, CLUSTER, kTmaThreads, PUSH>(
      part, y, M, N, n0, SlabEpiAt{epi, stage_bias ? bias_s : nullptr, n0},
      reinterpret_cast<float *>(ring + kTmaRingD<R>(D)));
#else
  __trap();  // never launched: the host uses the TMA slabs on compute capability 9.x only
#endif
}

// ---------------------------------------------------------------- host side
int bucket(int rows) { return rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16; }

// Resident blocks per SM of a kernel (cached per instantiation by the caller's static).
int occupancy(const void *kernel) {
  int b = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, kThreads, 0) != cudaSuccess ||
      b < 1)
    b = 1;
  return b;
}
template <int MB, int MODE>
int fma_occupancy() {
  static const int b = occupancy(reinterpret_cast<const void *>(gemv_fma<MB, MODE>));
  return b;
}
template <int MB, int MODE>
int mma_occupancy() {
  static const int b = occupancy(reinterpret_cast<const void *>(gemv_mma<MB, MODE>));
  return b;
}

// K splits per column tile: as many as keep all blocks in one resident wave, with at least
// kMinQuadsPerWarp quads of K per warp.
int splits_for(int tiles, int K, int blocks_per_sm, int cap) {
  const long long wave = (long long)rl_sm_count() * blocks_per_sm;
  long long s = wave / tiles;
  const long long by_k = ((long long)K + 3) / 4 / (kWarps * kMinQuadsPerWarp);
  if (s > by_k) s = by_k;
  if (s > cap) s = cap;
  return s < 1 ? 1 : (int)s;
}

int tiles_for(int N) { return (int)rl_ceil_div(N, kTileN); }

bool vector_ok(const void *W, int N) { return N % 8 == 0 && (uintptr_t)W % 16 == 0; }

int fma_splits(int MB, int N, int K) {
  int occ = 1;
  switch (MB) {
    case 1: occ = fma_occupancy<1, kWorkspace>(); break;
    case 2: occ = fma_occupancy<2, kWorkspace>(); break;
    case 4: occ = fma_occupancy<4, kWorkspace>(); break;
    case 8: occ = fma_occupancy<8, kWorkspace>(); break;
    default: occ = fma_occupancy<16, kWorkspace>(); break;
  }
  return splits_for(tiles_for(N), K, occ, kMaxSplitsWs);
}

int mma_splits(int MB, int N, int K) {
  const int occ = MB <= 8 ? mma_occupancy<8, kWorkspace>() : mma_occupancy<16, kWorkspace>();
  return splits_for(tiles_for(N), K, occ, kMaxSplitsWs);
}

bool cluster_capable() { return rl_cc9_or_newer(); }

// Launch configuration of `threads`-thread blocks with `smem` dynamic bytes; S > 1 makes
// the blocks (1, S) clusters along y, through *attr (storage the caller keeps alive).
cudaLaunchConfig_t launch_config(dim3 grid, int threads, int smem, int S, cudaStream_t s,
                                 cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  if (S > 1) {
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = 1;
    attr->val.clusterDim.y = S;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  return cfg;
}

// (1, S) clusters of `kernel` resident on the GPU at once; -1 if none fit or the query fails.
int query_active_clusters(const void *kernel, int threads, int smem, int S) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(1, S, 1), threads, smem, S, 0, &attr);
  int v = 0;
  if (cudaOccupancyMaxActiveClusters(&v, kernel, &cfg) != cudaSuccess) {
    (void)cudaGetLastError();  // an unusable size: do not leave it for the next launch check
    v = 0;
  }
  return v > 0 ? v : -1;
}

// query_active_clusters per cluster size S, cached for one kernel (0 in the cache: not asked).
template <auto *KERNEL, int THREADS, int SMEM>
int cached_active_clusters(int S) {
  static std::atomic<int> cache[kMaxSplitsCluster + 1];
  int v = cache[S].load(std::memory_order_relaxed);
  if (v == 0) {
    v = query_active_clusters(reinterpret_cast<const void *>(KERNEL), THREADS, SMEM, S);
    cache[S].store(v, std::memory_order_relaxed);
  }
  return v;
}

// Clusters of S blocks of gemv_mma<MB, kCluster> that fit on the GPU at once (cached).
template <int MB>
int active_clusters(int S) {
  return cached_active_clusters<&gemv_mma<MB, kCluster>, kThreads, 0>(S);
}

// Largest cluster split whose clusters (one per column tile) are all resident at once.
template <int MB>
int cluster_splits(int N, int K) {
  if (!cluster_capable()) return 1;
  const int tiles = tiles_for(N);
  for (int S = splits_for(tiles, K, mma_occupancy<MB, kCluster>(), kMaxSplitsCluster); S > 1;
       --S)
    if (active_clusters<MB>(S) >= tiles) return S;
  return 1;
}

// ---- v6 host side: the ring kernels need > 48 KiB of dynamic shared memory (an attribute set
// once, in rl_gemv_workspace_bytes or on the first launch; never again inside a capture).
template <int MB, int MODE>
bool ring_attr() {
  static const bool ok =
      cudaFuncSetAttribute(gemv_ring<MB, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           (int)kRingSmem<MB>) == cudaSuccess ||
      (cudaGetLastError(), false);
  return ok;
}
bool ring_setup() {
  static const bool ok = ring_attr<8, kDirect>() & ring_attr<16, kDirect>() &
                         ring_attr<8, kCluster>() & ring_attr<16, kCluster>();
  return ok;
}
template <int MB>
int ring_occupancy() {
  static const int b = [] {
    int v = 0;
    ring_setup();
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, gemv_ring<MB, kCluster>, kThreads,
                                                      kRingSmem<MB>) != cudaSuccess ||
        v < 1) {
      (void)cudaGetLastError();
      v = 1;
    }
    return v;
  }();
  return b;
}
template <int MB>
int ring_active_clusters(int S) {
  ring_setup();
  return cached_active_clusters<&gemv_ring<MB, kCluster>, kThreads, (int)kRingSmem<MB>>(S);
}
// Largest cluster split (<= 8) whose clusters are all resident at once; 1 without clusters.
template <int MB>
int ring_splits(int N, int K) {
  if (!cluster_capable() || !ring_setup()) return 1;
  const int tiles = tiles_for(N);
  for (int S = splits_for(tiles, K, ring_occupancy<MB>(), kMaxSplitsCluster); S > 1; --S)
    if (ring_active_clusters<MB>(S) >= tiles) return S;
  return 1;
}

// ---- v8 host side. Slab kernels need > 48 KiB of dynamic smem (x for one row; the warp
// reduction for 16 rows): attributes set once, in rl_gemv_workspace_bytes or the first launch.
template <auto *KERNEL>
bool slab_attr(int bytes) {
  static const bool ok =
      cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) ==
          cudaSuccess ||
      (cudaGetLastError(), false);
  return ok;
}
// The smem attributes of v10's (BATCH: v11's) four kernels.
template <bool BATCH>
bool v10_attrs() {
  return slab_attr<&gemv_slab_v10<8, false, BATCH>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<8, true, BATCH>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<16, false, BATCH>>(kSlabMmaSmem<16>) &
         slab_attr<&gemv_slab_v10<16, true, BATCH>>(kSlabMmaSmem<16>);
}
bool slab_setup() {
  static const bool ok = slab_attr<&gemv_slab1<false>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab1<true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_mma<8, false>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, false>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, true>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<8, true, true>>(kSlabMmaSmem<8>) &
                         // the pushing cluster kernels (v13)
                         slab_attr<&gemv_slab1<true, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_mma<8, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, true, false, true>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, true>>(kSlabMmaSmem<16>) &
                         // v11's 2..8-row kernels in the one-row slab's loop order (v14)
                         slab_attr<&gemv_slab_v10<8, false, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true, true>>(kSlabMmaSmem<8>) &
                         // their st.async exchange (PUSH 2, v15)
                         slab_attr<&gemv_slab1<true, 2>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab1<true, 2, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true>>(kSlabMmaSmem<8>) &
                         // TOP over units of two groups (XP, v16)
                         slab_attr<&gemv_slab_v10<8, false, true, 0, true, true>>(
                             kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true, true>>(
                             kSlabMmaSmem<8>) &
                         // XP at 9..16 rows (v17)
                         slab_attr<&gemv_slab_v10<16, false, true, 0, true, true>>(
                             kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2, true, true>>(
                             kSlabMmaSmem<16>) &
                         v10_attrs<false>() & v10_attrs<true>();
  return ok;
}

// (1, 2) clusters of a slab kernel (512 threads, `smem` dynamic bytes) resident at once.
template <auto *KERNEL, int SMEM>
int slab_max_clusters() {
  if (!cluster_capable() || !slab_setup()) return 0;
  const int v = cached_active_clusters<KERNEL, kSlabThreads, SMEM>(2);
  return v > 0 ? v : 0;
}

// What v8 runs for a launch of `rows` rows. A slab grid is used when it is between half and
// one resident wave (one 512-thread block per SM); anything else takes v7's kernels.
enum SlabPlan { kSlabNone = 0, kSlab1x64, kSlab1x64Cluster, kSlabMma, kSlabMmaCluster };

SlabPlan slab_plan(int rows, int N, int K) {
  if (!slab_setup()) return kSlabNone;
  const int sms = rl_sm_count();
  const auto fits = [&](long long blocks) { return 2 * blocks >= sms && blocks <= sms; };
  if (rows == 1) {
    if (K > kSlabXSmemMax / 2 - 8) return kSlabNone;  // x must fit in the staging smem
    const long long slabs64 = rl_ceil_div(N, 64);
    if (fits(slabs64)) return kSlab1x64;
    if (fits(2 * slabs64) &&
        slab_max_clusters<&gemv_slab1<true>, kSlabXSmemMax>() >= slabs64)
      return kSlab1x64Cluster;
    return kSlabNone;
  }
  const int tiles = tiles_for(N);
  if (fits(tiles)) return kSlabMma;
  const int clusters =
      bucket(rows) <= 8 ? slab_max_clusters<&gemv_slab_mma<8, true>, kSlabMmaSmem<8>>()
                        : slab_max_clusters<&gemv_slab_mma<16, true>, kSlabMmaSmem<16>>();
  if (fits(2LL * tiles) && clusters >= tiles)
    return kSlabMmaCluster;
  return kSlabNone;
}

// v7's kernel for `rows`: v3 for one row, v4 for more.
int v7_variant(int rows) { return rows == 1 ? 3 : 4; }

template <int MB, bool CLUSTER, bool WA = false, bool PUSH = false>
cudaError_t launch_slab_mma(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            SlabEpi epi, cudaStream_t s) {
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_slab_mma<MB, CLUSTER, WA, PUSH>, x, W, y, M, N, K, xvec,
                            epi);
}

template <int MB, bool CLUSTER, bool BATCH, int PUSH = 0, bool TOP = false, bool XP = false>
cudaError_t launch_slab_v10(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            SlabEpi epi, cudaStream_t s) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_slab_v10<MB, CLUSTER, BATCH, PUSH, TOP, XP>, x, W, y, M,
                            N, K, epi);
}

// (1, 2) clusters of the v10 (BATCH: v11) kernel for 2..8 (small) or 9..16 rows resident at
// once.
template <bool BATCH>
int v10_max_clusters(bool small) {
  return small ? slab_max_clusters<&gemv_slab_v10<8, true, BATCH>, kSlabMmaSmem<8>>()
               : slab_max_clusters<&gemv_slab_v10<16, true, BATCH>, kSlabMmaSmem<16>>();
}

// v11's kernels with PUSH (CLUSTER) for `rows`: 2..8 rows in the one-row slab's loop order
// where `top` says so (1: TOP; 2: TOP over units of two groups, XP; 3: XP at 2..16 rows),
// else the batched ring.
template <bool CLUSTER, int PUSH>
cudaError_t launch_v11(const __half *x, const __half *W, __half *y, int rows, int N, int K,
                       SlabEpi epi, int top, cudaStream_t s) {
  const bool small = bucket(rows) <= 8;
  if (small && top >= 2)
    return launch_slab_v10<8, CLUSTER, true, PUSH, true, true>(x, W, y, rows, N, K, epi, s);
  if (top == 3)  // 9..16 rows (v17)
    return launch_slab_v10<16, CLUSTER, true, PUSH, true, true>(x, W, y, rows, N, K, epi, s);
  if (small && top)
    return launch_slab_v10<8, CLUSTER, true, PUSH, true>(x, W, y, rows, N, K, epi, s);
  return small ? launch_slab_v10<8, CLUSTER, true, PUSH>(x, W, y, rows, N, K, epi, s)
               : launch_slab_v10<16, CLUSTER, true, PUSH>(x, W, y, rows, N, K, epi, s);
}

// Launches v10's (BATCH: v11's) kernel for a tensor-core slab plan where it applies: K a whole
// number of 16-row groups, x 8-byte aligned, and (with the cluster) all of its clusters
// resident. false: it does not apply, nothing was launched. top (with BATCH): 1 (GEMV v14),
// 2..8 rows take the one-row slab's loop order (TOP); 2 (GEMV v16), TOP over units of two
// groups with one x load each (XP) where K % 32 == 0 and x is 16-byte aligned, else TOP; 3
// (GEMV v17), XP at 9..16 rows too, and false at 9..16 rows where XP does not apply (the
// caller runs the TMA slab). In a cluster TOP runs with push 1 or 2 only, as v14 was measured
// (push 0 keeps v11's loop there).
template <bool BATCH>
bool launch_v10(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows, int N,
                int K, SlabEpi epi, int push, cudaStream_t s, cudaError_t *err, int top = 0) {
  if (rows < 2 || K % 16 != 0 || (uintptr_t)x % 8 != 0) return false;
  const bool small = bucket(rows) <= 8;
  if (top >= 2 && (K % 32 != 0 || (uintptr_t)x % 16 != 0)) {
    if (top == 3 && !small) return false;  // v17's 9..16 rows: XP or the caller's TMA slab
    top = 1;
  }
  const bool cluster = plan == kSlabMmaCluster;
  if (plan != kSlabMma && (!cluster || v10_max_clusters<BATCH>(small) < tiles_for(N)))
    return false;
  if constexpr (BATCH) {
    if (!cluster)
      *err = launch_v11<false, 0>(x, W, y, rows, N, K, epi, top, s);
    else if (push == 2)  // v13 pushes from v11's (batched) kernels only
      *err = launch_v11<true, 2>(x, W, y, rows, N, K, epi, top, s);
    else if (push == 1)
      *err = launch_v11<true, 1>(x, W, y, rows, N, K, epi, top, s);
    else
      *err = launch_v11<true, 0>(x, W, y, rows, N, K, epi, 0, s);
    return true;
  }
  if (cluster)
    *err = small ? launch_slab_v10<8, true, BATCH>(x, W, y, rows, N, K, epi, s)
                 : launch_slab_v10<16, true, BATCH>(x, W, y, rows, N, K, epi, s);
  else
    *err = small ? launch_slab_v10<8, false, BATCH>(x, W, y, rows, N, K, epi, s)
                 : launch_slab_v10<16, false, BATCH>(x, W, y, rows, N, K, epi, s);
  return true;
}

// v18's 32-column slabs where they apply: 2..16 rows where v17 would run the (1, 2) clusters,
// K % 64 == 0 and x 16-byte aligned. false: nothing was launched (the launch's own error is
// the caller's to read).
// v19: the same slabs with the L2 prefetch and the one-pass end.
bool launch_n32(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows, int N,
                int K, bool v19, cudaStream_t s) {
  if (plan != kSlabMmaCluster || rows < 2 || K % kN32UnitK != 0 || (uintptr_t)x % 16 != 0)
    return false;
  const unsigned grid = (unsigned)rl_ceil_div(N, kN32Cols);
  const bool small = bucket(rows) <= 8;
  const auto kernel = v19 ? (small ? gemv_slab_n32<8, true> : gemv_slab_n32<16, true>)
                          : (small ? gemv_slab_n32<8, false> : gemv_slab_n32<16, false>);
  kernel<<<grid, kSlabThreads, 0, s>>>(x, W, y, rows, N, K);
  return true;
}

// One v8 launch of `plan` (not kSlabNone) for `rows` <= 16 rows; wa: v9's W-as-A kernel for
// 2..8 rows; lean: 10 or 11 for v10's or v11's kernels where they apply, else 0; push: the
// clusters push their partial sums (GEMV v13, HGEMM v17; slab_store_tile). epi: applied to
// every result at the store (kSlabNoEpi for the GEMV itself). top: v11's 2..8-row kernel in
// the one-row slab's loop order (1, GEMV v14), over units of two groups (2, GEMV v16). push 2 (GEMV v15, HGEMM v21): the one-row slab and
// v11's kernels exchange their sums by st.async (slab_store_tile); v9's keep push 1. The
// one-row slab in a cluster with 16-byte x also stages x first (XFAST).
cudaError_t launch_slab(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows,
                        int N, int K, bool wa, int lean, int push, SlabEpi epi,
                        cudaStream_t s, int top = 0) {
  const bool small = bucket(rows) <= 8;
  cudaError_t err = cudaSuccess;
  if (lean == 10 && launch_v10<false>(plan, x, W, y, rows, N, K, epi, push, s, &err)) return err;
  if (lean == 11 && launch_v10<true>(plan, x, W, y, rows, N, K, epi, push, s, &err, top))
    return err;
  if (wa && small && plan == kSlabMma)
    return launch_slab_mma<8, false, true>(x, W, y, rows, N, K, epi, s);
  if (wa && small && plan == kSlabMmaCluster)
    return push ? launch_slab_mma<8, true, true, true>(x, W, y, rows, N, K, epi, s)
                : launch_slab_mma<8, true, true>(x, W, y, rows, N, K, epi, s);
  switch (plan) {
    case kSlab1x64:
      gemv_slab1<false><<<(unsigned)rl_ceil_div(N, 64), kSlabThreads, slab1_smem(K, 1), s>>>(
          x, W, y, N, K, epi);
      return cudaSuccess;
    case kSlab1x64Cluster: {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(dim3((unsigned)rl_ceil_div(N, 64), 2, 1),
                                                   kSlabThreads, slab1_smem(K, 2), 2, s, &attr);
      if (push == 2 && K % 8 == 0 && (uintptr_t)x % 16 == 0)
        return cudaLaunchKernelEx(&cfg, gemv_slab1<true, 2, true>, x, W, y, N, K, epi);
      if (push == 2) return cudaLaunchKernelEx(&cfg, gemv_slab1<true, 2>, x, W, y, N, K, epi);
      return push ? cudaLaunchKernelEx(&cfg, gemv_slab1<true, 1>, x, W, y, N, K, epi)
                  : cudaLaunchKernelEx(&cfg, gemv_slab1<true>, x, W, y, N, K, epi);
    }
    case kSlabMma:
      return small ? launch_slab_mma<8, false>(x, W, y, rows, N, K, epi, s)
                   : launch_slab_mma<16, false>(x, W, y, rows, N, K, epi, s);
    default:
      if (push)
        return small ? launch_slab_mma<8, true, false, true>(x, W, y, rows, N, K, epi, s)
                     : launch_slab_mma<16, true, false, true>(x, W, y, rows, N, K, epi, s);
      return small ? launch_slab_mma<8, true>(x, W, y, rows, N, K, epi, s)
                   : launch_slab_mma<16, true>(x, W, y, rows, N, K, epi, s);
  }
}

// The TMA slabs (defined below with their tensor maps).
bool tma_capable();
template <int R>
int tma_max_clusters();
int tma_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                    SlabEpi epi, long long max_work, int push, bool stageb, cudaStream_t s,
                    bool *launched);
// Rows from which the TMA slabs beat v11's register slabs: 9 (the 16-row bucket). At 2..8
// rows v11's W-as-A groups take half the MMAs and measured 1-3% faster on the H200.
constexpr int kTmaMinRows = 9;

// Splits a launch of `variant` with rows = min(M, 16) uses (1: no workspace needed).
int splits(int variant, int rows, int N, int K) {
  const int MB = bucket(rows);
  switch (variant) {
    case 3: return fma_splits(MB, N, K);
    case 4: return mma_splits(MB, N, K);
    default:  // v8 on: the slabs, or v7's kernel for the shape where no slab plan fits (a
              // list of cases here missed a new variant once, which then ran v4 without its
              // workspace)
      return variant >= 8 && slab_plan(rows, N, K) == kSlabNone
                 ? splits(v7_variant(rows), rows, N, K)
                 : 1;
  }
}

size_t workspace_bytes(int variant, int N, int K) {
  if (variant == 5) {  // no workspace; make the cached occupancy queries now, not in a capture
    cluster_splits<8>(N, K);
    cluster_splits<16>(N, K);
    return 0;
  }
  if (variant == 6) {  // no workspace; smem attributes and occupancy queries now
    ring_setup();
    ring_splits<8>(N, K);
    ring_splits<16>(N, K);
    return 0;
  }
  if (variant >= 8) slab_setup();  // the smem attributes now, not in a capture
  if (variant >= 12 && tma_capable()) (void)tma_max_clusters<1>();  // attributes, cluster query
  if (variant >= 10) {  // its cluster residency queries now, not in a capture
    const bool batch = variant >= 11;
    for (const bool small : {true, false})
      (void)(batch ? v10_max_clusters<true>(small) : v10_max_clusters<false>(small));
  }
  if (variant != 3 && variant != 4 && variant < 8) return 0;
  if (N % 8 != 0) return 0;  // scalar path (W alignment is only known at launch: then unused)
  int smax = 1;  // the bucket with the most splits sizes the workspace, so any M fits it
  for (int MB = 1; MB <= kMaxRows; MB *= 2) {
    const int s = splits(variant, MB, N, K);
    smax = s > smax ? s : smax;
  }
  if (smax == 1) return 0;
  const int tiles = tiles_for(N);
  return ticket_bytes(tiles) + (size_t)tiles * smax * kMaxRows * kTileN * sizeof(float);
}

template <int MB>
void launch_scalar(const __half *x, const __half *W, __half *y, int M, int N, int K,
                   cudaStream_t s) {
  gemv_scalar<MB><<<(int)rl_ceil_div(N, 32), kThreads, 0, s>>>(x, W, y, M, N, K);
}

template <int MB>
void launch_fma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S,
                cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  if (S > 1)
    gemv_fma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S);
  else
    gemv_fma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1);
}

template <int MB>
cudaError_t launch_mma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K,
                       int S, bool cluster, cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  if (S == 1) {
    gemv_mma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1, xvec);
  } else if (!cluster) {
    gemv_mma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S, xvec);
  } else {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = launch_config(grid, kThreads, 0, S, s, &attr);
    return cudaLaunchKernelEx(&cfg, gemv_mma<MB, kCluster>, x, W, y, ws, M, N, K, S, xvec);
  }
  return cudaSuccess;
}

template <int MB>
cudaError_t launch_ring(const __half *x, const __half *W, __half *y, int M, int N, int K, int S,
                        cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  if (S == 1) {
    gemv_ring<MB, kDirect><<<grid, kThreads, kRingSmem<MB>, s>>>(x, W, y, nullptr, M, N, K, 1,
                                                                 xvec);
    return cudaSuccess;
  }
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(grid, kThreads, (int)kRingSmem<MB>, S, s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_ring<MB, kCluster>, x, W, y, (void *)nullptr, M, N, K, S,
                            xvec);
}

// One launch for `rows` <= 16 rows of x.
int launch_rows(int variant, const __half *x, const __half *W, __half *y, void *ws, int rows,
                int N, int K, cudaStream_t s) {
  const int MB = bucket(rows);
  if (variant == 1) {
    const dim3 grid((unsigned)rl_ceil_div(N, kThreads), rows);
    gemv_v1<<<grid, kThreads, 0, s>>>(x, W, y, rows, N, K);
    return rl_launch_status();
  }
  if (!vector_ok(W, N)) {
    switch (MB) {
      case 1: launch_scalar<1>(x, W, y, rows, N, K, s); break;
      case 2: launch_scalar<2>(x, W, y, rows, N, K, s); break;
      case 4: launch_scalar<4>(x, W, y, rows, N, K, s); break;
      case 8: launch_scalar<8>(x, W, y, rows, N, K, s); break;
      default: launch_scalar<16>(x, W, y, rows, N, K, s); break;
    }
    return rl_launch_status();
  }
  // v13: v12 with the clusters pushing their partial sums; v15: by st.async (push 2)
  const int push = variant >= 15 ? 2 : variant >= 13 ? 1 : 0;
  const SlabPlan plan = variant >= 8 ? slab_plan(rows, N, K) : kSlabNone;
  // v18: 32-column slabs instead of v17's clusters where they apply
  if (variant >= 18 && launch_n32(plan, x, W, y, rows, N, K, variant >= 19, s))
    return rl_launch_status();
  if (variant >= 17 && rows >= kTmaMinRows) {  // v17: v16's XP loop at 9..16 rows, else v16
    cudaError_t e = cudaSuccess;
    if (plan != kSlabNone &&
        launch_v10<true>(plan, x, W, y, rows, N, K, kSlabNoEpi, push, s, &e, 3)) {
      const int st = rl_launch_status();
      return e != cudaSuccess ? (int)e : st;
    }
  }
  if (variant >= 12 && rows >= kTmaMinRows) {  // v12: the TMA slabs where they apply, else v11
    bool launched = false;
    const int st = tma_slab_launch(x, W, y, rows, N, K, kSlabNoEpi, LLONG_MAX, push, false, s,
                                   &launched);
    if (launched) return st;
  }
  if (variant >= 8) {
    if (plan == kSlabNone) return launch_rows(v7_variant(rows), x, W, y, ws, rows, N, K, s);
    const int lean = variant >= 11 ? 11 : variant == 10 ? 10 : 0;  // v12, v13: v11's kernels
    // v14: 2..8 rows in the one-row slab's loop order; v16: over units of two groups (XP)
    const int top = variant >= 16 ? 2 : variant >= 14 ? 1 : 0;
    const cudaError_t e =
        launch_slab(plan, x, W, y, rows, N, K, variant >= 9, lean, push, kSlabNoEpi, s, top);
    const int st = rl_launch_status();
    return e != cudaSuccess ? (int)e : st;
  }
  if (variant == 2 || variant == 3) {
    const int S = variant == 3 ? fma_splits(MB, N, K) : 1;
    switch (MB) {
      case 1: launch_fma<1>(x, W, y, ws, rows, N, K, S, s); break;
      case 2: launch_fma<2>(x, W, y, ws, rows, N, K, S, s); break;
      case 4: launch_fma<4>(x, W, y, ws, rows, N, K, S, s); break;
      case 8: launch_fma<8>(x, W, y, ws, rows, N, K, S, s); break;
      default: launch_fma<16>(x, W, y, ws, rows, N, K, S, s); break;
    }
    return rl_launch_status();
  }
  cudaError_t e;
  if (variant == 4) {
    const int S = mma_splits(MB, N, K);
    e = MB <= 8 ? launch_mma<8>(x, W, y, ws, rows, N, K, S, false, s)
                : launch_mma<16>(x, W, y, ws, rows, N, K, S, false, s);
  } else if (variant == 5) {
    e = MB <= 8 ? launch_mma<8>(x, W, y, nullptr, rows, N, K, cluster_splits<8>(N, K), true, s)
                : launch_mma<16>(x, W, y, nullptr, rows, N, K, cluster_splits<16>(N, K), true, s);
  } else {
    if (!ring_setup()) return (int)cudaErrorInvalidConfiguration;  // smem attribute refused
    e = MB <= 8 ? launch_ring<8>(x, W, y, rows, N, K, ring_splits<8>(N, K), s)
                : launch_ring<16>(x, W, y, rows, N, K, ring_splits<16>(N, K), s);
  }
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

// ---- TMA slabs (GEMV v12, HGEMM v16): tensor maps and the launch.
// cuTensorMapEncodeTiled from the driver the runtime loaded (no link to libcuda); null when
// this driver has none.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      f = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// Whether the TMA slabs can run: compute capability 9.x (their SASS is sm_90a; elsewhere the
// compute_80 PTX would JIT the trapping stub) and a driver with the tensor-map encoder.
bool tma_capable() {
  static const bool yes = [] {
    int dev = 0, major = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ==
               cudaSuccess &&
           major == 9 && tensor_map_encoder() != nullptr;
  }();
  return yes;
}

// A row-major fp16 matrix (rows x cols) as a 2-D tensor map with (box_cols x box_rows) boxes,
// 128-byte swizzle, zero fill outside. Encoding is host work inside a timed launch, so the
// maps of the last few (pointer, shape, box) are kept: a benchmark that rotates over buffer
// sets encodes each once.
bool tensor_map(CUtensorMap *out, const void *ptr, int rows, int cols, int box_cols,
                int box_rows) {
  struct Entry {
    const void *ptr;
    int rows, cols, box_cols, box_rows;
    CUtensorMap map;
  };
  constexpr int kEntries = 32;
  static std::mutex mu;
  static Entry cache[kEntries];
  static int used = 0, next = 0;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < used; ++i) {
    const Entry &e = cache[i];
    if (e.ptr == ptr && e.rows == rows && e.cols == cols && e.box_cols == box_cols &&
        e.box_rows == box_rows) {
      *out = e.map;
      return true;
    }
  }
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows}, estr[2] = {1, 1};
  CUtensorMap m;
  if (tensor_map_encoder()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void *>(ptr),
                           dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  Entry &e = cache[next];
  e = Entry{ptr, rows, cols, box_cols, box_rows, m};
  next = (next + 1) % kEntries;
  if (used < kEntries) ++used;
  *out = m;
  return true;
}

template <int R, bool CLUSTER, int PUSH = 0, bool STAGEB = false>
cudaError_t launch_tma(const CUtensorMap &wm, const CUtensorMap &xm, __half *y, int M, int N,
                       int K, SlabEpi epi, cudaStream_t s) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kTmaThreads, kTmaSmem<R>, CLUSTER ? 2 : 1, s,
                                               &attr);
  return cudaLaunchKernelEx(&cfg, gemv_slab_tma<R, CLUSTER, kTmaDepth, PUSH, STAGEB>, wm, xm, y,
                            M, N, K, epi);
}

// The smem attributes of the R-tile kernels, set once.
template <int R>
bool tma_attrs() {
  return slab_attr<&gemv_slab_tma<R, false>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, false, kTmaDepth, false, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, true, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, 2>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, 2, true>>(kTmaSmem<R>);
}

// (1, 2) clusters of the R-tile kernel resident at once.
template <int R>
int tma_max_clusters() {
  if (!tma_attrs<R>()) return 0;
  const int v = cached_active_clusters<&gemv_slab_tma<R, true>, kTmaThreads, kTmaSmem<R>>(2);
  return v > 0 ? v : 0;
}

// The TMA slab launch for `rows` = M <= 64 rows of x when it applies (a slab grid of half to
// one wave, with a (1, 2) cluster below that); *launched says whether it did. stageb: the
// kernel that stages the bias in shared memory (HGEMM v19; with push only).
template <int R>
int tma_launch(const __half *x, const __half *W, __half *y, int M, int N, int K, SlabEpi epi,
               long long max_work, int push, bool stageb, cudaStream_t s, bool *launched) {
  if (!tma_attrs<R>()) return 0;
  const int sms = rl_sm_count();
  const long long tiles = tiles_for(N);
  const auto fits = [&](long long blocks) { return 2 * blocks >= sms && blocks <= sms; };
  const bool direct = fits(tiles);
  if (!direct && !(fits(2 * tiles) && tma_max_clusters<R>() >= tiles)) return 0;
  if ((long long)R * (direct ? K : (K + 1) / 2) > max_work) return 0;
  CUtensorMap wm, xm;
  if (!tensor_map(&wm, W, K, N, kTileN, kTmaStageK) || !tensor_map(&xm, x, M, K, 64, 16 * R))
    return 0;
  *launched = true;
  cudaError_t e;
  if (stageb && push)
    e = direct      ? launch_tma<R, false, 0, true>(wm, xm, y, M, N, K, epi, s)
        : push == 2 ? launch_tma<R, true, 2, true>(wm, xm, y, M, N, K, epi, s)
                    : launch_tma<R, true, 1, true>(wm, xm, y, M, N, K, epi, s);
  else
    e = direct      ? launch_tma<R, false>(wm, xm, y, M, N, K, epi, s)
        : push == 2 ? launch_tma<R, true, 2>(wm, xm, y, M, N, K, epi, s)
        : push      ? launch_tma<R, true, 1>(wm, xm, y, M, N, K, epi, s)
                    : launch_tma<R, true>(wm, xm, y, M, N, K, epi, s);
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

// Whether the TMA slabs take this shape at all (before any query): 2..64 rows, 16-byte
// strides and bases for the tensor maps, a capable device.
bool tma_shape_ok(const void *x, const void *W, int M, int N, int K) {
  return M >= 2 && M <= kTmaMaxRows && N % 8 == 0 && K % 8 == 0 &&
         (uintptr_t)x % 16 == 0 && (uintptr_t)W % 16 == 0 && tma_capable();
}

// max_work: the most m-tiles x rows of K one CTA may take (the HGEMM's limit, below); push:
// 1 or 2, a cluster pushes its partial sums (slab_store_tile's PUSH); stageb: as tma_launch.
int tma_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                    SlabEpi epi, long long max_work, int push, bool stageb, cudaStream_t s,
                    bool *launched) {
  *launched = false;
  if (!tma_shape_ok(x, W, M, N, K)) return 0;
  switch ((M + 15) / 16) {
    case 1: return tma_launch<1>(x, W, y, M, N, K, epi, max_work, push, stageb, s, launched);
    case 2: return tma_launch<2>(x, W, y, M, N, K, epi, max_work, push, stageb, s, launched);
    case 3: return tma_launch<3>(x, W, y, M, N, K, epi, max_work, push, stageb, s, launched);
    default: return tma_launch<4>(x, W, y, M, N, K, epi, max_work, push, stageb, s, launched);
  }
}

}  // namespace

int rl_gemv_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                        SlabEpi epi, int push, cudaStream_t stream, bool *launched, int top) {
  *launched = false;
  if (M < 1 || M > kMaxRows || N < 1 || K < 1 || !vector_ok(W, N)) return 0;
  const SlabPlan plan = slab_plan(M, N, K);
  if (plan == kSlabNone) return 0;
  *launched = true;
  // top: 2..8 rows on GEMV v14's (1) or v16's (2) kernel where it applies, else v9's.
  const int lean = top && M <= 8 ? 11 : 0;
  const cudaError_t e = launch_slab(plan, x, W, y, M, N, K, true, lean, push, epi, stream, top);
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

int rl_gemv_tma_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpi epi, int push, cudaStream_t stream, bool *launched, bool stageb) {
  // The HGEMM's limit: a CTA of 4 m-tiles over all 8192 of K is MMA-bound (0.81x cuBLAS at
  // 64x8192x8192 against v15's 0.87x); 3 m-tiles there tie with v15, and 4 m-tiles over half
  // of 4096 (a cluster of 2) win (0.87x against 0.80x). So at most 3 x 8192.
  constexpr long long kMaxWork = 3LL * 8192;
  *launched = false;
  if (M < kTmaMinRows) return 0;
  return tma_slab_launch(x, W, y, M, N, K, epi, kMaxWork, push, stageb, stream, launched);
}

constexpr int kVariants = 19;

// v7 ("best") dispatches per 16-row chunk: v3 (FMA, split-K) for a single row, where it
// measured fastest on the H200 (one launch and graph), v4 (tensor cores) for 2..16 rows.
static int effective_variant(int variant, int rows) {
  return variant == 7 ? (rows == 1 ? 3 : 4) : variant;
}

extern "C" size_t rl_gemv_workspace_bytes(int variant, int M, int N, int K) {
  if (variant < 1 || variant > kVariants || M < 1 || N < 1 || K < 1) return 0;
  if (variant == 7) {
    const size_t a = workspace_bytes(3, N, K), b = workspace_bytes(4, N, K);
    return a > b ? a : b;
  }
  return workspace_bytes(variant, N, K);
}

extern "C" int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, int M,
                       int N, int K, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= kVariants && x != nullptr && W != nullptr && y != nullptr &&
             M >= 1 && N >= 1 && K >= 1);
  bool needs_ws = false;
  if (vector_ok(W, N))
    for (int m0 = 0; m0 < M; m0 += kMaxRows) {
      const int rows = M - m0 < kMaxRows ? M - m0 : kMaxRows;
      needs_ws |= splits(effective_variant(variant, rows), rows, N, K) > 1;
    }
  RL_REQUIRE(!needs_ws || (workspace != nullptr && (uintptr_t)workspace % 16 == 0));
  const __half *xh = static_cast<const __half *>(x);
  const __half *Wh = static_cast<const __half *>(W);
  __half *yh = static_cast<__half *>(y);
  cudaStream_t s = rl_stream(stream);
  // Chunks of 16 rows run one after another on the stream, so they can share the workspace.
  for (int m0 = 0; m0 < M; m0 += kMaxRows) {
    const int rows = M - m0 < kMaxRows ? M - m0 : kMaxRows;
    const int st = launch_rows(effective_variant(variant, rows), xh + (size_t)m0 * K, Wh,
                               yh + (size_t)m0 * N, workspace, rows, N, K, s);
    if (st != 0) return st;
  }
  return 0;
}

extern "C" int rl_gemv_variant_count(void) { return kVariants; }

extern "C" const char *rl_gemv_variant_name(int variant) {
  switch (variant) {
    case 1: return "v1 thread per output, scalar loop over K";
    case 2: return "v2 16-byte W loads, K split over the 8 warps of a 64-column block, FMA";
    case 3: return "v3 v2 + split-K across blocks (workspace, last-block ticket)";
    case 4: return "v4 v3 with mma.sync tensor-core inner product";
    case 5: return "v5 v4 with the split-K reduction in a cluster over DSMEM (sm_90)";
    case 6: return "v6 v5 with W streamed through a 6-stage per-lane cp.async ring in smem";
    case 7: return "v7 v3 for a single row, v4 for 2..16 rows (per 16-row chunk)";
    case 8: return "v8 slabs: a 512-thread block streams K for 64 columns (cluster of 2 at most), no split-K tail";
    case 9: return "v9 v8 with W as the MMA A operand for 2..8 rows (half the MMAs)";
    case 10: return "v10 v9 with a lean 2..16-row loop: unguarded loads, stepped pointers, rolling ring";
    case 11: return "v11 v10 with the groups in flight issued and multiplied in batches (>= 4 batches per warp)";
    case 12: return "v12 v11 with 9..16 rows on TMA slabs: W and x through a 4-stage TMA ring in smem";
    case 13: return "v13 v12 with the cluster's partial sums pushed to the peer's smem (one barrier)";
    case 14: return "v14 v13 with 2..8 rows in the one-row slab's loop order (two groups in flight)";
    case 15: return "v15 v14 with the cluster's partial sums sent by st.async onto the peer's mbarrier; one row stages x first";
    case 16: return "v16 v15 with 2..8 rows walking units of two groups, one 16-byte x load per unit";
    case 17: return "v17 v16's unit loop at 9..16 rows too (W as the A operand of two MMAs, one per 8 rows of x)";
    case 18: return "v18 32-column slabs over all of K, no cluster, where v17 runs clusters (2..16 rows)";
    case 19: return "v19 best: v18 with an L2 prefetch on W's loads and a one-pass end (each lane sums one output)";
    default: return nullptr;
  }
}
