// Development probe kernels (not part of the product) for the mid-M HGEMM (M ~ 129..256 at
// N = K = 4096), built on the product's tile machinery (cuda/hgemm_tile.cuh):
//
// 1. pair_splitk_kernel: split-K 4 ways over two clusters of two CTAs (sm_90), for the shapes
// where the 256x128 tile (CfgTall, the fastest per SM) leaves most SMs idle, e.g.
// 256x4096x4096: 32 tiles, 128 CTAs split 4 ways. A cluster of four would need 32
// co-resident 4-CTA clusters of one CTA per SM, more than this part's GPCs hold (30);
// clusters of two fit. Measured slower than v21's 128x128 split 2 (PS1, PS2 in
// docs/results/h200/dev-2026-12-02/pair-splitk/): its main loop is as fast as predicted, its
// two-stage reduction of 128 KB partials is not.
//
// CTA b works on tile b / 4 and K slice b % 4 (v11's slicing), in cluster b / 2 of rank b % 2.
// Each cluster first sums its two slices through DSMEM as cluster_splitk_kernel does (rank r
// sums rows [r * BM/2, (r+1) * BM/2) of both partial tiles, in rank order). The two clusters'
// CTAs of equal rank then meet through global memory, at slot (tile, rank):
//   - the first to take the slot's ticket writes its sums to the slot's workspace, raises the
//     slot's flag (release) and exits;
//   - the second waits for the flag (acquire), adds the other cluster's sums to its own, runs
//     the epilogue functor once on the full sums, stores, and resets the slot for the next launch.
// fp32 addition commutes, so the result, (s0 + s1) + (s2 + s3), is the same bits whichever
// arrives first. Only the second waits, and only for a CTA that has already taken its ticket,
// i.e. one that is running: no deadlock whatever the residency. The workspace and the slots
// are static device memory of the translation unit: launches must not run concurrently.
//
// 2. push_splitk_kernel: v21's cluster split-K (cluster_splitk_kernel) with the partial tiles
// pushed instead of pulled (see there).
#pragma once
#include "hgemm_dispatch.cuh"

namespace rlg {

// Tiles the path takes at most (the launcher checks), and workspace floats per slot (BM/2 x BN
// of the largest tile that runs it).
constexpr int kPairMaxTiles = 40, kPairSlotFloats = 128 * 128;

static __device__ float g_pair_sums[kPairMaxTiles * 2 * kPairSlotFloats];
static __device__ unsigned g_pair_ticket[kPairMaxTiles * 2];
static __device__ unsigned g_pair_flag[kPairMaxTiles * 2];

__device__ __forceinline__ void st_release_gpu(unsigned *p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The prologue and main loop both kernels share with cluster_splitk_kernel: the functor's
// operand staged into `ops` (STAGE) or prefetched into L2, then acc = this warp's share of K
// slice `slice` of `slices` of tile `at` (slices start at multiples of BK).
template <class Cfg, class Epi, bool STAGE>
__device__ __forceinline__ void run_slice(const half *A, const half *B, int M, int N, int K,
                                          const Epi &epi, unsigned char *smem, half *ops,
                                          const TilePos<Cfg> &at, int slice, int slices,
                                          FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  if constexpr (STAGE) {
    stage_col_operand<Cfg>(epi, ops, at.tn * Cfg::BN, N);
    cp_async_commit();
  } else {
    prefetch_col_operand<Cfg>(epi, at.tn * Cfg::BN, N);
  }
  Pipeline<Cfg, true> pipe(reinterpret_cast<half *>(smem), A, B, M, N, K);
  const int per = (pipe.k_tiles + slices - 1) / slices;
  const int kt0 = min(slice * per, pipe.k_tiles);
  pipe.k_tiles = min(per, pipe.k_tiles - kt0);
  pipe.start_at(at.tm * Cfg::BM, at.tn * Cfg::BN, kt0 * Cfg::BK);
  zero<Cfg>(acc);
  run_pipelined<Cfg>(pipe, at.wm, at.wn, acc);
}

// Phase stamps of the pair kernel (probe midm_pair_marks.cu, run PS2): with `t` set, thread 0
// of every CTA writes %globaltimer at kPairMarks phases into t[blockIdx.x * kPairMarks + i]
// (start, main loop drained, partial parked and published, own half summed, ticket taken,
// done) and its SM and ticket into info[blockIdx.x] (SM | ticket << 16).
constexpr int kPairMarks = 6;
struct PairStamps {
  unsigned long long *t;
  unsigned *info;
  __device__ __forceinline__ void mark(int i) const {
    if (t != nullptr && threadIdx.x == 0) {
      unsigned long long now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      t[blockIdx.x * kPairMarks + i] = now;
    }
  }
};

template <class Cfg, class Epi, bool STAGE = false>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    pair_splitk_kernel(const half *__restrict__ A, const half *__restrict__ B,
                       half *__restrict__ C, int M, int N, int K, Epi epi,
                       PairStamps stamps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  stamps.mark(0);
  using SC = SplitCfg<Cfg, 2>;
  constexpr int kPer = SC::kChunks / Cfg::kThreads;  // chunks each thread sums
  static_assert(SC::kRows * Cfg::BN <= kPairSlotFloats, "workspace slot");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ unsigned ticket;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int tile = blockIdx.x / 4, slice = blockIdx.x % 4;
  const TilePos<Cfg> at(tile, M, N);
  const int tm = at.tm, tn = at.tn;

  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // STAGE: the operand
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  run_slice<Cfg, Epi, STAGE>(A, B, M, N, K, epi, smem_raw, ops, at, slice, 4, acc);
  cp_async_wait<0>();  // all copies landed (the trailing zero fills)
  __syncthreads();     // every warp done reading the stages
  stamps.mark(1);

  // A thread's chunks all have the same 8 columns (kThreads % kChunksPerRow == 0).
  const int c = (threadIdx.x % SC::kChunksPerRow) * 8;
  float op[8];
  col_operand8_after_loop<STAGE>(epi, ops, tn * Cfg::BN, c, N, op);

  float *part = reinterpret_cast<float *>(smem_raw);
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(
          part + (at.wm * Cfg::WM + i * 16) * SC::kLdp + at.wn * Cfg::WN + j * 16, acc[i][j],
          SC::kLdp, wmma::mem_row_major);
  cluster.sync();  // both partial tiles written and visible cluster-wide
  stamps.mark(2);

  const float *src0 = cluster.map_shared_rank(part, 0);
  const float *src1 = cluster.map_shared_rank(part, 1);
  const int swap = chunk_swap();
  float sum[kPer][8];
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int r = rank * SC::kRows + (threadIdx.x + i * Cfg::kThreads) / SC::kChunksPerRow;
    const float4 *p0 = reinterpret_cast<const float4 *>(src0 + r * SC::kLdp + c);
    const float4 *p1 = reinterpret_cast<const float4 *>(src1 + r * SC::kLdp + c);
    const float4 a0 = p0[swap], a1 = p0[swap ^ 1], b0 = p1[swap], b1 = p1[swap ^ 1];
    const float4 al = swap ? a1 : a0, ah = swap ? a0 : a1;
    const float4 bl = swap ? b1 : b0, bh = swap ? b0 : b1;
    sum[i][0] = al.x + bl.x, sum[i][1] = al.y + bl.y, sum[i][2] = al.z + bl.z;
    sum[i][3] = al.w + bl.w, sum[i][4] = ah.x + bh.x, sum[i][5] = ah.y + bh.y;
    sum[i][6] = ah.z + bh.z, sum[i][7] = ah.w + bh.w;
  }
  cluster.sync();  // the peer is done reading this CTA's smem: either may now exit
  stamps.mark(3);

  // Chunk i of thread t sits at float (t + i * kThreads) * 8 of the slot: a warp's 32-byte
  // chunks are contiguous. Cache-global accesses: L2 is the point of coherence.
  const int slot = tile * 2 + rank;
  float4 *ws = reinterpret_cast<float4 *>(g_pair_sums + static_cast<size_t>(slot) *
                                                            kPairSlotFloats) +
               2 * threadIdx.x;
  if (threadIdx.x == 0) {
    ticket = atomicAdd(&g_pair_ticket[slot], 1u);
    if (stamps.info != nullptr) {
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      stamps.info[blockIdx.x] = sm | (ticket << 16);
    }
  }
  __syncthreads();
  stamps.mark(4);
  if (ticket == 0) {  // first of the pair: publish the sums, leave the rest to the other
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      __stcg(ws + 2 * i * Cfg::kThreads, make_float4(sum[i][0], sum[i][1], sum[i][2], sum[i][3]));
      __stcg(ws + 2 * i * Cfg::kThreads + 1,
             make_float4(sum[i][4], sum[i][5], sum[i][6], sum[i][7]));
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) st_release_gpu(&g_pair_flag[slot], 1u);
    stamps.mark(5);
    return;
  }
  if (threadIdx.x == 0)
    while (ld_acquire_gpu(&g_pair_flag[slot]) == 0) __nanosleep(64);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const float4 lo = __ldcg(ws + 2 * i * Cfg::kThreads);
    const float4 hi = __ldcg(ws + 2 * i * Cfg::kThreads + 1);
    float v[8] = {sum[i][0] + lo.x, sum[i][1] + lo.y, sum[i][2] + lo.z, sum[i][3] + lo.w,
                  sum[i][4] + hi.x, sum[i][5] + hi.y, sum[i][6] + hi.z, sum[i][7] + hi.w};
    const int r = rank * SC::kRows + (threadIdx.x + i * Cfg::kThreads) / SC::kChunksPerRow;
    if constexpr (Epi::kColOperand) {
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = epi.apply1(v[e], op[e]);
      store_chunk<true>(EpiIdentity{}, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    } else {
      store_chunk<true>(epi, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    }
  }
  if (stamps.t != nullptr) __syncthreads();  // "done": every thread's stores issued
  if (threadIdx.x == 0) {  // every use of the slot in this launch is over
    g_pair_ticket[slot] = 0;
    g_pair_flag[slot] = 0;
  }
  stamps.mark(5);
#else
  __trap();  // the host launches this only on compute capability 9.0
#endif
}

// CTAs of the pair kernel resident at once (max active 2-CTA clusters x 2), queried once per
// instantiation; 0 (never chosen) if not sm_90 or on error.
template <class Cfg, class Epi>
int pair_slots() {
  static const int slots = [] {
    if (!device_is_sm90()) return 0;
    constexpr auto *kernel = &pair_splitk_kernel<Cfg, Epi>;
    if (allow_smem<kernel, Cfg::kSmemBytes>() != 0) return 0;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t lc =
        cluster_launch_config<Cfg, 2, Epi>(2, static_cast<cudaStream_t>(0), attr);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &lc) != cudaSuccess) {
      cudaGetLastError();  // not sticky; do not leave it for the next launch check
      return 0;
    }
    return clusters * 2;
  }();
  return slots;
}

template <class Cfg, class Epi, bool STAGE>
int launch_pair_splitk_as(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream, PairStamps stamps) {
  constexpr auto *kernel = &pair_splitk_kernel<Cfg, Epi, STAGE>;
  constexpr int kSmem = Cfg::kSmemBytes + (STAGE ? col_operand_bytes<Cfg, Epi>() : 0);
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= kPairMaxTiles);
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t lc =
      cluster_launch_config<Cfg, 2, Epi>(static_cast<unsigned>(tiles * 4), stream, attr);
  lc.dynamicSmemBytes = kSmem;
  const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, A, B, C, M, N, K, epi, stamps);
  if (err != cudaSuccess) return static_cast<int>(err);
  return rl_launch_status();
}

// stage: as launch_cluster_splitk's; stamps: PairStamps (none by default).
template <class Cfg, class Epi>
int launch_pair_splitk(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream, bool stage = false,
                       PairStamps stamps = {nullptr, nullptr}) {
  if constexpr (Epi::kColOperand)
    if (stage)
      return launch_pair_splitk_as<Cfg, Epi, true>(A, B, C, M, N, K, epi, stream, stamps);
  return launch_pair_splitk_as<Cfg, Epi, false>(A, B, C, M, N, K, epi, stream, stamps);
}

// v21's cluster split-K with the partial tiles pushed: CTA `rank` owns rows [rank * kRows,
// (rank + 1) * kRows) as before, and each CTA has an inbox of SPLIT x kRows x kLdp floats past
// the pipeline's smem (and the staged operand), slot s for the partial of rank s. Right after
// its main loop a warp stores each accumulator fragment into the inbox of the rank owning its
// rows (remote stores through DSMEM; its own rows locally), with no barrier first: the inboxes
// are not pipeline smem. One cluster barrier, then each CTA sums its inbox's slots in rank
// order (0 + p0 + p1: cluster_splitk_kernel's order, so bitwise its y) from local smem.
// v21 pulls instead: park in the pipeline smem, barrier, read the peer's rows through DSMEM,
// barrier (so that no CTA exits while the peer still reads).
template <class Cfg, int SPLIT>
constexpr int push_inbox_bytes() {
  return SPLIT * (Cfg::BM / SPLIT) * SplitCfg<Cfg, SPLIT>::kLdp * 4;
}

template <class Cfg, int SPLIT, class Epi, bool STAGE = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    push_splitk_kernel(const half *__restrict__ A, const half *__restrict__ B,
                       half *__restrict__ C, int M, int N, int K, Epi epi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using SC = SplitCfg<Cfg, SPLIT>;
  static_assert(SC::kRows % 16 == 0, "a fragment's rows belong to one rank");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const TilePos<Cfg> at(blockIdx.x / SPLIT, M, N);
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn;
  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // STAGE: the operand
  float *inbox = reinterpret_cast<float *>(
      smem_raw + Cfg::kSmemBytes + (STAGE ? col_operand_bytes<Cfg, Epi>() : 0));
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  run_slice<Cfg, Epi, STAGE>(A, B, M, N, K, epi, smem_raw, ops, at, rank, SPLIT, acc);
  cp_async_wait<0>();  // the trailing zero-fill groups (the inboxes are elsewhere)
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i) {
    const int row = wm * Cfg::WM + i * 16, dst = row / SC::kRows;
    float *slot = cluster.map_shared_rank(inbox, dst) +
                  (rank * SC::kRows + row % SC::kRows) * SC::kLdp + wn * Cfg::WN;
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(slot + j * 16, acc[i][j], SC::kLdp, wmma::mem_row_major);
  }
  cluster.sync();  // every partial in its owner's inbox (and the staged operand published)

  const int c = (threadIdx.x % SC::kChunksPerRow) * 8;
  float op[8];
  col_operand8_after_loop<STAGE>(epi, ops, tn * Cfg::BN, c, N, op);
  const int swap = chunk_swap();
#pragma unroll 2
  for (int chunk = threadIdx.x; chunk < SC::kChunks; chunk += Cfg::kThreads) {
    const int r = chunk / SC::kChunksPerRow;
    float4 lo = make_float4(0.f, 0.f, 0.f, 0.f), hi = lo;
#pragma unroll
    for (int s = 0; s < SPLIT; ++s) {  // fixed rank order: deterministic sums
      const float4 *p =
          reinterpret_cast<const float4 *>(inbox + (s * SC::kRows + r) * SC::kLdp + c);
      const float4 x = p[swap], y = p[swap ^ 1];
      const float4 l = swap ? y : x, h = swap ? x : y;
      lo.x += l.x; lo.y += l.y; lo.z += l.z; lo.w += l.w;
      hi.x += h.x; hi.y += h.y; hi.z += h.z; hi.w += h.w;
    }
    float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const int row = tm * Cfg::BM + rank * SC::kRows + r;
    if constexpr (Epi::kColOperand) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = epi.apply1(v[i], op[i]);
      store_chunk<true>(EpiIdentity{}, v, C, row, tn * Cfg::BN + c, M, N);
    } else {
      store_chunk<true>(epi, v, C, row, tn * Cfg::BN + c, M, N);
    }
  }
#else
  __trap();  // the host launches this only on compute capability 9.0
#endif
}

template <class Cfg, int SPLIT, class Epi>
int launch_push_splitk(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream, bool stage = false) {
  const auto go = [&](auto kernel, int smem) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) !=
        cudaSuccess)
      return static_cast<int>(cudaGetLastError());
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t lc = cluster_launch_config<Cfg, SPLIT, Epi>(
        static_cast<unsigned>(tile_count<Cfg>(M, N) * SPLIT), stream, attr);
    lc.dynamicSmemBytes = smem;
    const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, A, B, C, M, N, K, epi);
    return err != cudaSuccess ? static_cast<int>(err) : rl_launch_status();
  };
  constexpr int kInbox = push_inbox_bytes<Cfg, SPLIT>();
  if constexpr (Epi::kColOperand)
    if (stage)
      return go(&push_splitk_kernel<Cfg, SPLIT, Epi, true>,
                Cfg::kSmemBytes + col_operand_bytes<Cfg, Epi>() + kInbox);
  return go(&push_splitk_kernel<Cfg, SPLIT, Epi, false>, Cfg::kSmemBytes + kInbox);
}

}  // namespace rlg
