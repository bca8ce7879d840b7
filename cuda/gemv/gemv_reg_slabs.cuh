// GEMV's register slabs (v5..v7, and the loops of v9..v12): a 512-thread block streams all of
// K (or half of it in a (1, 2) cluster) for 64 columns, W in registers.
// A part of gemv/gemv_common.cuh, which includes it after the shared constants and the parts
// before it, whose kernels and helpers it builds on.
// Every slab kernel takes its epilogue as Epi, a run-time descriptor applied at its store
// (slab_store_tile): SlabEpi, the GEMV's own and the GEMM's shared one; SlabEpiResidual only in
// the instantiations that GEMM+bias+residual runs (gemv_slabs_api.cuh).
namespace {

// ---------------------------------------------------------------- slabs (v5)
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

// PUSH == 2 (GEMV v11): the peer's half of the sums arrives by st.async, which counts its
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
        y[(size_t)m * N + col] = __float2half_rn(epi(part[e] + recv[e - lo], m, col));
    }
#else
    __trap();  // never launched: the host only uses clusters on sm_90
#endif
  } else if constexpr (!CLUSTER) {
    __syncthreads();
    for (int e = threadIdx.x; e < EL; e += THREADS) {
      const int m = e / kTileN, col = n0 + e % kTileN;
      if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(epi(part[e], m, col));
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
      if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(epi(p0[e] + p1[e], m, col));
    }
    cluster.sync();  // the peer may still be reading this block's part[]
#else
    __trap();  // never launched: the host only uses clusters on sm_90
#endif
  }
}

// One row of x. With LPR = kSlabLanesPerRow, lane (c, r) = (tid % LPR, tid / LPR) owns columns
// n0 + 8c .. +8 and rows kb + r, kb + r + RPP, ... of the block's K range (RPP = 512 / LPR rows
// per pass; a warp load covers 32 / LPR rows x 16 LPR contiguous bytes). Loads for the next
// kSlabU rows are issued before the current ones are multiplied, so 2 kSlabU x 16 B per lane
// stay in flight.
// CLUSTER: the two CTAs of a (1, 2) cluster take the two halves of K and each writes half of
// the slab from both partial sums (DSMEM).
__host__ __device__ constexpr int slab1_split_begin(int K, int S, int rank) {
  return rank == S ? K : slab_split(K, S, rank) & ~7;  // multiples of 8: aligned x
}
inline int slab1_smem(int K, int S) { return ((K + S - 1) / S + 8) * 2; }

// XFAST (GEMV v11 / HGEMM v8 in a cluster, 16-byte x only): the staging of x issues its
// first loads before W's (behind W's they queue after ~4 MB of requests chip-wide, and the
// barrier that publishes x holds every refill of W until they land), and a lane past N loads
// column N - 8 instead of a guarded zero (its sums are never stored). x first alone measured
// 0.1-0.3 us slower in this kernel (C5); with the guard gone too, 0.7 us faster at 4096² (C7;
// the probe gemv_slab1_parts.cu found the pair on its copy of the kernel, D3).
template <bool CLUSTER, int PUSH = 0, bool XFAST = false, class Epi = SlabEpi>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab1(const __half *x, const __half *W, __half *y, int N, int K, Epi epi) {
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

// WA (v6, 2..8 rows): W is the MMA's A operand and x^T its B operand (m16n8k16 with the 8
// columns of B = 8 rows of x), so a group of 16 k x 64 columns takes 4 MMAs instead of 8.
// The lane loads are v4's: lane (g, t) holds W rows k0 + 4t + 0..3 at columns n0 + 8g .. +8
// and x[g][k0 + 4t .. +3]. The k order is permuted as in v4 (fragment k 2t, 2t+1, 2t+8, 2t+9
// = rows 4t .. 4t+3) and so are the A rows: MMA i (0..3) takes column n0 + 8g + 2i as A row g
// and n0 + 8g + 2i + 1 as row g + 8, so b0/b1 are exactly x[g][k0+4t .. +3] (load_x4) and
// D row g / g + 8, column 2t / 2t+1 is y[2t (+1)][n0 + 8g + 2i (+1)].
struct WaAcc {
  float v[4][4];  // [i][q]: y[2t + (q & 1)][n0 + 8g + 2i + (q >> 1)]
};

// One group of 4 rows of W in a lane's words (16 bytes each: 4 MMAs; 8 bytes, v13: 2): word i
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

// WA over 16 rows (GEMV v12): two B operands, x rows 0..7 and 8..15, on the same A fragments
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

// One group of a tensor-core slab: W as the A operand (WA, 2..8 rows; 16 with v12's halves,
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

template <int MB, bool CLUSTER, bool WA = false, int PUSH = 0, class Epi = SlabEpi>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_mma(const __half *x, const __half *W, __half *y, int M, int N, int K, bool xvec,
                  Epi epi) {
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

// ---------------------------------------------------------------- lean slab loop (v7)
// v6's slabs for 2..16 rows (W as the A operand for 2..8 rows, v4's groups for 9..16; same
// grid, split, reduction and store) with a main loop that does little but the loads and the
// MMAs. In v6's SASS a group of 16 rows costs ~90 instructions, most of them rebuilding four
// 64-bit row addresses and choosing between guarded and unguarded paths; here ~35:
// - only shapes with K % 16 == 0 and x 8-byte aligned come here (no partial groups, x one
//   8-byte load), so no load is guarded;
// - a lane past N loads column N - 8 and a lane past M loads row M - 1 of x: their sums land
//   only in outputs that are never stored (in an MMA a row of A or a column of B reaches only
//   its own row or column of D);
// - four row pointers and the x pointers advance by a constant step (16 warps x 16 rows);
// - P groups in flight per warp in a rolling register ring: group i + P is issued as soon as
//   group i is multiplied, instead of v6's two-group batches (old v10: this alone).
template <int MB>
constexpr int kV10Depth = MB == 8 ? 4 : 3;  // groups in flight per warp, within 128 registers

// BATCH (v7; every launch): where a warp has at least 4 P groups, its steady state issues P
// groups together and multiplies them together (no branches there; ptxas then computes all P
// before issuing the next P). The reading behind it: ptxas puts every W load of a warp on one
// scoreboard, so a rolling wait before a group also waits for the groups issued after it,
// where a batch waits once per P groups. Measured on the H200: at 4096^2 (cluster of 2, 8
// groups per warp) rolling is faster, at 8192^2 (32 groups per warp) batches are, by 2-5%;
// under Nsight Compute the two differ by 3% (docs/perf-log.md, GEMV old v10 / v11).
// TOP (v10, 2..8 rows): the one-row slab's loop instead: two groups in flight, the next group's
// loads issued at the top of each step, before the current group is multiplied (load B,
// multiply A, load A, multiply B). That is the order in which the one-row slab streams at the
// read's pace; the same slab in a rotated order (multiply A, load A, multiply B, load B)
// measured 4-8% slower (Y1), and so, it turned out, did v7's rolling ring, which is that
// order with P groups (Z1). TOP alone runs 2..8 rows only: at 16 rows (8 MMAs per group, 128
// registers) it measured up to 4% slower than the TMA slabs at 8192² (Z2).
// XP (v12, with TOP; 2..16 rows): a warp walks units of 32 rows of K instead of 16, each unit
// two groups: lane t takes rows 8t + 0..3 in the first and 8t + 4..7 in the second, so that
// its x for both is one 16-byte load, x[g][8t .. 8t + 7] (the group's k order is free as long
// as W's rows and x's match). One x load per two groups instead of one per group, W's loads and
// the bytes in flight as TOP's. Only for K % 32 == 0 and 16-byte aligned x (the host checks).
template <int MB, bool CLUSTER, bool BATCH = false, int PUSH = 0, bool TOP = false,
          bool XP = false, class Epi = SlabEpi>
__global__ void __launch_bounds__(kSlabThreads, 1)
    gemv_slab_v10(const __half *x, const __half *W, __half *y, int M, int N, int K, Epi epi) {
  constexpr bool WA = MB == 8 || XP;  // XP at 16 rows (v12): two halves of x per A fragment
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

}  // namespace
