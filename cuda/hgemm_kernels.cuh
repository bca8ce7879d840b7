// The WMMA GEMM kernels of both families (hgemm.cu, gemm_gelu.cu), v1..v11, on the tile
// machinery of hgemm_tile.cuh: v1 (fragments straight from global memory), v2..v5's tiled
// kernel, v6's persistent one, v7+'s pipelined main loop and v11+'s cluster split-K. Their
// launchers and the variants' dispatch are in hgemm_dispatch.cuh.
#pragma once
#include "hgemm_tile.cuh"

namespace rlg {

// ---------------------------------------------------------------------------------------
// v1: one warp per 16x16 output tile, fragments loaded straight from global memory. Fragments
// that cross an edge (or any fragment on the !VEC path) are staged through a per-warp 16x16
// smem tile with bounds-checked element loads. VEC here also needs 32-byte aligned A and B
// (WMMA's rule for a fragment pointer; row offsets are multiples of 16 elements, so the base
// alignment carries over to every fragment).
constexpr int kSimpleWarpsM = 2, kSimpleWarpsN = 4;
constexpr int kSimpleWarps = kSimpleWarpsM * kSimpleWarpsN;
constexpr int kSimpleBM = 16 * kSimpleWarpsM, kSimpleBN = 16 * kSimpleWarpsN;

template <bool VEC, class Epi>
__global__ void __launch_bounds__(kSimpleWarps * 32)
    simple_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                       half *__restrict__ C, int M, int N, int K, Epi epi) {
  __shared__ __align__(128) half sA[kSimpleWarps][16 * 16];
  __shared__ __align__(128) half sB[kSimpleWarps][16 * 16];
  __shared__ __align__(128) float sC[kSimpleWarps][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int blocks_n = static_cast<int>(rl_ceil_div(N, kSimpleBN));
  const int bm = blockIdx.x / blocks_n, bn = blockIdx.x % blocks_n;
  const int row0 = (bm * kSimpleWarpsM + warp / kSimpleWarpsN) * 16;
  const int col0 = (bn * kSimpleWarpsN + warp % kSimpleWarpsN) * 16;
  if (row0 >= M || col0 >= N) return;  // whole warp; no block-wide barrier follows

  FragC acc;
  wmma::fill_fragment(acc, 0.0f);
  const bool inner = VEC && row0 + 16 <= M && col0 + 16 <= N;
  for (int k0 = 0; k0 < K; k0 += 16) {
    FragA a;
    FragB b;
    if (inner && k0 + 16 <= K) {
      wmma::load_matrix_sync(a, A + static_cast<size_t>(row0) * K + k0, K);
      wmma::load_matrix_sync(b, B + static_cast<size_t>(k0) * N + col0, N);
    } else {
      __syncwarp();  // the previous step's fragment loads are done with sA/sB
      for (int e = lane; e < 256; e += 32) {
        const int r = e / 16, c = e % 16;
        sA[warp][e] = (row0 + r < M && k0 + c < K) ? A[static_cast<size_t>(row0 + r) * K + k0 + c]
                                                   : __float2half(0.0f);
        sB[warp][e] = (k0 + r < K && col0 + c < N) ? B[static_cast<size_t>(k0 + r) * N + col0 + c]
                                                   : __float2half(0.0f);
      }
      __syncwarp();
      wmma::load_matrix_sync(a, sA[warp], 16);
      wmma::load_matrix_sync(b, sB[warp], 16);
    }
    wmma::mma_sync(acc, a, b, acc);
  }

  wmma::store_matrix_sync(sC[warp], acc, 16, wmma::mem_row_major);
  __syncwarp();
  const int r = lane / 2, c = (lane % 2) * 8;  // 32 lanes x 8 values = the 16x16 tile
  float v[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = sC[warp][r * 16 + c + i];
  store_chunk<VEC>(epi, v, C, row0 + r, col0 + c, M, N);
}

// v2..v5: one block per output tile; the epilogue reuses the pipeline buffers as staging.
template <class Cfg, bool VEC, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    tiled_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                      half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const TilePos<Cfg> at(blockIdx.x, M, N);
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn, warp = threadIdx.x / 32;

  Pipeline<Cfg, VEC> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  pipe.start(tm * Cfg::BM, tn * Cfg::BN);
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  zero<Cfg>(acc);
  pipe.run(wm, wn, acc, [] {});
  pipe.drain();
  float *stage = reinterpret_cast<float *>(smem_raw) + warp * 16 * Cfg::kLdc;
  epilogue<Cfg, VEC>(stage, acc, C, M, N, tm * Cfg::BM + wm * Cfg::WM,
                     tn * Cfg::BN + wn * Cfg::WN, epi);
}

// v6: a warp's finished WM x WN results, parked in fp32 in its own smem region (kLdc floats
// per row) and written out one 8-column chunk per lane at a time, during the next tile's
// mainloop, whose issue slots are mostly idle while the tensor cores work.
template <class Cfg, bool VEC, class Epi>
struct ParkedTile {
  static constexpr int kChunksPerRow = Cfg::WN / 8;
  static constexpr int kChunksPerLane = Cfg::WM * kChunksPerRow / 32;
  static_assert((Cfg::WM * kChunksPerRow) % 32 == 0, "chunks per lane");

  float *region;
  int row0 = 0, col0 = 0;         // C coordinates of the region's (0, 0)
  int done = kChunksPerLane;      // chunks this lane has written; all: nothing parked

  // Warp-uniform: every lane has written the same number of chunks.
  __device__ __forceinline__ void emit_one(half *C, int M, int N, const Epi &epi) {
    if (done < kChunksPerLane) {
      const int chunk = done * 32 + threadIdx.x % 32;
      emit_chunk<Cfg, VEC>(region, chunk / kChunksPerRow, (chunk % kChunksPerRow) * 8,
                           chunk_swap(), C, M, N, row0, col0, epi);
      ++done;
    }
  }

  __device__ __forceinline__ void emit_rest(half *C, int M, int N, const Epi &epi) {
    while (done < kChunksPerLane) emit_one(C, M, N, epi);
  }

  // Call after emit_rest: the region is free once every lane has finished reading it.
  __device__ __forceinline__ void park(FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN], int r0, int c0) {
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kFragsN; ++j)
        wmma::store_matrix_sync(region + i * 16 * Cfg::kLdc + j * 16, acc[i][j], Cfg::kLdc,
                                wmma::mem_row_major);
    __syncwarp();
    row0 = r0;
    col0 = c0;
    done = 0;
  }
};

// v6: persistent blocks (grid <= tiles) walk tiles blockIdx.x, +gridDim.x, ... The next tile's
// first k-tiles are put in flight before the finished tile is parked, and the parked results
// go out during the next mainloop, so only the last tile's epilogue is exposed.
template <class Cfg, bool VEC, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    persistent_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                           half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int tiles_m = static_cast<int>(rl_ceil_div(M, Cfg::BM));
  const int tiles_n = static_cast<int>(rl_ceil_div(N, Cfg::BN));
  const int tiles = tiles_m * tiles_n;
  const int warp = threadIdx.x / 32;
  const int wm = warp / Cfg::kWarpsN, wn = warp % Cfg::kWarpsN;

  Pipeline<Cfg, VEC> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
  ParkedTile<Cfg, VEC, Epi> parked;
  parked.region =
      reinterpret_cast<float *>(smem_raw + Cfg::kPipeBytes) + warp * Cfg::WM * Cfg::kLdc;

  int tile = blockIdx.x, tm, tn;
  tile_coords<Cfg::kGroupM>(tile, tiles_m, tiles_n, tm, tn);
  pipe.start(tm * Cfg::BM, tn * Cfg::BN);
  for (;;) {
    FragC acc[Cfg::kFragsM][Cfg::kFragsN];
    zero<Cfg>(acc);
    pipe.run(wm, wn, acc, [&] { parked.emit_one(C, M, N, epi); });
    pipe.drain();
    const int row0 = tm * Cfg::BM + wm * Cfg::WM, col0 = tn * Cfg::BN + wn * Cfg::WN;
    tile += gridDim.x;
    if (tile < tiles) {
      tile_coords<Cfg::kGroupM>(tile, tiles_m, tiles_n, tm, tn);
      pipe.start(tm * Cfg::BM, tn * Cfg::BN);
    }
    parked.emit_rest(C, M, N, epi);  // what a short K left of the previous tile
    parked.park(acc, row0, col0);
    if (tile >= tiles) break;
  }
  parked.emit_rest(C, M, N, epi);
}

// v7+: the same tiles, loaders and epilogue with a software-pipelined main loop (the CUTLASS
// sm80 "multistage" order). Fragments are double-buffered in registers: k-step ks loads the
// fragments of step ks+1 (of the next k-tile at the last step) and then issues the MMAs of
// step ks, so no HMMA waits for an ldmatrix it needs right now. The single barrier per k-tile
// sits after the MMAs of step KS-2 are issued: the tensor pipe still holds them while warps
// meet, and the fragments of the last step are already in registers, so the next k-tile's
// first ldmatrix overlaps the last step's MMAs. VEC + cp.async only (the launcher sends
// anything else to the v4/v5 kernels).
//
// Hazards (S = stages, KS = BK/16 >= 2 and even):
//   - k-tile kt+S-1 is copied into the buffer of k-tile kt-1. Every read of that buffer
//     (steps 0..KS-1 of k-tile kt-1) was issued before the barrier at step KS-2 of k-tile
//     kt-1, which every warp has passed before it reaches k-tile kt. Its copies are issued
//     at steps 0 (A) and min(1, KS-2) (B) of k-tile kt and committed at the latter.
//   - k-tile kt+1 is first read at step KS-1 of k-tile kt, after that step's barrier. Groups
//     committed by then: S-1 (prologue) + kt+1; wait_group S-2 leaves S-2 pending, so groups
//     0..kt+1, i.e. k-tiles 0..kt+1, have landed and the barrier publishes them.
//   - At the last k-tile, step KS-1 reads k-tile k_tiles' buffer (already issued as a zero
//     fill, landed by the same wait); those fragments are never used.
template <class Cfg>
__device__ __forceinline__ void run_pipelined(Pipeline<Cfg, true> &pipe, int wm, int wn,
                                              FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  constexpr int KS = Cfg::BK / 16, S = Cfg::kStages;
  constexpr int kCopyB = KS - 2 < 1 ? KS - 2 : 1;  // step that issues B's copies and commits
  static_assert(KS >= 2 && KS % 2 == 0, "fragment double buffer needs an even k-step count");
  static_assert(Cfg::kAsync && S >= 2, "cp.async pipeline");
  const int k_tiles = pipe.k_tiles;
  half *const smem = pipe.smem;

  cp_async_wait<S - 2>();  // k-tile 0 (see Pipeline::run for the group count)
  __syncthreads();
  FragA a[2][Cfg::kFragsM];
  FragB b[2][Cfg::kFragsN];
  int rd = 0;      // buffer of the k-tile being read
  int wr = S - 1;  // buffer the current k-tile refills
  load_frags<Cfg>(smem, wm, wn, 0, a[0], b[0]);
  for (int kt = 0; kt < k_tiles; ++kt) {
    const bool refill = kt + S - 1 < k_tiles;
    half *const ws = smem + wr * Cfg::kStageHalves;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
      if (ks == KS - 1) rd = rd + 1 == S ? 0 : rd + 1;
      load_frags<Cfg>(smem + rd * Cfg::kStageHalves, wm, wn, ks == KS - 1 ? 0 : (ks + 1) * 16,
                      a[(ks + 1) % 2], b[(ks + 1) % 2]);
      if (ks == 0) pipe.load_a.load(ws, pipe.M, pipe.K, refill);
      if (ks == kCopyB) {
        pipe.load_b.load(ws + Cfg::kAHalves, pipe.K, pipe.N, refill);
        pipe.load_a.advance(pipe.K);
        pipe.load_b.advance(pipe.N);
        cp_async_commit();
        wr = wr + 1 == S ? 0 : wr + 1;
      }
      mma_frags<Cfg>(a[ks % 2], b[ks % 2], acc);
      if (ks == KS - 2) {
        cp_async_wait<S - 2>();
        __syncthreads();
      }
    }
  }
}

// v26: run_pipelined for a block tile wholly inside A, B and C with whole rings of k-tiles
// (M % BM, N % BN, K % (BK x STAGES) == 0; 16-byte path; BM x K and BK x N < 2^31 elements:
// the copy strides are ints), including the prologue and the zeroed accumulators. The same
// MMAs in the same order as run_pipelined (C bit for bit the same), with none of its per-step
// integer work: the k-tile loop is unrolled over the ring, so every stage index is a
// constant, and no copy carries a bounds predicate or a source select. At 4096³ that took the
// loop from 87.5 to 70.4 instructions per warp and k-step (32 of them HMMA) and the tensor
// pipe from 73% to 77% active: +5-6% (probe square_lean, runs NS and SL; docs/perf-log.md).
// The hazards are run_pipelined's. Past the last k-tile nothing is copied but the (empty)
// groups are still committed, so every wait counts the same groups; the last step's
// fragments come from a stage that holds an older k-tile and are never used.
// OPAQUE_LAST (v27, the fused family): the last k-step's stage offset also gets a zero the
// compiler cannot fold (kt0 >> 30; kt0 < 2^30), which moves ptxas off the register layout
// where the fused kernel (255 registers) rebuilt each copy pass's 64-bit source in one of two
// pairs an LDGSTS had not yet read: in its SASS the median distance from a copy to the rewrite
// of its source pair goes from 13 to 37 instructions (the plain loop's 38; the loop 1055 ->
// 1094 instructions), with no spill (scripts/sass_copy_war.py, in git at 877c669). On the plain
// kernel the same
// zero spills 440 bytes, so the plain family keeps v26's loop.
template <class Cfg, bool OPAQUE_LAST = false>
__device__ __forceinline__ void run_lean(half *smem, const half *A, const half *B, int N, int K,
                                         const TilePos<Cfg> &at,
                                         FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  constexpr int S = Cfg::kStages, KS = Cfg::BK / 16;
  static_assert(Cfg::kAsync && KS == 4, "the lean loop's copy and barrier steps assume BK 64");
  // A: BK / 8 threads per row of 16-byte chunks, kARows rows a pass, kAI passes; B likewise.
  constexpr int kAT = Cfg::BK / 8, kARows = Cfg::kThreads / kAT, kAI = Cfg::BM / kARows;
  constexpr int kBT = Cfg::BN / 8, kBRows = Cfg::kThreads / kBT, kBI = Cfg::BK / kBRows;
  static_assert(kAI * kARows == Cfg::BM && kBI * kBRows == Cfg::BK, "whole passes");
  constexpr unsigned kStageBytes = Cfg::kStageHalves * 2;
  const int t = threadIdx.x, k_tiles = K / Cfg::BK;
  const half *ga = A + static_cast<size_t>(at.tm * Cfg::BM + t / kAT) * K + (t % kAT) * 8;
  const half *gb = B + static_cast<size_t>(t / kBT) * N + at.tn * Cfg::BN + (t % kBT) * 8;
  const int a_pass = kARows * K, b_pass = kBRows * N;
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned sa = sbase + ((t / kAT) * Cfg::kLda + (t % kAT) * 8) * 2;
  const unsigned sb = sbase + (Cfg::kAHalves + (t / kBT) * Cfg::kLdb + (t % kBT) * 8) * 2;
  const auto copy_a = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kAI; ++i)
      cp_async16_whole(sa + stage * kStageBytes + i * kARows * Cfg::kLda * 2, ga + i * a_pass);
  };
  const auto copy_b = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kBI; ++i)
      cp_async16_whole(sb + stage * kStageBytes + i * kBRows * Cfg::kLdb * 2, gb + i * b_pass);
  };

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    copy_a(s);
    copy_b(s);
    ga += Cfg::BK;
    gb += static_cast<size_t>(Cfg::BK) * N;
    cp_async_commit();
  }
  zero<Cfg>(acc);
  cp_async_wait<S - 2>();
  __syncthreads();
  FragA a[2][Cfg::kFragsM];
  FragB b[2][Cfg::kFragsN];
  load_frags<Cfg>(smem, at.wm, at.wn, 0, a[0], b[0]);
  for (int kt0 = 0; kt0 < k_tiles; kt0 += S) {
#pragma unroll
    for (int st = 0; st < S; ++st) {  // k-tile kt0 + st sits in stage st
      const bool refill = kt0 + st + S - 1 < k_tiles;
      const int wr = (st + S - 1) % S;
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        // The stage's offset is made opaque once per use: with every offset a constant the
        // compiler hoists all 32 fragment addresses (4 stages x 8 LDSM) out of the loop and
        // spills them (ptxas: 384 bytes), which the rolled ring does not. Opaque to NVVM only:
        // ptxas sees through the empty asm, and hoisted them anyway (and spilled) once v27's
        // copies left it more free registers; a loop-variant zero stopped it there (perf log).
        int rd = (ks == KS - 1 ? (st + 1) % S : st) * Cfg::kStageHalves;
        asm volatile("" : "+r"(rd));
        if (OPAQUE_LAST && ks == KS - 1) rd += kt0 >> 30;
        load_frags<Cfg>(smem + rd, at.wm, at.wn, ks == KS - 1 ? 0 : (ks + 1) * 16,
                        a[(ks + 1) % 2], b[(ks + 1) % 2]);
        if (ks == 0 && refill) copy_a(wr);
        if (ks == 1) {
          if (refill) copy_b(wr);
          ga += Cfg::BK;
          gb += static_cast<size_t>(Cfg::BK) * N;
          cp_async_commit();  // empty past the end: the group count stays uniform
        }
        mma_frags<Cfg>(a[ks % 2], b[ks % 2], acc);
        if (ks == KS - 2) {
          cp_async_wait<S - 2>();
          __syncthreads();
        }
      }
    }
  }
}

// v7..v9: one block per output tile (grouped raster), pipelined main loop, v4's epilogue.
// LEAN: 0, run_pipelined; else the tile is wholly inside C with whole rings of k-tiles:
// run_lean's loop (1, v26), with its last k-step's stage offset opaque (2, v27).
template <class Cfg, class Epi, int LEAN = 0>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    pipelined_wmma_kernel(const half *__restrict__ A, const half *__restrict__ B,
                          half *__restrict__ C, int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const TilePos<Cfg> at(blockIdx.x, M, N);
  const int tm = at.tm, tn = at.tn, wm = at.wm, wn = at.wn, warp = threadIdx.x / 32;

  half *ops = reinterpret_cast<half *>(smem_raw + Cfg::kSmemBytes);  // col_operand_bytes()
  stage_col_operand<Cfg>(epi, ops, tn * Cfg::BN, N);  // committed with k-tile 0
  FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  if constexpr (LEAN != 0) {
    run_lean<Cfg, LEAN == 2>(reinterpret_cast<half *>(smem_raw), A, B, N, K, at, acc);
    cp_async_wait<0>();  // Pipeline::drain()
    __syncthreads();
  } else {
    Pipeline<Cfg, true> pipe(reinterpret_cast<half *>(smem_raw), A, B, M, N, K);
    pipe.start(tm * Cfg::BM, tn * Cfg::BN);
    zero<Cfg>(acc);
    run_pipelined<Cfg>(pipe, wm, wn, acc);
    pipe.drain();
  }
  float *stage = reinterpret_cast<float *>(smem_raw) + warp * 16 * Cfg::kLdc;
  const int row0 = tm * Cfg::BM + wm * Cfg::WM, col0 = tn * Cfg::BN + wn * Cfg::WN;
  if constexpr (Epi::kColOperand && Cfg::kParkBytes <= Cfg::kSmemBytes) {
    float *park = reinterpret_cast<float *>(smem_raw) + warp * Cfg::WM * Cfg::kLdc;
    epilogue_parked<Cfg>(epi, park, acc, ops + wn * Cfg::WN, C, M, N, row0, col0);
  } else if constexpr (Epi::kColOperand) {
    // All 128 values per lane at once, from registers: the per-chunk path would put a load
    // and a dependent chain on every 8 values, with only 2 warps per scheduler to hide them.
    apply_in_registers<Cfg>(epi, acc, ops + wn * Cfg::WN, stage);
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, EpiIdentity{});
  } else {
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, epi);
  }
}

// v11: split-K over the CTAs of a thread-block cluster (sm_90). The SPLIT CTAs of a cluster
// (consecutive blockIdx.x, rank = blockIdx.x % SPLIT) share one output tile; CTA `rank` runs
// v7's pipelined loop over k-tiles [rank*per, min((rank+1)*per, k_tiles)), per =
// ceil(k_tiles / SPLIT) (slice starts are multiples of BK, so only the globally last k-tile is
// partial, bounded by K as before; a rank past the end runs 0 k-tiles and contributes zeros).
// After drain() the pipeline smem is free: each warp parks its fp32 accumulators in a BM x
// (BN+8) tile there. cluster.sync() (release/acquire) publishes all SPLIT partial tiles; CTA
// `rank` then sums rows [rank*BM/SPLIT, (rank+1)*BM/SPLIT) of all of them in rank order
// through DSMEM and runs the epilogue functor once on the full sums. A second cluster.sync()
// keeps every CTA's smem alive until all reads of it are done. No atomics, no workspace.
// STAGE (the fused family's v19): the functor's operand is copied into shared memory after the
// pipeline's (cp.async, its own commit group before the prologue, retired by the loop's first
// wait) instead of prefetched into L2 and loaded after the loop, where a dropped prefetch left
// an HBM miss between the last k-tile and the reduction.
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
    if constexpr (Epi::kColOperand) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = epi.apply1(v[i], op[i]);
      store_chunk<true>(EpiIdentity{}, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    } else {
      store_chunk<true>(epi, v, C, tm * Cfg::BM + r, tn * Cfg::BN + c, M, N);
    }
  }
  cluster.sync();  // no CTA exits (freeing its smem) while another may still read it
#else
  __trap();  // the host launches this only on compute capability 9.0
#endif
}

}  // namespace rlg
