// HGEMM v12 "warp_specialized": v11, with the large grids on a persistent, warp-specialized
// wgmma kernel in the style of the published Hopper GEMMs (CUTLASS's sm90 "cooperative" kernel,
// the "fast.cu" H100 write-ups): Hopper's tensor cores at the shapes where v11 still runs WMMA.
// v11's 256x128 WMMA tile moves every fragment through registers (ldmatrix, then mma.sync) and
// measured ~61% of cuBLAS at 4096³ (report AF); the WMMA API's own ceiling is ~640 TFLOP/s here.
//
// What changes against v11, where it runs (WsTile below):
//   - persistent: one CTA per SM (clusters of 2 as many as fit), each looping over 128x256
//     output tiles in a grouped raster (8 cluster rows of tiles per group), so the tiles in
//     flight at once share strips of A and B in L2;
//   - warp-specialized: warpgroup 0 is the producer (setmaxnreg.dec to 40 registers; its
//     thread 0 issues every TMA copy), warpgroups 1 and 2 the consumers (setmaxnreg.inc to
//     232), each owning 64 rows x 256 columns of the tile in 128 fp32 registers per thread,
//     four m64n256k16 wgmmas per k-tile of 64, both operands read from shared memory;
//   - a 4-stage mbarrier ring (full: the TMA bytes landed; empty: every consumer warp of the
//     cluster is done with the stage) of 48 KB stages, 128-byte swizzled: A's box 64 k x 128
//     rows (K-major), B's 64 k x 256 columns as four 64-column boxes (N-major, trans-b);
//   - a cluster of 2 CTAs along M shares B: each CTA loads two of B's four boxes and multicasts
//     them into both CTAs, so a CTA reads 32 KB per k-tile from L2 instead of 48;
//   - the epilogue: each consumer warpgroup parks its fp32 results in shared memory 32 columns
//     at a time (two 8 KB buffers, one named barrier per pass), then every thread takes 8
//     consecutive columns of one row through the family's functor (store_chunk: Epi::apply,
//     one 16-byte store; 4 lanes cover 64 contiguous bytes of a row), bounds-checked at M and
//     N. Meanwhile the producer already fills the ring with the next tile's k-tiles.
// Edges: TMA zero-fills rows past M, columns past N and the K tail (K need not be a multiple
// of 64; K < 64 is one k-tile), and the CTA of a cluster whose tile lies wholly below M (odd
// tile rows) computes zeros it never stores. Requirements, as v9's: N % 8 == 0, K % 8 == 0,
// 16-byte aligned A, B, C and functor operands (the tensor maps' strides and addresses);
// sm_90a code and a device of compute capability 9.0 (wgmma_capable).
//
// Where it runs (ws_fits): the tile grid fills one wave (at least 7/8 of the SMs get a tile)
// and no more than 1/4 of the tiles' area, cluster pairs included, lies outside C (so M >= 192
// in practice); otherwise v11's paths, which keep the mid-M wgmma tile, split-K and the GEMV's
// slabs. GEMM+bias+GELU v5 runs the same kernel with its functor (gemm_bias_gelu_5_*).
//
// Prediction (before any GPU run; floors at 990 TFLOP/s dense fp16, 1980 MHz): 4096³ floor 139
// us, cuBLAS measured 181 us (~760 TFLOP/s). Expected 0.9-1.0x cuBLAS at 4096³ and 8192³ (680-
// 760 TFLOP/s: the epilogue is not overlapped with the tensor cores, 3-5% of a tile's time,
// and the last wave holds 3.9 / 4 and 15.5 / 16 tiles per cluster), 0.8-0.9x at 2048³ (one
// wave of 128 tiles on 132 SMs, nothing hides the prologue or the epilogue); 1.6-1.9x v11.
// Measured (S34a, kernel timing, cold L2, interleaved with cuBLAS): 2048³ 29.2 us (0.93x cuBLAS),
// 4096³ 190 us (723 TFLOP/s, 0.96x), 8192³ 1.466 ms (750 TFLOP/s, 0.99x); 1.45-1.65x v11. What
// is left at 4096³ is the epilogue, which the tensor cores wait for (the perf log).
#pragma once
#include <climits>

#include "gemm/hgemm_11_lean_loop.cuh"
#include "gemm/ws_epilogue_warps.cuh"
#include "gemm/ws_pingpong.cuh"
#include "gemm/ws_split_k_pair.cuh"
#include "gemm/ws_stagger_last.cuh"
#include "gemm/ws_store_tma.cuh"
#include "gemm/ws_store_under_next.cuh"
#include "gemm/ws_stream_k.cuh"

namespace rlg {

// Registers per thread after setmaxnreg: the producer warpgroup gives up what the consumers
// take, within the CTA's own allocation (the SASS: USETMAXREG.TRY_ALLOC.CTAPOOL, retried until
// the producer's release lands). A CTA of 384 threads launches with 168 per thread (65536 /
// 384, rounded down to 8; ptxas: 168): 168 x 384 = 64512 = 40 x 128 + 232 x 256 exactly. The
// often-quoted 40 / 240 would ask for 2048 registers the pool never has: the consumers would
// wait in setmaxnreg.inc forever.
constexpr int kWsProducerRegs = 40, kWsConsumerRegs = 232;
static_assert((kWsProducerRegs + 2 * kWsConsumerRegs) * 128 <= 168 * 384 &&
                  kWsProducerRegs % 8 == 0 && kWsConsumerRegs % 8 == 0,
              "setmaxnreg counts: multiples of 8 within a 384-thread CTA's registers");

// The kernel's tile configuration, a template for tuning: BM x BN output tiles per CTA (BM 128:
// each consumer warpgroup owns 64 rows; 256: 128 rows, two m64 wgmmas per k-step), STAGES
// k-tiles of 64 in the ring, CLUSTER CTAs along M sharing B by multicast (1 or 2), GROUP_M
// cluster rows of tiles per raster group; TMA_STORE: the store of v14 (ws_store_tma.cuh: each
// consumer warpgroup stages its 64 x BN fp16 results for the TMA unit) instead of v12's parked
// passes; STREAM_K: v15's schedule (ws_stream_k.cuh: the first tiles' k-tiles shared by every
// cluster, partial sums through global memory), which needs v14's store; STAGE_HALVES: v16's
// staging of half the tile's columns at a time (ws_store_tma in two parts), for one more stage;
// PINGPONG: v17's schedule (hgemm_17_pingpong.cuh: each consumer warpgroup a whole 64 x BN
// tile of its own, the two taking the cluster's tiles in turn, so one's functor and store run
// under the other's wgmmas), which needs v14's store.
template <int BM_, int BN_, int STAGES_, int CLUSTER_, int GROUP_M_, bool TMA_STORE_ = false,
          bool STREAM_K_ = false, bool STAGE_HALVES_ = false, bool PINGPONG_ = false>
struct WsCfg {
  static constexpr int BM = BM_, BN = BN_, BK = kWgmmaKTile, kStages = STAGES_;
  static constexpr int kCluster = CLUSTER_, kGroupM = GROUP_M_;
  static constexpr bool kTmaStore = TMA_STORE_, kStreamK = STREAM_K_;
  static constexpr bool kStageHalves = STAGE_HALVES_, kPingpong = PINGPONG_;
  // The cluster's CTAs stacked along M, sharing B (v12..v18); WsCfgN's (v19) side by side
  // along N, sharing A.
  static constexpr bool kClusterN = false;
  // v20 (WsCfgNLean): the wgmma descriptors built once and moved on by adds in the main loop.
  static constexpr bool kLeanDesc = false;
  // v21 (WsCfgHalfInRing): the second half of v16's staging in the ring stage the tile's last
  // k-tile emptied, held from the producer until the TMA store has read it.
  static constexpr bool kHalfInRing = false;
  // v24 (WsCfgUnderNext): the tile's results packed to registers after its last wgmma, the
  // functor and store run under the next tile's first k-tiles (ws_store_under_next.cuh).
  static constexpr bool kStoreUnderNext = false;
  // v25 (WsCfgWgRelease): a stage released once per consumer warpgroup (one lane per CTA of
  // the cluster), not once per warp.
  static constexpr bool kWgRelease = false;
  // v28 (WsCfgPrefetchB): the producer also fetches B's boxes this many k-tiles ahead into L2
  // (0: none), so that more of B's DRAM reads are in flight than the ring holds.
  static constexpr int kPrefetchB = 0;
  // v29 (WsCfgBHalves): where B's boxes do not divide evenly over the multicast group (one box
  // of a 64-wide tile, three of a 192-wide one), every box is loaded as kMcast slices of its
  // k-rows, one per CTA, so that each CTA of the group issues the same share of B.
  static constexpr bool kBHalves = false;
  // v30 (WsCfgPrefetchMaps): the kernel's tensor maps fetched into the TMA unit before the
  // barriers are set up, not on the first load (and the first store) that names them.
  static constexpr bool kPrefetchMaps = false;
  // v31 (WsCfgExitOnRead): before the CTA exits, its last TMA stores waited for only until
  // they have read the staging (the grid's end makes their writes visible), not completed.
  static constexpr bool kExitOnRead = false;
  // v32 (WsCfgProducerTail): the cluster's first meeting without the release (the barriers'
  // init fence orders what it must), and no last meeting: each producer waits instead until
  // every stage it filled has been released by all of its readers (CUTLASS's producer tail).
  static constexpr bool kProducerTail = false;
  // Fused v22 (WsCfgEpilogueWarps): a split functor's second half applied to each staged tile
  // but the CTA's last by warps 1-3 of the producer warpgroup, which also store it
  // (ws_epilogue_warps.cuh), while the consumers run the next tile's main loop.
  static constexpr bool kEpiWarps = false;
  // Fused v23 (WsCfgHeldHalfByConsumers): v22's, but the 256-wide tile's second half (the one
  // in the held ring stage) finished and stored by the consumers, as v21's.
  static constexpr bool kEpiHeldByConsumers = false;
  // Fused v25 (WsCfgStaggeredLast): on a CTA's last tile, consumer warpgroup 1 starts this many
  // k-tiles after warpgroup 0 (0: together), and both apply the functor in registers before
  // the store waits for anything (ws_stagger_last.cuh).
  static constexpr int kStaggerLast = 0;
  // v27 (WsCfgSplitK): the cluster's CTAs in kSplitK groups along K, the kMcast CTAs of a
  // group stacked along M sharing B as above; each group computes its share of the k-tiles and
  // the pair's partial sums meet in shared memory (ws_split_k_pair.cuh). kMcast: the CTAs one
  // multicast reaches (v12..v26: the whole cluster).
  static constexpr int kSplitK = 1, kMcast = kCluster;
  static constexpr int kThreads = 384;          // producer warpgroup + 2 consumer warpgroups
  // The consumer warps that read a stage, each releasing it on its own: both warpgroups' (a
  // tile's halves), or v17's one (the stage belongs to its tile alone).
  static constexpr int kConsumerWarps = kPingpong ? 4 : 8;
  // The arrivals a stage's empty barrier takes from each CTA of the cluster: one per consumer
  // warp (v25's WsCfgWgRelease: one per consumer warpgroup).
  static constexpr int kReleasers = kConsumerWarps;
  static constexpr int kWgRows = kPingpong ? BM : BM / 2;  // a consumer warpgroup's rows
  static constexpr int kMBlocks = kWgRows / 64; // its m64 row blocks
  static constexpr int kAcc = BN / 2;           // fp32 results per thread and m64 block
  static constexpr int kBoxes = BN / 64;        // B's 64-column boxes (a 128-byte swizzle row)
  static constexpr int kABytes = BM * BK * 2;   // BM rows of 128 bytes
  static constexpr int kBoxBytes = BK * 64 * 2; // 8 KB: 64 k-rows of 128 bytes
  static constexpr int kStageBytes = kABytes + kBoxes * kBoxBytes;
  // The epilogue parks 64 rows x kEpiCols fp32 per pass, in two buffers per consumer warpgroup.
  static constexpr int kEpiCols = 32, kParkFloats = 64 * kEpiCols;
  static constexpr int kParkBytes = 2 * 2 * kParkFloats * 4;
  // v14's staging: each consumer warpgroup's 64 rows x kStoreCols fp16, as boxes of 64
  // columns (8 KB); v16 stages half of the columns at a time.
  static constexpr int kStoreCols = kStageHalves ? BN / 2 : BN;
  static constexpr int kStoreStageBytes = 2 * 64 * kStoreCols * 2;
  static constexpr int kSmem =
      kStages * kStageBytes + (kTmaStore ? kStoreStageBytes : kParkBytes) + 1024;  // + align
  static_assert(kPingpong ? BM == 64 : BM == 128 || BM == 256,
                "one or two m64 blocks per consumer warpgroup (v17: one, its whole tile)");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256,
                "the m64n64 / n128 / n192 / n256 wgmmas of wgmma.cuh");
  static_assert(kMBlocks * kAcc <= 128, "accumulators that fit the consumers' 232 registers");
  static_assert(kCluster == 1 || kCluster == 2, "a CTA alone or a pair sharing B");
  static_assert((BN / kEpiCols) % 2 == 0, "an even number of passes per m64 block");
  static_assert(!kTmaStore || kMBlocks == 1, "v14's store: one m64 block per consumer warpgroup");
  static_assert(!kPingpong || (kTmaStore && !kStreamK && !kStageHalves),
                "v17: v14's store, whole tiles, whole staging");
  static_assert(!kStreamK || (kTmaStore && BN <= kWsSkMaxBN), "v15: v14's store, a slot's width");
  static_assert(!kStageHalves || (kTmaStore && kStoreCols % 64 == 0), "v16: whole boxes a half");
  static_assert(kSmem + 16 * kStages <= 227 * 1024, "one CTA's shared memory, barriers included");
};

// HGEMM v19's configuration (hgemm_19_a_multicast.cuh): 128 x BN tiles with v14's store, the
// cluster pair side by side along N: the two CTAs compute the same 128 rows, each loads one
// 64-row half of A's box and multicasts it into both, and loads its own B boxes alone.
template <int BN_, int STAGES_, int GROUP_M_>
struct WsCfgN : WsCfg<128, BN_, STAGES_, 2, GROUP_M_, true> {
  static constexpr bool kClusterN = true;
};

// HGEMM v20's configuration (hgemm_20_lean_descriptors.cuh): v19's, its consumers moving one
// pair of wgmma descriptors on by adds instead of building each from its address.
template <int BN_, int STAGES_, int GROUP_M_>
struct WsCfgNLean : WsCfgN<BN_, STAGES_, GROUP_M_> {
  static constexpr bool kLeanDesc = true;
};

// HGEMM v21's configuration (hgemm_21_half_in_ring.cuh): Base (v16's 128x256 tile staged in
// halves), its second half staged in the ring stage the tile's last k-tile emptied, so the
// warpgroup never waits for the first half's store to read the staging.
template <class Base>
struct WsCfgHalfInRing : Base {
  static constexpr bool kHalfInRing = true;
  static_assert(Base::kStageHalves && !Base::kStreamK && !Base::kPingpong && !Base::kClusterN &&
                    2 * 64 * Base::kStoreCols * 2 <= Base::kBoxes * Base::kBoxBytes,
                "v21: v16's halves on v14's schedule; both warpgroups' halves fit a stage's B");
};

// The configuration v12 runs: 128x256 tiles, 4 stages (4 x 48 KB + 32 KB parking + 1 KB =
// 225 KB of the 227 KB a CTA may have), a cluster of 2 along M, 8 cluster rows per group.
using WsTile = WsCfg<128, 256, 4, 2, 8>;

// The order of the output tiles, the same in the producer and the consumers. A cluster tile is
// CLUSTER x BM rows by BN columns (its CTAs' tiles stacked along M), or with kClusterN (v19)
// BM rows by CLUSTER x BN columns (side by side along N); cluster c takes cluster tiles c,
// c + clusters, ... In groups of GROUP_M cluster rows, column-major inside a group: the
// clusters running at once cover about GROUP_M strips of A and clusters / GROUP_M of B.
template <class Cfg>
struct WsSchedule {
  // CTAs of a cluster tile, one group along K (v27: kSplitK groups take the same tile)
  static constexpr int kAlongM = Cfg::kClusterN ? 1 : Cfg::kMcast;
  static constexpr int kAlongN = Cfg::kClusterN ? Cfg::kMcast : 1;
  int m_ctiles, n_tiles, total;  // cluster tiles; the host has checked that total fits an int
  __host__ __device__ WsSchedule(int M, int N)
      : m_ctiles(static_cast<int>(rl_ceil_div(rl_ceil_div(M, Cfg::BM), kAlongM))),
        n_tiles(static_cast<int>(Cfg::kClusterN ? rl_ceil_div(rl_ceil_div(N, Cfg::BN), kAlongN)
                                                : rl_ceil_div(N, Cfg::BN))),
        total(m_ctiles * n_tiles) {}
  // Tile t's first row and first column for the CTA of rank `rank` in its multicast group
  // (host code walks it too: hgemm_19_a_multicast.cuh's ws_schedule_check).
  __host__ __device__ __forceinline__ void at(int t, int rank, int &m0, int &n0) const {
    const int per_group = Cfg::kGroupM * n_tiles;
    const int g = t / per_group, first = g * Cfg::kGroupM;
    const int rows = min(m_ctiles - first, Cfg::kGroupM);  // the last group may be shorter
    const int in = t - g * per_group;
    if constexpr (Cfg::kClusterN) {
      m0 = (first + in % rows) * Cfg::BM;
      n0 = ((in / rows) * kAlongN + rank) * Cfg::BN;
    } else {
      m0 = ((first + in % rows) * Cfg::kMcast + rank) * Cfg::BM;
      n0 = (in / rows) * Cfg::BN;
    }
  }
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ int ws_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return static_cast<int>(r);
}
// Every thread of every CTA of the cluster: arrive (release), then wait (acquire). Not
// .aligned: the producer warp reaches the last one after its lane 0 ran the loads alone.
__device__ __forceinline__ void ws_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
// v32: the same meeting with a relaxed arrive, which compiles without the release's ERRBAR
// (Nsight Compute, S44f: ~900 SM cycles a warp at v23's start). Only for the meeting after
// the barriers' init: fence.mbarrier_init.release.cluster orders the inits before it.
__device__ __forceinline__ void ws_cluster_sync_after_init() {
  asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
// Arrives on the mbarrier at bar's offset in CTA `cta` of the cluster (this one included).
// The default (CTA-scope) semantics, as CUTLASS's ClusterBarrier: what it orders is a
// write-after-read, the stage's reads by wgmma being complete (wgmma.wait_group) before the
// arrival is issued, and the producer issuing its TMA write only after it observed the phase.
// The .release.cluster form costs a MEMBAR.ALL.GPU per arrival in the SASS (waiting on the
// epilogue's outstanding stores), and its acquire.cluster partner an L1 invalidation.
__device__ __forceinline__ void ws_arrive_in(unsigned long long *bar, int cta) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_addr(bar)),
      "r"(cta)
      : "memory");
}
// tma_load_2d into the same offset of every CTA in `mask`, each copy completing on the
// mbarrier at bar's offset in its CTA.
__device__ __forceinline__ void ws_load_multicast(void *dst, const CUtensorMap *map, int c0, int c1,
                                                  unsigned long long *bar, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(smem_addr(bar)),
      "h"(mask)
      : "memory");
}
// Named barrier `id` (1, 2: one per consumer warpgroup; 0 is __syncthreads') of 128 threads.
__device__ __forceinline__ void ws_warpgroup_sync(int id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

// A consumer warp is done with a stage: lane 0 releases it to the producer of every CTA of the
// cluster (each of them multicasts into this CTA's copy of the stage).
// CLUSTER: the CTAs whose producers multicast into this one, ranks first .. first + CLUSTER - 1
// (v27: the CTA's group along K; else the whole cluster, first 0).
template <int CLUSTER>
__device__ __forceinline__ void ws_release(unsigned long long *empty, int lane, int first = 0) {
  if (lane != 0) return;
  if constexpr (CLUSTER == 1) {
    mbar_arrive(empty);
  } else {
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) ws_arrive_in(empty, first + r);
  }
}

// v25: a consumer warpgroup is done with a stage once wgmma.wait_group has returned in its warp
// 0 (a warpgroup's wgmma is one operation; CUTLASS and the "fast.cu" kernels release on this):
// thread t < CLUSTER of warp 0 releases the stage to the producer of CTA t, in one instruction.
template <int CLUSTER>
__device__ __forceinline__ void ws_release_wg(unsigned long long *empty, int t) {
  if (t >= CLUSTER) return;
  if constexpr (CLUSTER == 1)
    mbar_arrive(empty);
  else
    ws_arrive_in(empty, t);
}
// v21: the stage holding the last tile's second half goes back to the producers once its
// store has read it, for this warpgroup's 4 warps (thread 0 of the warpgroup; the caller
// checks that a stage is held).
template <class Cfg>
__device__ __forceinline__ void ws_release_held(unsigned long long *empty) {
  if (threadIdx.x % 128 != 0) return;
  tma_store_wait_all<true>();
#pragma unroll
  for (int w = 0; w < Cfg::kReleasers / (Cfg::kConsumerWarps / 4); ++w)
    ws_release<Cfg::kMcast>(empty, 0);
}
// The release the configuration asks for: per warp (lane 0), or (v25) per warpgroup.
// first: the first rank of the CTA's multicast group (v27; else 0).
template <class Cfg>
__device__ __forceinline__ void ws_release_cfg(unsigned long long *empty, int lane, int first) {
  if constexpr (Cfg::kWgRelease)
    ws_release_wg<Cfg::kCluster>(empty, static_cast<int>(threadIdx.x % 128));
  else
    ws_release<Cfg::kMcast>(empty, lane, first);
}

template <int BN, class T>
__device__ __forceinline__ void ws_wgmma(float (&d)[BN / 2], unsigned long long da,
                                         unsigned long long db) {
  if constexpr (BN == 256)
    wgmma_64x256x16<T>(d, da, db);
  else if constexpr (BN == 192)
    wgmma_64x192x16<T>(d, da, db);
  else if constexpr (BN == 128)
    wgmma_64x128x16<T>(d, da, db);
  else
    wgmma_64x64x16<T>(d, da, db);
}

// One consumer warpgroup's results through the functor to C: for each m64 block and each pass
// of 32 columns, every thread parks its float2s (row 16 warp + lane / 4 (+8), columns 8j +
// 2 (lane % 4): the wgmma layout), the warpgroup meets at its named barrier, and every thread
// takes 8 consecutive columns of two rows back (4 lanes a row) into store_chunk. A parked row
// is 128 bytes; its 16-byte chunk c sits at c ^ (row % 8), so a warp's float2 stores (8 rows x
// 32 bytes) take the 2 wavefronts their 256 bytes need, and each quarter-warp's 16-byte loads
// (2 rows, an even one and the next) hit 8 distinct bank groups. The two buffers alternate by
// pass: a thread parks pass q + 1 only after the barrier of pass q, which every thread reached
// after reading pass q - 1 from the same buffer, so one barrier per pass suffices (across
// tiles too: the passes per tile are even, every tile starts on buffer 0).
template <class Cfg, class Epi, class T>
__device__ __forceinline__ void ws_epilogue(float (&d)[Cfg::kMBlocks][Cfg::kAcc], float *park,
                                            T *C, int M, int N, int row0, int col0,
                                            int bar_id, const Epi &epi) {
  constexpr int kPasses = Cfg::BN / Cfg::kEpiCols;
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
#pragma unroll
  for (int mi = 0; mi < Cfg::kMBlocks; ++mi) {
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      float *area = park + (p % 2) * Cfg::kParkFloats;
#pragma unroll
      for (int jj = 0; jj < Cfg::kEpiCols / 8; ++jj) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = 16 * warp + lane / 4 + 8 * h, c = 8 * jj + 2 * (lane % 4);
          const int j = p * (Cfg::kEpiCols / 8) + jj;  // the accumulators' 8-column group
          *reinterpret_cast<float2 *>(area + r * Cfg::kEpiCols + (((c / 4) ^ (r % 8)) * 4) +
                                      c % 4) = make_float2(d[mi][4 * j + 2 * h],
                                                           d[mi][4 * j + 2 * h + 1]);
        }
      }
      ws_warpgroup_sync(bar_id);
#pragma unroll
      for (int i = 0; i < 64 * Cfg::kEpiCols / 8 / 128; ++i) {
        const int r = t / 4 + 32 * i, c8 = t % 4;  // row, 8-column chunk of the pass
        const float4 *src = reinterpret_cast<const float4 *>(area + r * Cfg::kEpiCols);
        const float4 lo = src[(2 * c8) ^ (r % 8)], hi = src[(2 * c8 + 1) ^ (r % 8)];
        float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        store_chunk<true>(epi, v, C, row0 + 64 * mi + r, col0 + Cfg::kEpiCols * p + 8 * c8, M,
                          N);
      }
    }
  }
}
#endif

// The persistent warp-specialized kernel; grid: CLUSTER x (clusters resident at once, at most
// the cluster tiles). The ring's invariants, per stage s and its k-th use (round k):
//   full[s]  (count 1): this CTA's producer arrives with expect_tx(kStageBytes); the bytes are
//            its own A box, its own B boxes and the peer's multicast B boxes (v19: its own B
//            boxes, its own half of A's box and the peer's multicast half). The peer's bytes
//            may land before the local expect_tx; the phase cannot complete before that
//            arrival (its pending count is 1), and cannot take bytes of round k + 1 early: the
//            peer reloads stage s only after this CTA's consumers released round k, which they
//            do after waiting for it.
//   empty[s] (count kReleasers x kMcast): every consumer warp (v25: warpgroup) of every CTA
//            of the multicast group (the cluster; v27: its half along K) arrives once per
//            round, after the wgmmas that read the stage completed (wgmma.wait_group);
//            the producer reloads round k + 1 only after round k's phase completed here, so
//            neither CTA's multicast overwrites a stage the other still reads.
// Stage and phase advance identically in the producer and the consumers (both walk the same
// tiles and k-tiles), the producer skipping the empty wait in its first round.
// T: the element type of A, B, C and the functor's operands: half, or bf16 (gemm/bf16_paths.cuh:
// the same bytes in the ring, the wgmmas' .bf16 form, bf16 tensor maps and stores).
template <class Cfg, class Epi, class T = half>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    ws_gemm_kernel(const __grid_constant__ CUtensorMap amap,
                   const __grid_constant__ CUtensorMap bmap,
                   const __grid_constant__ CUtensorMap cmap, T *C, int M, int N, int K,
                   Epi epi, WsSkArgs sk) {
  static_assert(!StagesOperand<Epi>::value || (Cfg::kTmaStore && !Cfg::kStreamK &&
                                                 !Cfg::kStageHalves && !Cfg::kPingpong),
                "a staged operand: v14's whole staging, whole tiles, one tile per CTA at a time");
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int S = Cfg::kStages, CL = Cfg::kCluster;
  extern __shared__ unsigned char ws_smem_raw[];
  // The swizzle pattern repeats every 1024 bytes: stages start on 1024-byte boundaries, at the
  // same offsets in every CTA (a multicast copy lands at its source's offset in each).
  unsigned char *ring = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(ws_smem_raw) + 1023) & ~uintptr_t(1023));
  float *park = reinterpret_cast<float *>(ring + S * Cfg::kStageBytes);
  __shared__ unsigned long long full[S], empty[S];
  // v17: consumer warpgroup w arrives on handoff[w] (all 128 threads) once it has waited for
  // the last stage of its tile, and the other waits for that before its next tile's first
  // stage (why: ws_pingpong.cuh).
  __shared__ unsigned long long handoff[2];
  // v27: the pair's partial sums landed here (pair_full), and the partner's buffer is free for
  // this CTA's (pair_free; ws_split_k_pair.cuh).
  [[maybe_unused]] __shared__ unsigned long long pair_full, pair_free;
  const WsSchedule<Cfg> sched(M, N);
  const int k_tiles = (K + Cfg::BK - 1) / Cfg::BK;
  const int rank = CL > 1 ? ws_cluster_rank() : 0;
  // v27: this CTA's place in its multicast group (along M) and its group's along K.
  const int m_rank = Cfg::kSplitK == 1 ? rank : rank % Cfg::kMcast;
  const int k_rank = Cfg::kSplitK == 1 ? 0 : rank / Cfg::kMcast;
  const int group0 = k_rank * Cfg::kMcast;  // the group's first rank
  const int cluster = static_cast<int>(blockIdx.x) / CL;
  const int clusters = static_cast<int>(gridDim.x) / CL;
  if constexpr (Cfg::kPrefetchMaps) {
    // v30: one thread of another warp than the barriers' (its prefetches do not wait).
    if (threadIdx.x == 32) {
      tma_prefetch_map(&amap);
      tma_prefetch_map(&bmap);
      if constexpr (Cfg::kTmaStore) tma_prefetch_map(&cmap);
    }
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], Cfg::kReleasers * Cfg::kMcast);
    }
    if constexpr (Cfg::kPingpong) {
      mbar_init(&handoff[0], 128);
      mbar_init(&handoff[1], 128);
    }
    if constexpr (Cfg::kSplitK > 1) {
      mbar_init(&pair_full, 1);
      mbar_init(&pair_free, 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every CTA's barriers are initialized before any CTA multicasts into or arrives on them.
  if constexpr (CL > 1 && Cfg::kProducerTail)
    ws_cluster_sync_after_init();
  else if constexpr (CL > 1)
    ws_cluster_sync();
  else
    __syncthreads();
  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kWsProducerRegs));
    if (threadIdx.x == 0) {
      int s = 0, phase = 0;
      bool first_round = true;
      // The ring's next stage, a new round (phase) after the last one.
      const auto advance = [&] {
        if (++s == S) {
          s = 0;
          phase ^= 1;
          first_round = false;
        }
      };
      ws_for_units<Cfg::kStreamK>(cluster, clusters, sched.total, k_tiles, sk, [&](int t, int k0,
                                                                                int k1) {
        int m0, n0;
        sched.at(t, m_rank, m0, n0);
        if constexpr (Cfg::kSplitK > 1) ws_pair_k_range(k_rank, k0, k1);
        for (int kt = k0; kt < k1; ++kt) {
          // Round r of stage s needs round r - 1 released by the multicast group's consumers.
          if (!first_round) mbar_wait(&empty[s], phase ^ 1);
          unsigned char *st = ring + s * Cfg::kStageBytes;
          mbar_expect_tx(&full[s], Cfg::kStageBytes);
          if constexpr (Cfg::kClusterN) {
            // v19: A's 128 rows as two boxes of 64, rank r's half multicast into both CTAs
            // (the tile's rows are the pair's); B's boxes this CTA's own.
            ws_load_multicast(st + rank * (Cfg::kABytes / 2), &amap, kt * Cfg::BK,
                              m0 + rank * (Cfg::BM / 2), &full[s], 0x3);
#pragma unroll
            for (int box = 0; box < Cfg::kBoxes; ++box)
              tma_load_2d(st + Cfg::kABytes + box * Cfg::kBoxBytes, &bmap, n0 + 64 * box,
                          kt * Cfg::BK, &full[s]);
          } else {
            tma_load_2d(st, &amap, kt * Cfg::BK, m0, &full[s]);
#pragma unroll
            for (int box = 0; box < Cfg::kBoxes; ++box) {
              if constexpr (Cfg::kBHalves) {
                // v29: this CTA's slice of the box's k-rows, multicast into the group; the
                // slice starts at a multiple of 1024 bytes, so the swizzle is the whole box's.
                constexpr int kRows = Cfg::BK / Cfg::kMcast;
                ws_load_multicast(st + Cfg::kABytes + box * Cfg::kBoxBytes + m_rank * kRows * 128,
                                  &bmap, n0 + 64 * box, kt * Cfg::BK + m_rank * kRows, &full[s],
                                  static_cast<unsigned short>(((1 << Cfg::kMcast) - 1) << group0));
                continue;
              }
              // Rank r of the group loads boxes [r * boxes / G, (r + 1) * boxes / G) for all G
              // (kMcast) of them: halves of an even count, 2 + 1 of v13's three, the group's
              // first CTA alone the one box of a 64-column tile.
              if (box * Cfg::kMcast / Cfg::kBoxes != m_rank) continue;
              unsigned char *dst = st + Cfg::kABytes + box * Cfg::kBoxBytes;
              if constexpr (Cfg::kMcast > 1)
                ws_load_multicast(dst, &bmap, n0 + 64 * box, kt * Cfg::BK, &full[s],
                                  static_cast<unsigned short>(((1 << Cfg::kMcast) - 1) << group0));
              else
                tma_load_2d(dst, &bmap, n0 + 64 * box, kt * Cfg::BK, &full[s]);
              if constexpr (Cfg::kPrefetchB > 0)
                if (kt + Cfg::kPrefetchB < k1)
                  tma_prefetch_2d(&bmap, n0 + 64 * box, (kt + Cfg::kPrefetchB) * Cfg::BK);
            }
          }
          advance();
        }
      });
      if constexpr (Cfg::kProducerTail && CL > 1) {
        // v32: the ring once more round, waiting as for a next load: every stage filled has
        // been released by the consumers of every CTA it was multicast to, so no arrival on
        // this CTA's barriers is still to come when it leaves (the peers' producers wait the
        // same for this CTA's consumers' arrivals on theirs).
        for (int i = 0; i < S; ++i) {
          if (!first_round) mbar_wait(&empty[s], phase ^ 1);
          advance();
        }
      }
    }
    if constexpr (Cfg::kEpiWarps) {
      if (threadIdx.x >= 32)
        ws_epilogue_warps<Cfg, T>(ring, reinterpret_cast<unsigned char *>(park), &cmap, sched,
                                  cluster, clusters, k_tiles, m_rank, M, N, epi, [&](int held) {
                                    // Both consumer warpgroups' releases of the held stage.
#pragma unroll
                                    for (int w = 0; w < Cfg::kReleasers; ++w)
                                      ws_release<Cfg::kMcast>(&empty[held], 0);
                                  });
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kWsConsumerRegs));
    const int cw = wg - 1, lane = threadIdx.x % 32;
    float *my_park = park + cw * 2 * Cfg::kParkFloats;
    // v20: stage 0's descriptors of this warpgroup's A rows and of B. Every operand lies in
    // this CTA's shared window (below 256 KB), so adding offset / 16 to a descriptor's low word
    // never carries out of its 14-bit address field: the sum is the moved address's descriptor,
    // the high word (stride, swizzle) the same. The warpgroup index goes through a shuffle so
    // that the compiler sees it warp-uniform and keeps the descriptors in uniform registers.
    [[maybe_unused]] const unsigned long long desc_a0 =
        Cfg::kLeanDesc
            ? wg_desc(ring + (Cfg::kPingpong ? 0 : __shfl_sync(0xffffffffu, cw, 0) * Cfg::kWgRows *
                                                       128),
                      16, 1024)
            : 0;
    [[maybe_unused]] const unsigned long long desc_b0 =
        Cfg::kLeanDesc ? wg_desc(ring + Cfg::kABytes, Cfg::kBoxBytes, 1024) : 0;
    int s = 0, phase = 0;
    int turn = 0, mine = 0;  // v17: the cluster's tiles so far, and this warpgroup's
    [[maybe_unused]] int held = -1;  // v21: the stage the last tile's second half is staged in
    // v24: the last tile's results, packed, and where they go; stored under this tile's wgmmas.
    [[maybe_unused]] unsigned pend[Cfg::kStoreUnderNext ? Cfg::kAcc / 2 : 1];
    [[maybe_unused]] int pend_row0 = 0, pend_col0 = 0;
    [[maybe_unused]] bool pending = false;
    [[maybe_unused]] unsigned pair_parity = 0;  // v27: the pair's exchanges so far, mod 2
    [[maybe_unused]] unsigned char *const my_staging =
        reinterpret_cast<unsigned char *>(park) + cw * 64 * Cfg::kStoreCols * 2;
    ws_for_units<Cfg::kStreamK>(cluster, clusters, sched.total, k_tiles, sk, [&](int t, int k0,
                                                                              int k1) {
      if constexpr (Cfg::kPingpong) {
        const int my_turn = turn++;
        if (my_turn % 2 != cw) {
          // The other warpgroup's tile: its k-tiles pass through the ring all the same.
          ws_ring_advance(s, phase, k1 - k0, S);
          return;
        }
        // The other's tile before this one has had all of its stages.
        if (my_turn > 0) mbar_wait(&handoff[1 - cw], ws_pp_handoff_parity(cw, mine));
        ++mine;
      }
      int m0, n0;
      sched.at(t, m_rank, m0, n0);
      if constexpr (Cfg::kSplitK > 1) ws_pair_k_range(k_rank, k0, k1);
      float d[Cfg::kMBlocks][Cfg::kAcc];
#pragma unroll
      for (int mi = 0; mi < Cfg::kMBlocks; ++mi)
#pragma unroll
        for (int i = 0; i < Cfg::kAcc; ++i) d[mi][i] = 0.0f;
      // Fused v21: the tile's column operand (bias) into registers, landing under the loop.
      [[maybe_unused]] unsigned col_ops[col_operand_regs<Cfg, Epi>()];
      if constexpr (Cfg::kTmaStore && !Cfg::kStoreUnderNext)
        ws_load_col_operand<Cfg, T>(epi, n0, N, lane, col_ops);
      // Fused v25: on the CTA's last tile, warpgroup 1 waits until warpgroup 0 is kStaggerLast
      // k-tiles in (where the tile has more).
      [[maybe_unused]] const bool stagger = Cfg::kStaggerLast > 0 && t + clusters >= sched.total &&
                                            k1 - k0 > Cfg::kStaggerLast;
      if constexpr (Cfg::kStaggerLast > 0)
        if (stagger && cw == 1) named_sync(kStaggerBar, kStaggerThreads);
      int prev = 0;
      // Two k-tiles an iteration, one where a staged operand is copied in: what the compiler
      // chooses for every other kernel here, but not for v21's on its own (its release check).
#pragma unroll(StagesOperand<Epi>::value || Cfg::kStoreUnderNext ? 1 : 2)
      for (int kt = k0; kt < k1; ++kt) {
        mbar_wait(&full[s], phase);
        if constexpr (Cfg::kPingpong)
          if (kt == k1 - 1) mbar_arrive(&handoff[cw]);
        // A: this warpgroup's rows, K-major, 32 bytes (16 k) further along the swizzled rows
        // per k-step. B: N-major (trans-b), its 64-column boxes 8 KB apart (the descriptor's
        // leading byte offset), 8-k-row groups 1024 bytes apart (stride offset), 16 k-rows
        // (2048 bytes) per k-step. Every start stays 1024-aligned but A's k offsets, as in v9.
        wg_fence();  // the accumulators were written (zeroed) since the last wgmma
        if constexpr (Cfg::kLeanDesc) {
          // v20: stage s, k-step kk is stage 0's descriptor with its start address field
          // (bits 0-13, the address / 16) moved on by the byte offset / 16: one add each.
          const unsigned stage16 = static_cast<unsigned>(s) * (Cfg::kStageBytes / 16);
#pragma unroll
          for (int kk = 0; kk < Cfg::BK / 16; ++kk) {
            const unsigned long long db = wg_desc_moved(desc_b0, stage16 + kk * (2048 / 16));
#pragma unroll
            for (int mi = 0; mi < Cfg::kMBlocks; ++mi)
              ws_wgmma<Cfg::BN, T>(
                  d[mi], wg_desc_moved(desc_a0, stage16 + (mi * 64 * 128 + kk * 32) / 16), db);
          }
        } else {
          const unsigned char *a =
              ring + s * Cfg::kStageBytes + (Cfg::kPingpong ? 0 : cw * Cfg::kWgRows * 128);
          const unsigned char *b = ring + s * Cfg::kStageBytes + Cfg::kABytes;
#pragma unroll
          for (int kk = 0; kk < Cfg::BK / 16; ++kk) {
            const unsigned long long db = wg_desc(b + kk * 2048, Cfg::kBoxBytes, 1024);
#pragma unroll
            for (int mi = 0; mi < Cfg::kMBlocks; ++mi)
              ws_wgmma<Cfg::BN, T>(d[mi], wg_desc(a + mi * 64 * 128 + kk * 32, 16, 1024), db);
          }
        }
        wg_commit();
        if constexpr (Cfg::kStoreUnderNext) {
          // v24: the last tile's store once this tile's first two k-tiles (or its only one)
          // are issued: the tensor cores have ~2 k-tiles of both warpgroups' work meanwhile.
          if (pending && kt == min(k1, k0 + 2) - 1) {
            ws_store_tma_packed<Cfg, T>(pend, my_staging, &cmap, M, N, pend_row0, pend_col0,
                                        1 + cw, epi);
            pending = false;
          }
        }
        wg_wait<1>();  // k-tile kt - 1's wgmmas are done: release its stage
        if (kt > k0) ws_release_cfg<Cfg>(&empty[prev], lane, group0);
        if constexpr (Cfg::kStaggerLast > 0)
          if (stagger && cw == 0 && kt == k0 + Cfg::kStaggerLast)
            named_arrive(kStaggerBar, kStaggerThreads);  // its first k-tiles are done
        if constexpr (Cfg::kHalfInRing)
          if (kt == k0 && held >= 0) ws_release_held<Cfg>(&empty[held]);  // read by now, usually
        if constexpr (StagesOperand<Epi>::value) {
          // Residual v11: the operand's copy into the staging, under the tile's second half,
          // once the previous tile's stores have read it (ws_staged_operand.cuh).
          if (kt == k0 + (k1 - k0) / 2) {
            if (threadIdx.x % 128 == 0) tma_store_wait_all<true>();
            asm volatile("bar.sync %0, 128;" ::"r"(1 + cw) : "memory");
            ws_stage_operand<Cfg, T>(reinterpret_cast<unsigned char *>(park) +
                                         cw * 64 * Cfg::kStoreCols * 2,
                                     epi, M, N, m0 + cw * Cfg::kWgRows, n0);
          }
        }
        prev = s;
        if (++s == S) {
          s = 0;
          phase ^= 1;
        }
      }
      wg_wait<0>();
#pragma unroll
      for (int mi = 0; mi < Cfg::kMBlocks; ++mi) wg_hold(d[mi]);
      // v22: a tile but the CTA's last goes to the epilogue warps, which release its stage.
      [[maybe_unused]] const bool to_epi_warps = Cfg::kEpiWarps && t + clusters < sched.total;
      if constexpr (Cfg::kHalfInRing) {
        // v21: the second half's staging, released in the next tile's loop
        if (!to_epi_warps || Cfg::kEpiHeldByConsumers) held = prev;
      } else
        ws_release_cfg<Cfg>(&empty[prev], lane, group0);  // the producer refills it while we store
      if constexpr (Cfg::kStreamK) {
        // v15: a unit that did not start its tile leaves its partial sums to the one that did,
        // which adds the others' before the functor (ws_stream_k.cuh).
        const int slot = (cluster * CL + rank) * 2 + cw;
        if (k0 > 0) {
          ws_sk_contribute<Cfg::kAcc>(d[0], sk, slot, 1 + cw);
          return;
        }
        if (k1 < k_tiles) ws_sk_gather<Cfg::kAcc, CL>(d[0], sk, cluster, clusters, t, k_tiles,
                                                      rank * 2 + cw, 1 + cw);
      }
      if constexpr (Cfg::kSplitK > 1) {
        // v27: half of the tile's rows (one warpgroup's) are this CTA's to finish: the other
        // warpgroup hands its sums to the partner along K, whose same warpgroup keeps them.
        const int partner = rank ^ Cfg::kMcast;
        if (cw != k_rank) {
          ws_pair_send<Cfg>(d[0], park, &pair_free, &pair_full, partner, pair_parity);
          pair_parity ^= 1;
          return;
        }
        ws_pair_receive<Cfg>(d[0], park, &pair_free, &pair_full, partner, pair_parity);
        pair_parity ^= 1;
      }
      if constexpr (Cfg::kStoreUnderNext) {
        // v24: out of the accumulators now, to C under the next tile's first k-tiles.
        ws_pack_results<T>(d[0], pend);
        pend_row0 = m0 + cw * Cfg::kWgRows;
        pend_col0 = n0;
        pending = true;
        return;
      }
      if constexpr (Cfg::kTmaStore) {
        // This warpgroup's rows: half the tile, or (v17) all of its own.
        unsigned char *staging =
            reinterpret_cast<unsigned char *>(park) + cw * 64 * Cfg::kStoreCols * 2;
        const int row0 = m0 + (Cfg::kPingpong ? 0 : cw * Cfg::kWgRows);
        if constexpr (Cfg::kEpiWarps) {
          unsigned char *const second =
              ring + prev * Cfg::kStageBytes + Cfg::kABytes + cw * 64 * Cfg::kStoreCols * 2;
          if (to_epi_warps) {
            ws_stage_for_epilogue_warps<Cfg, T>(d[0], staging, second, col_ops, epi, cw, &cmap,
                                                M, N, row0, n0);
            return;
          }
          // The CTA's last tile, stored here once the epilogue warps' last stores have read
          // the staging (v25: its functor applied first, while the other warpgroup may still
          // run its last k-tiles).
          if constexpr (Cfg::kStaggerLast > 0) {
            ws_apply_in_registers<Cfg, T>(d[0], col_ops, epi, row0, n0);
            named_sync(kEpiFreeBar + cw, kEpiPairThreads);
            ws_store_tma<Cfg, T>(d[0], staging, &cmap, M, N, row0, n0, 1 + cw, EpiIdentity{},
                                 Cfg::kHalfInRing ? second : nullptr);
            return;
          }
          named_sync(kEpiFreeBar + cw, kEpiPairThreads);
        }
        if constexpr (Cfg::kHalfInRing)
          ws_store_tma<Cfg, T>(d[0], staging, &cmap, M, N, row0, n0, 1 + cw, epi,
                               ring + held * Cfg::kStageBytes + Cfg::kABytes +
                                   cw * 64 * Cfg::kStoreCols * 2,
                               col_ops);
        else
          ws_store_tma<Cfg, T>(d[0], staging, &cmap, M, N, row0, n0, 1 + cw, epi, nullptr,
                               col_ops);
      } else
        ws_epilogue<Cfg>(d, my_park, C, M, N, m0 + cw * Cfg::kWgRows, n0, 1 + cw, epi);
    });
    // v24: the last tile's store, with nothing left to run under.
    if constexpr (Cfg::kStoreUnderNext)
      if (pending)
        ws_store_tma_packed<Cfg, T>(pend, my_staging, &cmap, M, N, pend_row0, pend_col0, 1 + cw,
                                    epi);
    // v32: the stage holding the last tile's second half goes back to the producers too, for
    // their tail (v21 releases it in the next tile's loop).
    if constexpr (Cfg::kProducerTail && Cfg::kHalfInRing)
      if (held >= 0) ws_release_held<Cfg>(&empty[held]);
    // v14: the last stores complete before the CTA (and the staging they read) goes away;
    // v31: they have read the staging (what the CTA's exit needs: the writes complete with
    // the grid, as CUTLASS's epilogues leave them).
    if constexpr (Cfg::kTmaStore)
      if (threadIdx.x % 128 == 0) tma_store_wait_all<Cfg::kExitOnRead>();
  }
  // No CTA exits while its peer may still arrive on its barriers (the consumers' last
  // releases); the multicast copies into it have all landed, its consumers waited for them.
  // v32: its producer's tail waited for those arrivals instead.
  if constexpr (CL > 1 && !Cfg::kProducerTail) ws_cluster_sync();
#else
  __trap();  // never launched: the host runs it on compute capability 9.0 with sm_90a code only
#endif
}

// Clusters of the kernel resident at once (one CTA per SM: its shared memory); 0 (the kernel
// never runs) on error.
template <class Cfg, class Epi, class T = half>
int ws_resident_clusters() {
  constexpr auto *kernel = &ws_gemm_kernel<Cfg, Epi, T>;
  return resident_ctas_once<kernel, Cfg::kThreads, Cfg::kSmem, Cfg::kCluster>() / Cfg::kCluster;
}

// Whether the kernel suits a shape (the host has checked the 16-byte path): its tiles fill one
// wave (fills_gpu) and at most 1/4 of their area, cluster pairs included, lies outside C; sizes
// whose tile indices and row offsets fit an int.
template <class Cfg>
bool ws_fits(int M, int N) {
  const long long m_tiles = rl_ceil_div(M, Cfg::BM), n_tiles = rl_ceil_div(N, Cfg::BN);
  const long long m_ctiles = rl_ceil_div(m_tiles, Cfg::kCluster);
  const long long covered = m_ctiles * Cfg::kCluster * Cfg::BM * (n_tiles * Cfg::BN);
  return M < (1 << 30) && N < (1 << 30) && m_ctiles * n_tiles <= INT_MAX &&
         fills_gpu(m_tiles * n_tiles) && 4 * static_cast<long long>(M) * N >= 3 * covered;
}

// The kernel's launch (T: half, or bf16 from gemm/bf16_paths.cuh); *launched false (nothing
// run) when the device holds no cluster of it or a tensor map cannot be made. The caller has
// checked ws_fits, vec16_ok and wgmma_capable.
template <class Cfg, class Epi, class T>
int launch_ws(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
              cudaStream_t stream, bool *launched, const WsSkArgs &sk = WsSkArgs{}) {
  *launched = false;
  constexpr auto *kernel = &ws_gemm_kernel<Cfg, Epi, T>;
  const int resident = ws_resident_clusters<Cfg, Epi, T>();
  if (resident <= 0) return 0;
  CUtensorMap am, bm, cm;
  // A's box: the tile's rows, or (v19) half of them, each CTA of the pair loading one.
  constexpr int kABoxRows = Cfg::kClusterN ? Cfg::BM / Cfg::kCluster : Cfg::BM;
  // B's box: 64 columns by a k-tile, or (v29) by one CTA's slice of it.
  constexpr int kBBoxRows = Cfg::kBHalves ? Cfg::BK / Cfg::kMcast : Cfg::BK;
  if (!rl_tma::tensor_map(&am, A, M, K, Cfg::BK, kABoxRows, Elem<T>::kTma) ||
      !rl_tma::tensor_map(&bm, B, K, N, 64, kBBoxRows, Elem<T>::kTma))
    return 0;
  // v14's store map: C in boxes of 64 x 64 (v12's kernel takes A's map there and never reads it).
  if (!Cfg::kTmaStore)
    cm = am;
  else if (!rl_tma::tensor_map(&cm, C, M, N, 64, 64, Elem<T>::kTma))
    return 0;
  const int prep = allow_smem<kernel, Cfg::kSmem>();
  if (prep != 0) return prep;
  const int total = WsSchedule<Cfg>(M, N).total;
  // v15 with a stream-K share: every resident cluster (its plan was made for that many).
  const int clusters = sk.sk_tiles > 0 ? resident : total < resident ? total : resident;
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t lc = cluster_config(static_cast<unsigned>(clusters * Cfg::kCluster),
                                         Cfg::kThreads, Cfg::kSmem, Cfg::kCluster, stream, attr);
  if (Cfg::kCluster == 1) lc.numAttrs = 0;
  *launched = true;
  const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, am, bm, cm, C, M, N, K, epi, sk);
  if (err != cudaSuccess) return static_cast<int>(err);
  return rl_launch_status();
}

// The warp-specialized kernel where it suits the shape (T: half, or bf16 from
// gemm/bf16_paths.cuh); *launched false: it did not apply.
template <class Epi, class T>
int try_warp_specialized(const T *A, const T *B, T *C, int M, int N, int K, const Epi &epi,
                         cudaStream_t stream, bool *launched) {
  *launched = false;
  if (!vec16_ok(A, B, C, N, K, epi) || !ws_fits<WsTile>(M, N) || !wgmma_capable()) return 0;
  return launch_ws<WsTile>(A, B, C, M, N, K, epi, stream, launched);
}

// LOOP: v11's lean-loop form where the kernel does not apply (kLoopLean for the plain GEMM,
// kLoopLeanOpaqueLast for the fused family, as their v11 / v4).
template <int LOOP, class Epi>
int launch_warp_specialized(const half *A, const half *B, half *C, int M, int N, int K,
                            const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_warp_specialized(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_lean_loop<LOOP>(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
