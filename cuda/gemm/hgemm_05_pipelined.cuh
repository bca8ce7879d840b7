// HGEMM v5 "pipelined": v4's 128x256 tile with a software-pipelined main loop (the CUTLASS
// sm80 "multistage" order): k-tiles of 64 (half the barriers per FLOP), fragments
// double-buffered in registers so that no HMMA waits for an ldmatrix it needs right now, and
// the one barrier per k-tile placed before the last k-step, while the tensor pipe still holds
// that k-tile's MMAs. Where its 4 stages (208,896 B) exceed the device's shared memory (A100's
// 163 KB), the same tile with k-tiles of 32 and 5 stages (135,680 B). Off the 16-byte path,
// v4's generic tile.
//
// Measured on the H200 (docs/perf-log.md, HGEMM table, old v7; R4 / F): 349 / 355 TFLOP/s at
// 2048³, 427 / 398 at 4096³, 411 / 408 at 8192³: +20-25% over v4, ~40-60 under the ~460
// predicted; shared-memory bandwidth (the ~92% duty) stays the limit, which only wgmma gets
// past. Folded in, both slower than this step (R4 / F at 4096³): two 128x128 blocks per SM
// (old v8: 338 / 336) and k-tiles of 32 with 5 stages on the H200 (old v9: 364 / 363).
#pragma once
#include "gemm/epilogue_parked.cuh"
#include "gemm/hgemm_04_big_warp_tiles.cuh"

namespace rlg {

//   CfgWide: v4's tile with BK=64 (half the barriers per FLOP), 4 stages = 208,896 B: sm_90 only.
//   CfgWide5: v4's tile and BK=32, 5 stages = 135,680 B (fits A100's 163 KB).
using CfgWide = TileCfg<128, 256, 64, 64, 64, 4, true, 16, 1>;
using CfgWide5 = TileCfg<128, 256, 32, 64, 64, 5, true, 16, 1>;

// The same tiles, loaders and epilogue as v2-v4 with a software-pipelined main loop (the CUTLASS
// sm80 "multistage" order). Fragments are double-buffered in registers: k-step ks loads the
// fragments of step ks+1 (of the next k-tile at the last step) and then issues the MMAs of
// step ks, so no HMMA waits for an ldmatrix it needs right now. The single barrier per k-tile
// sits after the MMAs of step KS-2 are issued: the tensor pipe still holds them while warps
// meet, and the fragments of the last step are already in registers, so the next k-tile's
// first ldmatrix overlaps the last step's MMAs. VEC + cp.async only (the launcher sends
// anything else to v4's kernels).
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

// The lean loop of v11 (hgemm_11_lean_loop.cuh), which pipelined_wmma_kernel runs for LEAN != 0.
template <class Cfg, bool OPAQUE_LAST>
__device__ __forceinline__ void run_lean(half *smem, const half *A, const half *B, int N, int K,
                                         const TilePos<Cfg> &at,
                                         FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]);
// pipelined_wmma_kernel's main loop: run_pipelined; run_lean (v11); run_lean with its last
// k-step's stage offset opaque (the fused family's form of v11's loop).
constexpr int kLoopPipelined = 0, kLoopLean = 1, kLoopLeanOpaqueLast = 2;

// One block per output tile (grouped raster), pipelined main loop, v4's epilogue (or, for a
// functor with a column operand, the parked epilogue, else the register one where the functor
// has no element operand). LEAN: kLoopPipelined,
// run_pipelined; else the tile is wholly inside C with whole rings of k-tiles: run_lean's loop
// (kLoopLean), with its last k-step's stage offset opaque (kLoopLeanOpaqueLast).
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
  } else if constexpr (Epi::kColOperand && !Epi::kElemOperand) {
    // All 128 values per lane at once, from registers: the per-chunk path would put a load
    // and a dependent chain on every 8 values, with only 2 warps per scheduler to hide them.
    // (A functor with an element operand, whose rows these fragments do not tell, takes the
    // per-chunk path, its column operand read at the store.)
    apply_in_registers<Cfg>(epi, acc, ops + wn * Cfg::WN, stage, col0);
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, EpiIdentity{});
  } else {
    epilogue<Cfg, true>(stage, acc, C, M, N, row0, col0, epi);
  }
}

// The pipelined kernel itself: the caller has checked vec16_ok (and lean_fits for LEAN).
template <class Cfg, class Epi, int LEAN = 0>
int launch_pipelined_path(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &pipelined_wmma_kernel<Cfg, Epi, LEAN>;
  constexpr int kSmem = Cfg::kSmemBytes + col_operand_bytes<Cfg, Epi>();
  static_assert(kSmem <= 227 * 1024, "smem per block");
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  kernel<<<static_cast<unsigned>(tiles), Cfg::kThreads, kSmem, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

// The device's opt-in smem per block, queried once (launchers run on one device per
// process, as for rl_sm_count); 0 if the query fails, which sends the
// tile choice (v6) to the smaller tiles.
inline int smem_optin_bytes() {
  static const int bytes = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
      return 0;
    return n;
  }();
  return bytes;
}

// v5's tile: CfgWide, or CfgWide5 where the device's shared memory cannot hold CfgWide's stages.
template <class Epi>
int launch_wide_pipelined(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  if (smem_optin_bytes() < CfgWide::kSmemBytes)
    return launch_pipelined_path<CfgWide5>(A, B, C, M, N, K, epi, stream);
  return launch_pipelined_path<CfgWide>(A, B, C, M, N, K, epi, stream);
}

template <class Epi>
int launch_pipelined(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                     cudaStream_t stream) {
  if (!vec16_ok(A, B, C, N, K, epi))
    return launch_tiled_path<CfgWide32, false>(A, B, C, M, N, K, epi, stream);
  return launch_wide_pipelined(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
