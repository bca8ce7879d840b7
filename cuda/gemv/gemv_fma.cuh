// GEMV's FMA path and what the steps before the slabs share: W loads that skip L1, K splits,
// the split-K finish, the scalar-column fallback and the FMA kernel (v2 and v3).
// A part of gemv/gemv_common.cuh, which includes it after the shared constants.
namespace {

// ---------------------------------------------------------------- scalar fallback
// V2..14 where N % 8 != 0 or W is unaligned: a block owns 32 columns (one per lane), its
// 8 warps split K (interleaved rows, 64-byte coalesced reads), shared-memory reduction.
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

// ---------------------------------------------------------------- W loads, K splits
__device__ __forceinline__ uint4 ldg_stream(const __half *p) {  // W: read once, skip L1
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}
__device__ __forceinline__ uint2 ldg_stream8(const __half *p) {  // 8 bytes of W (v13)
  uint2 v;
  asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
// 8 bytes of W with a hint to fetch the aligned 256 bytes around them into L2 (v14): a
// 32-column slab reads 64 bytes of each row, its three neighbours the rest of the 256-byte block.
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

enum Mode { kDirect = 0, kWorkspace = 1 };

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
  } else {  // kWorkspace
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

}  // namespace
