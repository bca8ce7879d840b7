// The launchers of the WMMA GEMM kernels (hgemm_kernels.cuh), the tile configs of every
// variant, v10's and v11's cost models, and launch_variant: what hgemm.cu and gemm_gelu.cu call.
#pragma once
#include "hgemm_kernels.cuh"
#include "hgemm_wgmma_rows.cuh"

namespace rlg {

template <class Epi>
int launch_simple(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                  cudaStream_t stream) {
  const long long blocks = rl_ceil_div(N, kSimpleBN) * rl_ceil_div(M, kSimpleBM);
  RL_REQUIRE(blocks <= 0x7fffffffLL);
  const unsigned grid = static_cast<unsigned>(blocks);
  const bool vec = N % 8 == 0 && K % 8 == 0 && aligned_to(A, 32) && aligned_to(B, 32) &&
                   aligned_to(C, 16) && epi.vec_ok();
  if (vec)
    simple_wmma_kernel<true, Epi><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K, epi);
  else
    simple_wmma_kernel<false, Epi><<<grid, kSimpleWarps * 32, 0, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

// 16-byte paths need 8-element rows and 16-byte aligned bases (incl. the functor's operands).
template <class Epi>
bool vec16_ok(const half *A, const half *B, const half *C, int N, int K, const Epi &epi) {
  return N % 8 == 0 && K % 8 == 0 && aligned_to(A, 16) && aligned_to(B, 16) &&
         aligned_to(C, 16) && epi.vec_ok();
}

template <class Cfg>
long long tile_count(int M, int N) {
  return rl_ceil_div(M, Cfg::BM) * rl_ceil_div(N, Cfg::BN);
}

template <class Cfg, bool VEC, class Epi>
int launch_tiled_path(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                      cudaStream_t stream) {
  constexpr auto *kernel = &tiled_wmma_kernel<Cfg, VEC, Epi>;
  const int prep = allow_smem<kernel, Cfg::kSmemBytes>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  kernel<<<static_cast<unsigned>(tiles), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(A, B, C, M, N,
                                                                                   K, epi);
  return rl_launch_status();
}

template <class Cfg, class Epi>
int launch_tiled(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  if (vec16_ok(A, B, C, N, K, epi))
    return launch_tiled_path<Cfg, true>(A, B, C, M, N, K, epi, stream);
  return launch_tiled_path<Cfg, false>(A, B, C, M, N, K, epi, stream);
}

// v7..v9: the pipelined kernel on the 16-byte path; anything else runs the generic path of
// the v4/v5 kernel with the same block tile (FALLBACK), which handles any shape.
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

// v26: whether run_lean's loop (whole tiles, whole rings of k-tiles, int copy strides) takes
// a shape on the 16-byte path with Cfg.
template <class Cfg>
bool lean_fits(int M, int N, int K) {
  return M % Cfg::BM == 0 && N % Cfg::BN == 0 && K % (Cfg::BK * Cfg::kStages) == 0 &&
         static_cast<long long>(Cfg::BM) * K < (1LL << 31) &&
         static_cast<long long>(Cfg::BK) * N < (1LL << 31);
}

// Whether a functor can reach the lean loop (Epi::kLeanLoop; true without it): a functor only
// older variants take says false, so that no lean kernel is built for it that never runs.
template <class Epi, class = void>
struct LeanLoop {
  static constexpr bool value = true;
};
template <class Epi>
struct LeanLoop<Epi, std::void_t<decltype(Epi::kLeanLoop)>> {
  static constexpr bool value = Epi::kLeanLoop;
};

// The pipelined kernel on Cfg, with the lean loop where `lean` (1: v26, 2: v27) and the shape
// fits it. v27's form of the loop (pipelined_wmma_kernel's LEAN 2) is for functors with a column
// operand (the fused family): the plain GEMM's v27 runs v26's loop (see run_lean).
template <class Cfg, class Epi>
int launch_pipelined_lean_or(int lean, const half *A, const half *B, half *C, int M, int N,
                             int K, const Epi &epi, cudaStream_t stream) {
  if constexpr (LeanLoop<Epi>::value) {
    if (lean != 0 && lean_fits<Cfg>(M, N, K)) {
      if constexpr (Epi::kColOperand)
        if (lean >= 2) return launch_pipelined_path<Cfg, Epi, 2>(A, B, C, M, N, K, epi, stream);
      return launch_pipelined_path<Cfg, Epi, 1>(A, B, C, M, N, K, epi, stream);
    }
  }
  return launch_pipelined_path<Cfg>(A, B, C, M, N, K, epi, stream);
}

template <class Cfg, class Fallback, class Epi>
int launch_pipelined(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                     cudaStream_t stream) {
  if (!vec16_ok(A, B, C, N, K, epi))
    return launch_tiled_path<Fallback, false>(A, B, C, M, N, K, epi, stream);
  return launch_pipelined_path<Cfg>(A, B, C, M, N, K, epi, stream);
}

template <class Cfg, bool VEC, class Epi>
int launch_persistent_path(const half *A, const half *B, half *C, int M, int N, int K,
                           const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &persistent_wmma_kernel<Cfg, VEC, Epi>;
  constexpr int kSmem = Cfg::kPipeBytes + Cfg::kParkBytes;
  static_assert(kSmem <= 227 * 1024, "persistent smem per block");
  const int prep = allow_smem<kernel, kSmem>();
  if (prep != 0) return prep;
  const long long tiles = tile_count<Cfg>(M, N);
  RL_REQUIRE(tiles <= 0x7fffffffLL);
  const long long grid = tiles < rl_sm_count() ? tiles : rl_sm_count();  // one block per SM
  kernel<<<static_cast<unsigned>(grid), Cfg::kThreads, kSmem, stream>>>(A, B, C, M, N, K, epi);
  return rl_launch_status();
}

template <class Cfg, class Epi>
int launch_persistent(const half *A, const half *B, half *C, int M, int N, int K,
                      const Epi &epi, cudaStream_t stream) {
  if (vec16_ok(A, B, C, N, K, epi))
    return launch_persistent_path<Cfg, true>(A, B, C, M, N, K, epi, stream);
  return launch_persistent_path<Cfg, false>(A, B, C, M, N, K, epi, stream);
}

// ---------------------------------------------------------------------------------------
// The variants. Numbers are the public variant arguments of both families.
//                        BM   BN  BK  WM  WN  ST  async  GM  minB
using CfgV2 = TileCfg<128, 128, 32, 64, 32, 2, false, 1, 2>;  // sync loads, 2 buffers
using CfgV3 = TileCfg<128, 128, 32, 64, 32, 4, true, 1, 2>;   // + cp.async, 4 stages
using CfgL = TileCfg<128, 256, 32, 64, 64, 4, true, 16, 1>;   // v4: 64x64 warp tiles, raster
// v5 falls back to these when CfgL's grid leaves SMs idle.
using CfgM = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
using CfgS = TileCfg<64, 64, 32, 32, 32, 4, true, 8, 4>;
using CfgXS = TileCfg<32, 32, 64, 16, 16, 6, true, 8, 2>;
// v6: CfgL made persistent; 3 stages leave room for the parked results (223.5 KiB in all).
using CfgP = TileCfg<128, 256, 32, 64, 64, 3, true, 16, 1>;
// v7..v9: the pipelined main loop (pipelined_wmma_kernel).
//   v7: v4's tile with BK=64 (half the barriers per FLOP), 4 stages = 208,896 B: sm_90 only.
//   v8: 128x128, 4 warps of 64x64, 2 blocks (8 warps) per SM, 75,776 B each.
//   v9: v4's tile and BK=32, 5 stages = 135,680 B (fits A100's 163 KB).
using CfgV7 = TileCfg<128, 256, 64, 64, 64, 4, true, 16, 1>;
using CfgV8 = TileCfg<128, 128, 32, 64, 64, 4, true, 8, 2>;
using CfgV9 = TileCfg<128, 256, 32, 64, 64, 5, true, 16, 1>;
// v10's smaller tiles for the pipelined kernel (v7's own tile covers the large grids):
//   W:   64x128x64, 4 warps of 32x64, 4 stages = 106,496 B, 2 blocks per SM (M ~ 129..512).
//   T64: 64x32x128, 4 warps of 32x16, 4 stages = 110,592 B, 2 blocks per SM (M ~ 33..128).
//   T32: 32x32x128, 4 warps of 16x16, 6 stages = 113,664 B, 2 blocks per SM (M <= 32).
// T32/T64 are for the B stream of small M: 32 columns give N/32 blocks, and BK=128 keeps
// (S-1) x 8 KB of B in flight per block with one barrier per 128 of K.
using CfgW = TileCfg<64, 128, 64, 32, 64, 4, true, 8, 2>;
using CfgT64 = TileCfg<64, 32, 128, 32, 16, 4, true, 8, 2>;
using CfgT32 = TileCfg<32, 32, 128, 16, 16, 6, true, 8, 2>;
// v13's tall tile: v7's with the block turned on its side (256x128x64, warp grid 4 x 2, the
// same 64x64 warp tiles and 4 stages), 217,088 B: measured 2.5-3.4% faster than v7's 128x256
// at 4096^3 and 8192^3 on the H200 (docs/perf-log.md, P12).
using CfgTall = TileCfg<256, 128, 64, 64, 64, 4, true, 16, 1>;
// v15's mid-M tile for cluster split-K: 128x128x64 with 8 warps of 64x32 (two per scheduler
// where v8's 4 warps of 64x64 leave one), 4 stages = 143,360 B, one CTA per SM. Measured
// 35.0 vs 38.3 us (v8's tile split 2) at 256x4096x4096 (docs/perf-log.md, Q1).
using CfgQ = TileCfg<128, 128, 64, 64, 32, 4, true, 8, 1>;

constexpr int kVariantCount = 27;

// A grid fills the GPU when it covers at least 7/8 of one wave of SMs.
inline bool fills_gpu(long long tiles) { return tiles >= rl_sm_count() - rl_sm_count() / 8; }

// The largest of the fallback tiles that fills the GPU, else the smallest.
template <class Epi>
int launch_small(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream) {
  if (fills_gpu(tile_count<CfgM>(M, N))) return launch_tiled<CfgM>(A, B, C, M, N, K, epi, stream);
  if (fills_gpu(tile_count<CfgS>(M, N))) return launch_tiled<CfgS>(A, B, C, M, N, K, epi, stream);
  return launch_tiled<CfgXS>(A, B, C, M, N, K, epi, stream);
}

// v10: relative time of a pipelined config on an M x N output: the most tiles any SM runs
// (ceil(tiles / SMs); the 2-blocks-per-SM configs run theirs concurrently at the SM's rate)
// times the tile's area over the config's throughput per SM in % of v7's (v7 100, v8 80,
// W 65, T64 50, T32 40: v8/v7 measured, the rest estimated from smem traffic per HMMA).
// K cancels out. Small M is memory-bound, which this ignores; it still picks the thin tiles
// there because they are the only ones with enough blocks.
template <class Cfg>
long long v10_cost(int M, int N, int eff_pct) {
  const long long per_sm = rl_ceil_div(tile_count<Cfg>(M, N), rl_sm_count());
  return per_sm * (Cfg::BM * Cfg::BN * 100LL) / eff_pct;
}

// The device's opt-in smem per block, queried once (launchers run on one device per
// process, as for rl_sm_count); 0 if the query fails, which sends v10 to the smaller tiles.
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

enum class V10Cfg { kV7, kV8, kW, kT64, kT32, kTall };

// The cheapest config, ties to the larger tile (checked in this order). tall (v13): v13's
// 256x128 tile is a candidate too, at its measured 103% of v7's rate per SM.
inline V10Cfg v10_choose(int M, int N, bool tall = false) {
  V10Cfg best = V10Cfg::kV7;
  long long cost = v10_cost<CfgV7>(M, N, 100);
  const auto consider = [&](V10Cfg c, long long v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  if (tall && smem_optin_bytes() >= CfgTall::kSmemBytes)
    consider(V10Cfg::kTall, v10_cost<CfgTall>(M, N, 103));
  consider(V10Cfg::kV8, v10_cost<CfgV8>(M, N, 80));
  consider(V10Cfg::kW, v10_cost<CfgW>(M, N, 65));
  consider(V10Cfg::kT64, v10_cost<CfgT64>(M, N, 50));
  consider(V10Cfg::kT32, v10_cost<CfgT32>(M, N, 40));
  return best;
}

// v10 ("best"): the pipelined kernel with the config v10_choose picks on the 16-byte path;
// anything else runs v5's choice of the verified generic tiled kernels. lean (v26: 1, v27: 2):
// the 256x128 tile runs the lean loop where the shape fits it (whole tiles). v7's 128x256 keeps
// its loop: on the lean one ptxas spilled 520 bytes at 255 registers (256x128: none, 254).
template <class Epi>
int launch_v10(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
               cudaStream_t stream, bool tall = false, int lean = 0) {
  if (!vec16_ok(A, B, C, N, K, epi)) {
    if (fills_gpu(tile_count<CfgL>(M, N)))
      return launch_tiled_path<CfgL, false>(A, B, C, M, N, K, epi, stream);
    return launch_small(A, B, C, M, N, K, epi, stream);  // vec16_ok is false: generic path
  }
  switch (v10_choose(M, N, tall)) {
    case V10Cfg::kTall:
      return launch_pipelined_lean_or<CfgTall>(lean, A, B, C, M, N, K, epi, stream);
    case V10Cfg::kV7:
      // v7's 208,896 B exceed A100's 163 KB: v9's tile there (same tile, BK=32, 5 stages).
      if (smem_optin_bytes() < CfgV7::kSmemBytes)
        return launch_pipelined_path<CfgV9>(A, B, C, M, N, K, epi, stream);
      return launch_pipelined_path<CfgV7>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kV8: return launch_pipelined_path<CfgV8>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kW: return launch_pipelined_path<CfgW>(A, B, C, M, N, K, epi, stream);
    case V10Cfg::kT64: return launch_pipelined_path<CfgT64>(A, B, C, M, N, K, epi, stream);
    default: return launch_pipelined_path<CfgT32>(A, B, C, M, N, K, epi, stream);
  }
}

// ---------------------------------------------------------------------------------------
// v11: v10 plus cluster split-K (cluster_splitk_kernel) where v10's grid leaves SMs idle.

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

// stage: the kernel that stages the functor's operand in shared memory (STAGE; only a functor
// with a column operand has one to stage).
template <class Cfg, int SPLIT, class Epi, bool STAGE>
int launch_cluster_splitk_as(const half *A, const half *B, half *C, int M, int N, int K,
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
template <class Cfg, int SPLIT, class Epi>
int launch_cluster_splitk(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream, bool stage = false) {
  if constexpr (Epi::kColOperand)
    if (stage)
      return launch_cluster_splitk_as<Cfg, SPLIT, Epi, true>(A, B, C, M, N, K, epi, stream);
  return launch_cluster_splitk_as<Cfg, SPLIT, Epi, false>(A, B, C, M, N, K, epi, stream);
}

// Relative time of a split config in v10's units times K: as v10_cost with tiles x SPLIT
// CTAs (ceil(CTAs / SMs) per SM; only considered when all CTAs are resident at once, so there
// is no tail of unscheduled clusters), each running ceil(k_tiles / SPLIT) k-tiles plus
// kReduceK of K-equivalent for parking, the DSMEM reduction and the two cluster barriers.
// v10's configs cost v10_cost x K in the same units.
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
double v10_cost_k(int M, int N, int K, int eff_pct) {
  return static_cast<double>(v10_cost<Cfg>(M, N, eff_pct)) * K;
}

enum class V11Split { kNone, kV7x2, kV7x4, kWx2, kWx4, kV8x2, kQx2 };

// The cheapest split config if it beats v10's choice (ties keep v10), else kNone. with_v8
// (v12): 128x128 tiles split 2 ways are candidates too; with_q (v15): v15's 128x128 tile of 8
// warps split 2 ways, at its measured 88% of v7's rate per SM (v8's tile: 80).
template <class Epi>
V11Split v11_choose(int M, int N, int K, bool with_v8, bool tall, bool with_q) {
  if (K < kSplitMinK || !device_is_sm90()) return V11Split::kNone;
  double base = 0;
  switch (v10_choose(M, N, tall)) {
    case V10Cfg::kTall: base = v10_cost_k<CfgTall>(M, N, K, 103); break;
    case V10Cfg::kV7: base = v10_cost_k<CfgV7>(M, N, K, 100); break;
    case V10Cfg::kV8: base = v10_cost_k<CfgV8>(M, N, K, 80); break;
    case V10Cfg::kW: base = v10_cost_k<CfgW>(M, N, K, 65); break;
    case V10Cfg::kT64: base = v10_cost_k<CfgT64>(M, N, K, 50); break;
    default: base = v10_cost_k<CfgT32>(M, N, K, 40); break;
  }
  V11Split best = V11Split::kNone;
  double cost = base;
  const auto consider = [&](V11Split c, double v) {
    if (v < cost) {
      cost = v;
      best = c;
    }
  };
  consider(V11Split::kV7x2, split_cost<CfgV7, 2, Epi>(M, N, K, 100));
  consider(V11Split::kV7x4, split_cost<CfgV7, 4, Epi>(M, N, K, 100));
  consider(V11Split::kWx2, split_cost<CfgW, 2, Epi>(M, N, K, 65));
  consider(V11Split::kWx4, split_cost<CfgW, 4, Epi>(M, N, K, 65));
  if (with_v8) consider(V11Split::kV8x2, split_cost<CfgV8, 2, Epi>(M, N, K, 80));
  if (with_q) consider(V11Split::kQx2, split_cost<CfgQ, 2, Epi>(M, N, K, 88));
  return best;
}

// v11: v10, except that on compute capability 9.0 with the 16-byte path a cluster split-K
// config runs where v11_choose finds one cheaper. v12: v11 with the 128x128 split-2
// candidate (M ~ 256 at N = K = 4096: 64 tiles become 128 CTAs of 8 warps' worth of work).
// v13: v12 with the 256x128 tile (CfgTall) among v10's candidates. v15: v13 with CfgQ split
// 2 ways among the split candidates. stage (v19): CfgQ's split kernel stages the functor's
// operand in shared memory (measured 4% faster fused at 256x4096x4096); on v7's tile (253
// registers) the staging measured 3% slower at 512x4096x4096 and on the 64x128 tile no
// different at 128x4096x4096 (docs/perf-log.md, S2), so those keep the L2 prefetch.
// lean (v26: 1, v27: 2): launch_v10's lean loop where no split is chosen.
template <class Epi>
int launch_v11(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
               cudaStream_t stream, bool with_v8, bool tall, bool with_q = false,
               bool stage = false, int lean = 0) {
  if (!vec16_ok(A, B, C, N, K, epi)) return launch_v10(A, B, C, M, N, K, epi, stream);
  switch (v11_choose<Epi>(M, N, K, with_v8, tall, with_q)) {
    case V11Split::kV7x2: return launch_cluster_splitk<CfgV7, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kV7x4: return launch_cluster_splitk<CfgV7, 4>(A, B, C, M, N, K, epi, stream);
    case V11Split::kWx2: return launch_cluster_splitk<CfgW, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kWx4: return launch_cluster_splitk<CfgW, 4>(A, B, C, M, N, K, epi, stream);
    case V11Split::kV8x2: return launch_cluster_splitk<CfgV8, 2>(A, B, C, M, N, K, epi, stream);
    case V11Split::kQx2:
      return launch_cluster_splitk<CfgQ, 2>(A, B, C, M, N, K, epi, stream, stage);
    default: return launch_v10(A, B, C, M, N, K, epi, stream, tall, lean);
  }
}

// v14 and later, after the caller's checks of the arguments.
template <class Epi>
int launch_v14_on(int variant, const half *a, const half *b, half *c, int M, int N, int K,
                  const Epi &epi, cudaStream_t s) {
  // v14: M <= 16 on the GEMV's slabs where they suit the shape, else v13. v15: the same,
  // with v15's split candidate. v16: v15, with 9..64 rows on the GEMV's TMA slabs where
  // they suit the shape (rl_gemv_tma_launch). v17: v16 with the slabs' clusters pushing
  // their partial sums (GEMV v13). v18: v17 with 2..8 rows on GEMV v14's kernel. v19:
  // v18 with the functor's operand (the fused family's bias) staged in shared memory by
  // the TMA slabs and CfgQ's cluster split-K kernel.
  // Only a functor with a column operand has something to stage: the plain family's v19
  // launches v18's kernels.
  // v20 launches v19's kernels; the fused family's functor changes (the parked epilogue as a
  // loop, the erf form). v21: v20 with the slabs' clusters sending their partial sums by
  // st.async, counted on the peer's mbarrier, and one row in a cluster staging x first
  // (GEMV v15). v22: v21 with mid M on the wgmma tile (below).
  bool launched = false;
  int st = 0;
  // v24: 17..64 rows on a 64-row wgmma tile with K split over a cluster (hgemm_wgmma_rows.cuh)
  // where its grid fills at least half of the GPU in one wave; other shapes as v23.
  if (variant >= 24 && M > kWrMinRows && M <= kWrMaxRows && vec16_ok(a, b, c, N, K, epi) &&
      wgmma_capable()) {
    // v25: the one instantiation both families share (bias and GELU chosen at run time).
    const int wst = variant >= 25
                        ? rl_wgmma_rows_launch(a, b, c, M, N, K, epi.slab_epi(), s, &launched)
                        : launch_wgmma_rows(a, b, c, M, N, K, epi, s, &launched);
    if (launched) return wst;
  }
  const int push = variant >= 21 ? 2 : variant >= 17 ? 1 : 0;
  const bool stage = Epi::kColOperand;
  if (variant >= 16)
    st = rl_gemv_tma_launch(a, b, c, M, N, K, epi.slab_epi(), push, s, &launched,
                            stage && variant >= 19);
  if (!launched)
    st = rl_gemv_slab_launch(a, b, c, M, N, K, epi.slab_epi(), push, s, &launched,
                             variant >= 18);
  if (launched) return st;
  // v22: at mid M (kWgMinRows < M <= kWgMaxRows) where v21 would split K over a cluster to
  // fill the GPU, the wgmma tile over all of K instead (hgemm_wgmma.cuh). Larger M (the
  // squares among them, 1024^3 included, where v21 splits too) keeps v21's WMMA tiles, and so
  // does M <= 64, where half of the tile's 128 rows would be empty (report Z: 64x8192x8192
  // took 65.5 us on the tile against v21's 51.7 in Y).
  if (variant >= 22 && M > kWgMinRows && M <= kWgMaxRows && vec16_ok(a, b, c, N, K, epi) &&
      wgmma_capable() &&
      v11_choose<Epi>(M, N, K, true, true, true) != V11Split::kNone) {
    const int wst = launch_wgmma(a, b, c, M, N, K, epi, s, &launched);
    if (launched) return wst;
  }
  // v26: the 256x128 tile on the lean loop where the shape is whole tiles; v27: the fused
  // family's lean loop with its last k-step's stage offset opaque (run_lean).
  return launch_v11(a, b, c, M, N, K, epi, s, true, true, variant >= 15, stage && variant >= 19,
                    variant >= 27 ? 2 : variant >= 26 ? 1 : 0);
}

inline bool gemm_args_ok(const void *A, const void *B, const void *C, int M, int N, int K) {
  return A != nullptr && B != nullptr && C != nullptr && M >= 1 && N >= 1 && K >= 1;
}

// Checks shared by both families, then the variant's launch.
template <class Epi>
int launch_variant(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                   const Epi &epi, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= kVariantCount);
  RL_REQUIRE(gemm_args_ok(A, B, C, M, N, K));
  const half *a = static_cast<const half *>(A);
  const half *b = static_cast<const half *>(B);
  half *c = static_cast<half *>(C);
  cudaStream_t s = rl_stream(stream);
  switch (variant) {
    case 1: return launch_simple(a, b, c, M, N, K, epi, s);
    case 2: return launch_tiled<CfgV2>(a, b, c, M, N, K, epi, s);
    case 3: return launch_tiled<CfgV3>(a, b, c, M, N, K, epi, s);
    case 4: return launch_tiled<CfgL>(a, b, c, M, N, K, epi, s);
    case 5:
      if (fills_gpu(tile_count<CfgL>(M, N))) return launch_tiled<CfgL>(a, b, c, M, N, K, epi, s);
      return launch_small(a, b, c, M, N, K, epi, s);
    case 6:
      if (fills_gpu(tile_count<CfgP>(M, N)))
        return launch_persistent<CfgP>(a, b, c, M, N, K, epi, s);
      return launch_small(a, b, c, M, N, K, epi, s);
    case 7: return launch_pipelined<CfgV7, CfgL>(a, b, c, M, N, K, epi, s);
    case 8: return launch_pipelined<CfgV8, CfgM>(a, b, c, M, N, K, epi, s);
    case 9: return launch_pipelined<CfgV9, CfgL>(a, b, c, M, N, K, epi, s);
    case 10: return launch_v10(a, b, c, M, N, K, epi, s);
    case 11: return launch_v11(a, b, c, M, N, K, epi, s, false, false);
    case 12: return launch_v11(a, b, c, M, N, K, epi, s, true, false);
    case 13: return launch_v11(a, b, c, M, N, K, epi, s, true, true);
    default: return launch_v14_on(variant, a, b, c, M, N, K, epi, s);
  }
}

// The same for a functor that only the newest variants take (the fused family's v20), so that
// the older variants' kernels are not instantiated for it.
template <class Epi>
int launch_variant_v14_on(int variant, const void *A, const void *B, void *C, int M, int N,
                          int K, const Epi &epi, void *stream) {
  RL_REQUIRE(variant >= 14 && variant <= kVariantCount);
  RL_REQUIRE(gemm_args_ok(A, B, C, M, N, K));
  return launch_v14_on(variant, static_cast<const half *>(A), static_cast<const half *>(B),
                       static_cast<half *>(C), M, N, K, epi, rl_stream(stream));
}

}  // namespace rlg
