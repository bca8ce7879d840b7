// HGEMM v7 "cluster_split_k": v6, except that where v6's grid would leave SMs idle (mid M,
// K >= 1024), the SPLIT CTAs of a thread-block cluster (sm_90) split K of one output tile and
// sum their partial tiles through distributed shared memory, with no workspace and no atomics.
// A cost model picks the split config: v6's 128x256 and 64x128 tiles split 2 or 4 ways, v6's
// 128x128 tile of 4 warps split 2, or a 128x128 tile of 8 warps (64x32) split 2.
//
// Measured on the H200 (docs/perf-log.md, HGEMM v11, v12, v15; N = K = 4096, one launch, µs):
// 64 rows 24.7 against v6's 30.2 (R3); 256 rows 42.8 -> 38.7 with the 128x128 tile split 2
// (P5), 39.5 -> 35.7 with the tile of 8 warps (V5; 160 rows 37.7 -> 33.1, 128x8192x8192
// 74.4 -> 63.7), still 1.3-1.5x cuBLAS at 256 rows, whose tiles are not limited to WMMA's
// fragment shapes. The squares run v6's kernels.
#pragma once
#include "gemm/cluster.cuh"
#include "gemm/hgemm_06_tile_per_shape.cuh"

namespace rlg {

// The mid-M tile for cluster split-K: 128x128x64 with 8 warps of 64x32 (two per scheduler
// where CfgSquare's 4 warps of 64x64 leave one), 4 stages = 143,360 B, one CTA per SM.
// Measured 35.0 vs 38.3 us (CfgSquare split 2) at 256x4096x4096 (docs/perf-log.md, Q1).
using CfgSquare8w = TileCfg<128, 128, 64, 64, 32, 4, true, 8, 1>;

// Split-K over the CTAs of a thread-block cluster (sm_90). The SPLIT CTAs of a cluster (consecutive
// blockIdx.x, rank = blockIdx.x % SPLIT) share one output tile; CTA `rank` runs v5's pipelined loop
// over k-tiles [rank*per, min((rank+1)*per, k_tiles)), per = ceil(k_tiles / SPLIT) (slice starts
// are multiples of BK, so only the globally last k-tile is partial, bounded by K as before; a rank
// past the end runs 0 k-tiles and contributes zeros). After drain() the pipeline smem is free: each
// warp parks its fp32 accumulators in a BM x (BN+8) tile there. cluster.sync() (release/acquire)
// publishes all SPLIT partial tiles; CTA `rank` then sums rows [rank*BM/SPLIT, (rank+1)*BM/SPLIT)
// of all of them in rank order through DSMEM and runs the epilogue functor once on the full sums. A
// second cluster.sync() keeps every CTA's smem alive until all reads of it are done. No atomics, no
// workspace. STAGE (the fused family's staged bias, on CfgSquare8w): the functor's operand is
// copied into shared memory after the pipeline's (cp.async, its own commit group before the
// prologue, retired by the loop's first wait) instead of prefetched into L2 and loaded after the
// loop, where a dropped prefetch left an HBM miss between the last k-tile and the reduction.
template <class Cfg, int SPLIT>
struct SplitCfg {
  static constexpr int kLdp = Cfg::BN + 8;  // floats per parked row (multiple of 4: WMMA ldm)
  static constexpr int kPartBytes = Cfg::BM * kLdp * 4;
  static constexpr int kRows = Cfg::BM / SPLIT;  // rows each CTA reduces
  static constexpr int kChunksPerRow = Cfg::BN / 8;
  static constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(SPLIT >= 2 && SPLIT <= 8 && Cfg::BM % SPLIT == 0, "cluster split");
  static_assert(kChunks % Cfg::kThreads == 0, "reduction split");
  static_assert(Cfg::kThreads % kChunksPerRow == 0, "a thread's chunks share their columns");
  static_assert(kPartBytes <= Cfg::kSmemBytes, "partials must fit in the pipeline smem");
  static_assert((16 * kLdp * 4) % 32 == 0, "fragment store alignment");
};

template <class Cfg, int SPLIT, class Epi, bool STAGE = false>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    cluster_splitk_kernel(const half *__restrict__ A, const half *__restrict__ B,
                          half *__restrict__ C, int M, int N, int K, Epi epi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using SC = SplitCfg<Cfg, SPLIT>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const TilePos<Cfg> at(blockIdx.x / SPLIT, M, N);  // the cluster's SPLIT CTAs share one tile
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn;

  // Without STAGE the functor's operand goes to L2 now and to registers after the main loop:
  // staging it into smem with the first k-tile (as the pipelined kernel does) cost this
  // kernel's fused main loop 2-6 extra integer instructions per k-tile in SASS (of 191-335).
  // STAGE's copy is a group of its own, before the prologue, so the loop does not change.
  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // STAGE: the operand
  if constexpr (STAGE) {
    stage_col_operand<Cfg>(epi, ops, tn * Cfg::BN, N);
    cp_async_commit();
  } else {
    prefetch_col_operand<Cfg>(epi, tn * Cfg::BN, N);
  }
  Pipeline<Cfg, true> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  const int per = (pipe.k_tiles + SPLIT - 1) / SPLIT;
  const int kt0 = min(rank * per, pipe.k_tiles);
  pipe.k_tiles = min(per, pipe.k_tiles - kt0);
  pipe.start_at(tm * Cfg::BM, tn * Cfg::BN, kt0 * Cfg::BK);
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  zero<Cfg>(acc);
  run_pipelined<Cfg>(pipe, wm, wn, acc);
  pipe.drain();  // all copies landed, every warp done reading the stages

  // Every chunk this thread reduces below has the same 8 columns (kThreads % kChunksPerRow
  // == 0): their operands are loaded once, here, so the L2 latency overlaps the parking.
  const int c = (threadIdx.x % SC::kChunksPerRow) * 8;
  float op[8];
  col_operand8_after_loop<STAGE>(epi, ops, tn * Cfg::BN, c, N, op);  // STAGE: by drain()

  float *part = reinterpret_cast<float *>(smem_raw);
#pragma unroll
  for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(part + (wm * Cfg::WM + i * 16) * SC::kLdp + wn * Cfg::WN + j * 16,
                              acc[i][j], SC::kLdp, wmma::mem_row_major);
  cluster.sync();  // every CTA's partial tile written and visible cluster-wide

  const float *src[SPLIT];
#pragma unroll
  for (int s = 0; s < SPLIT; ++s) src[s] = cluster.map_shared_rank(part, s);
  const int row_base = rank * SC::kRows;
  const int swap = chunk_swap();
#pragma unroll 2
  for (int chunk = threadIdx.x; chunk < SC::kChunks; chunk += Cfg::kThreads) {
    const int r = row_base + chunk / SC::kChunksPerRow;
    float4 lo = make_float4(0.f, 0.f, 0.f, 0.f), hi = lo;
#pragma unroll
    for (int s = 0; s < SPLIT; ++s) {  // fixed rank order: deterministic sums
      const float4 *p = reinterpret_cast<const float4 *>(src[s] + r * SC::kLdp + c);
      const float4 x = p[swap], y = p[swap ^ 1];
      const float4 l = swap ? y : x, h = swap ? x : y;
      lo.x += l.x; lo.y += l.y; lo.z += l.z; lo.w += l.w;
      hi.x += h.x; hi.y += h.y; hi.z += h.z; hi.w += h.w;
    }
    float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const int row = tm * Cfg::BM + r, col = tn * Cfg::BN + c;
    if constexpr (Epi::kColOperand) {
      // Applied before the store's guard; a functor with an element operand inside C only.
      if (Epi::kElemOperand && (row >= M || col >= N)) continue;
      epi.template apply<true>(v, op, row, col, N);
      store_chunk<true>(EpiIdentity{}, v, C, row, col, M, N);
    } else {
      store_chunk<true>(epi, v, C, row, col, M, N);
    }
  }
  cluster.sync();  // no CTA exits (freeing its smem) while another may still read it
#else
  __trap();  // the host launches this only on compute capability 9.0
#endif
}

template <class Cfg, int SPLIT, class Epi>
cudaLaunchConfig_t cluster_launch_config(unsigned grid, cudaStream_t stream,
                                         cudaLaunchAttribute *attr) {
  return cluster_config(grid, Cfg::kThreads, Cfg::kSmemBytes, SPLIT, stream, attr);
}

// CTAs of this cluster kernel resident at once on the device (max active clusters x SPLIT),
// queried once per instantiation; 0 (cluster path never chosen) if not sm_90 or on error.
template <class Cfg, int SPLIT, class Epi>
int cluster_slots() {
  static const int slots = [] {
    if (!device_is_sm90()) return 0;
    constexpr auto *kernel = &cluster_splitk_kernel<Cfg, SPLIT, Epi>;
    if (allow_smem<kernel, Cfg::kSmemBytes>() != 0) return 0;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t lc =
        cluster_launch_config<Cfg, SPLIT, Epi>(SPLIT, static_cast<cudaStream_t>(0), attr);
    return resident_cluster_ctas(kernel, lc, SPLIT);
  }();
  return slots;
}

// STAGE: the kernel that stages the functor's operand in shared memory (only a functor with a
// column operand has one to stage).
template <class Cfg, int SPLIT, class Epi, bool STAGE>
int launch_cluster_splitk(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &cluster_splitk_kernel<Cfg, SPLIT, Epi, STAGE>;
  constexpr int kSmem = Cfg::kSmemBytes + (STAGE ? col_operand_bytes<Cfg, Epi>() : 0);
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long grid = tile_count<Cfg>(M, N) * SPLIT;  // a multiple of the cluster size
  RL_REQUIRE(grid <= 0x7fffffffLL);
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t lc =
      cluster_launch_config<Cfg, SPLIT, Epi>(static_cast<unsigned>(grid), stream, attr);
  lc.dynamicSmemBytes = kSmem;
  const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, A, B, C, M, N, K, epi);
  if (err != cudaSuccess) return static_cast<int>(err);
  return rl_launch_status();
}

// Relative time of a split config in tile_cost's units times K: as tile_cost with tiles x SPLIT
// CTAs (ceil(CTAs / SMs) per SM; only considered when all CTAs are resident at once, so there
// is no tail of unscheduled clusters), each running ceil(k_tiles / SPLIT) k-tiles plus
// kReduceK of K-equivalent for parking, the DSMEM reduction and the two cluster barriers.
// v6's configs cost tile_cost x K in the same units.
constexpr int kSplitMinK = 1024, kReduceK = 128;

template <class Cfg, int SPLIT, class Epi>
double split_cost(int M, int N, int K, int eff_pct) {
  const long long ctas = tile_count<Cfg>(M, N) * SPLIT;
  if (K < kSplitMinK || ctas > cluster_slots<Cfg, SPLIT, Epi>()) return 1e300;
  const long long slice = rl_ceil_div(rl_ceil_div(K, Cfg::BK), SPLIT) * Cfg::BK;
  const long long per_sm = rl_ceil_div(ctas, rl_sm_count());
  return static_cast<double>(per_sm * Cfg::BM * Cfg::BN) * 100.0 / eff_pct *
         static_cast<double>(slice + kReduceK);
}

template <class Cfg>
double tile_cost_k(int M, int N, int K, int eff_pct) {
  return static_cast<double>(tile_cost<Cfg>(M, N, eff_pct)) * K;
}

enum class SplitChoice { kNone, kWideX2, kWideX4, kWX2, kWX4, kSquareX2, kSquare8wX2 };

// The cheapest split config if it beats v6's choice (ties keep v6), else kNone. The 128x128
// tile of 8 warps counts at its measured 88% of CfgWide's rate per SM (CfgSquare: 80).
template <class Epi>
SplitChoice choose_split(int M, int N, int K) {
  if (K < kSplitMinK || !device_is_sm90()) return SplitChoice::kNone;
  double base = 0;
  switch (choose_tile(M, N)) {
    case TileChoice::kTall: base = tile_cost_k<CfgTall>(M, N, K, 103); break;
    case TileChoice::kWide: base = tile_cost_k<CfgWide>(M, N, K, 100); break;
    case TileChoice::kSquare: base = tile_cost_k<CfgSquare>(M, N, K, 80); break;
    case TileChoice::kW: base = tile_cost_k<CfgW>(M, N, K, 65); break;
    case TileChoice::kT64: base = tile_cost_k<CfgT64>(M, N, K, 50); break;
    default: base = tile_cost_k<CfgT32>(M, N, K, 40); break;
  }
  SplitChoice best = SplitChoice::kNone;
  double cost = base;
  const auto consider = [&](SplitChoice c, double v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  consider(SplitChoice::kWideX2, split_cost<CfgWide, 2, Epi>(M, N, K, 100));
  consider(SplitChoice::kWideX4, split_cost<CfgWide, 4, Epi>(M, N, K, 100));
  consider(SplitChoice::kWX2, split_cost<CfgW, 2, Epi>(M, N, K, 65));
  consider(SplitChoice::kWX4, split_cost<CfgW, 4, Epi>(M, N, K, 65));
  consider(SplitChoice::kSquareX2, split_cost<CfgSquare, 2, Epi>(M, N, K, 80));
  consider(SplitChoice::kSquare8wX2, split_cost<CfgSquare8w, 2, Epi>(M, N, K, 88));
  return best;
}

// v6, except that on compute capability 9.0 with the 16-byte path a cluster split-K config
// runs where choose_split finds one cheaper. CfgSquare8w's split kernel stages a functor's
// column operand in shared memory (the fused family's bias: 4% faster fused at
// 256x4096x4096); on CfgWide (253 registers) the staging measured 3% slower at 512x4096x4096
// and on CfgW no different at 128x4096x4096 (docs/perf-log.md, S2), so those keep the L2
// prefetch.
template <class Epi>
int launch_cluster_split_k(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  if (!vec16_ok(A, B, C, N, K, epi)) return launch_tile_per_shape(A, B, C, M, N, K, epi, stream);
  switch (choose_split<Epi>(M, N, K)) {
    case SplitChoice::kWideX2:
      return launch_cluster_splitk<CfgWide, 2, Epi, false>(A, B, C, M, N, K, epi, stream);
    case SplitChoice::kWideX4:
      return launch_cluster_splitk<CfgWide, 4, Epi, false>(A, B, C, M, N, K, epi, stream);
    case SplitChoice::kWX2:
      return launch_cluster_splitk<CfgW, 2, Epi, false>(A, B, C, M, N, K, epi, stream);
    case SplitChoice::kWX4:
      return launch_cluster_splitk<CfgW, 4, Epi, false>(A, B, C, M, N, K, epi, stream);
    case SplitChoice::kSquareX2:
      return launch_cluster_splitk<CfgSquare, 2, Epi, false>(A, B, C, M, N, K, epi, stream);
    case SplitChoice::kSquare8wX2:
      return launch_cluster_splitk<CfgSquare8w, 2, Epi, Epi::kColOperand>(A, B, C, M, N, K, epi,
                                                                        stream);
    default: return launch_tile_per_shape(A, B, C, M, N, K, epi, stream);
  }
}

}  // namespace rlg
