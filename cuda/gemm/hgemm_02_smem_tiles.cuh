// HGEMM v2 "smem_tiles": a 128x128 block tile staged through shared memory in k-tiles of 32,
// 8 warps of 64x32 each, synchronous 16-byte loads into 2 buffers. Each element of A and B
// now comes from HBM once per block tile instead of once per 16x16 warp tile.
//
// Measured on the H200 (docs/perf-log.md, HGEMM table; R4 / F, cold, one launch): 175 / 170
// TFLOP/s at 2048³, 176 / 175 at 4096³, 176 / 176 at 8192³ (predicted ~200): 6.5x v1.
#pragma once
#include "gemm/hgemm_01_naive.cuh"
#include "gemm/pipeline.cuh"

namespace rlg {

// One block per output tile; the epilogue reuses the pipeline buffers as staging.
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

//                        BM   BN  BK  WM  WN  ST  async  GM  minB
using CfgSync = TileCfg<128, 128, 32, 64, 32, 2, false, 1, 2>;  // sync loads, 2 buffers

template <class Epi>
int launch_smem_tiles(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                      cudaStream_t stream) {
  return launch_tiled<CfgSync>(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
