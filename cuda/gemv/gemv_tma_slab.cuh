// GEMV's TMA slabs (v8 at 9..16 rows; HGEMM v8 at 9..64): W and x through a ring of
// shared memory filled by cp.async.bulk.tensor.
// A part of gemv/gemv_common.cuh, which includes it after the constants and the parts before,
// whose kernels and helpers it builds on.
// A descriptor (SlabEpi, SlabEpiResidual) whose bias was staged: columns n0 .. n0 + 63 read
// from bias_s[col - n0] when bias_s is set, else from global memory as the descriptor does.
template <class Epi>
struct SlabEpiAt {
  Epi epi;
  const __half *bias_s;
  int n0;
  __device__ __forceinline__ float operator()(float v, int row, int col) const {
    if (bias_s != nullptr) return epi.after_bias(v + __half2float(bias_s[col - n0]), row, col);
    return epi(v, row, col);
  }
};

namespace {

// ---------------------------------------------------------------- TMA slabs: up to 64 rows
// (Used at 9..64 rows: GEMV v8 for 9..16, HGEMM v8 for 9..64; see the host side.)
// The slab of v7 with W and x brought into shared memory by the Tensor Memory Accelerator
// (cp.async.bulk.tensor.2d, 128-byte swizzle), so that the bytes in flight sit in a ring of
// shared memory instead of registers: v7's register ring is held back by ptxas's single
// scoreboard for all of a warp's loads, and at 17..64 rows its accumulators leave no room for
// more than 2 groups per warp (the register ring measured 1.1-1.7x HGEMM v7 there). The TMA
// probe (scripts/device/probes/tma_slab.cu, in git at 877c669) streamed a 64-column slab this
// way with 4 stages of 16 KB within ~4% of the plain read.
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
//   over DSMEM, as v7's slabs.
// - STAGEB (the fused family's staged bias): thread 0 also copies the bias of the slab's 64
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
// scripts/device/probes/gemv_tma_depth.cu at 877c669).
template <int R, bool CLUSTER, int D = kTmaDepth, int PUSH = 0, bool STAGEB = false,
          class Epi = SlabEpi>
__global__ void __launch_bounds__(kTmaThreads, 1)
    gemv_slab_tma(const __grid_constant__ CUtensorMap wmap, const __grid_constant__ CUtensorMap xmap,
                  __half *y, int M, int N, int K, Epi epi) {
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
      part, y, M, N, n0, SlabEpiAt<Epi>{epi, stage_bias ? bias_s : nullptr, n0},
      reinterpret_cast<float *>(ring + kTmaRingD<R>(D)));
#else
  __trap();  // never launched: the host uses the TMA slabs on compute capability 9.x only
#endif
}

}  // namespace
