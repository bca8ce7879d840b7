// HGEMM v22's mid-M kernel: Hopper's warpgroup MMA (wgmma) on a 128x64 output tile over all
// of K, fed by TMA through an 8-stage ring. Not WMMA: v22 runs it only at 65..512 rows where
// v21 would split K over a cluster to fill the GPU (hgemm_dispatch.cuh), the shapes where the
// WMMA loops' fragment traffic through registers keeps them at ~2/3 of the WMMA ceiling and
// the split's reduction costs more (docs/perf-log.md, HGEMM, nineteenth and twentieth
// sessions). The large squares stay WMMA.
//
// Layout: warpgroup 0 is the producer (its thread 0 issues the TMA copies); warpgroups 1 and 2
// each own 64 rows of the tile and run m64n64k16 wgmmas with both operands read from shared
// memory through descriptors. A [M x K] row-major is K-major (boxes of 64 k x 128 rows); B
// [K x N] row-major is N-major, read transposed (boxes of 64 n x 64 k); both 128-byte swizzled,
// so a stage is rows of 128 bytes in 1024-byte swizzle atoms. Edges (M, N, K off the tile) are
// zero-filled by TMA and guarded at the store; the host requires N % 8 == 0, K % 8 == 0 and
// 16-byte aligned bases (the tensor maps' strides and addresses).
#pragma once
#include "hgemm_tile.cuh"
#include "tma.cuh"
#include "tma_host.cuh"

namespace rlg {

constexpr int kWgBM = 128, kWgBN = 64, kWgBK = 64, kWgStages = 8;
// v22 runs the tile at 64 < M <= 512 only (the mid-M shapes; see launch_v14_on).
constexpr int kWgMinRows = 64, kWgMaxRows = 512;
constexpr int kWgThreads = 384;                 // producer warpgroup + 2 consumer warpgroups
constexpr int kWgConsumerWarps = 8;             // each releases a stage once its wgmmas are done
constexpr int kWgABytes = kWgBM * kWgBK * 2;    // 16 KB: 128 rows of 128 bytes
constexpr int kWgBBytes = kWgBK * kWgBN * 2;    // 8 KB: 64 k-rows of 128 bytes
constexpr int kWgStageBytes = kWgABytes + kWgBBytes;
constexpr int kWgSmem = kWgStages * kWgStageBytes + 1024;  // + slack to align to 1024 bytes

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A shared-memory matrix descriptor of a 128-byte-swizzled operand: start address, leading
// and stride byte offsets (16-byte units), layout type 1 (128B swizzle) in bits 62-63.
__device__ __forceinline__ unsigned long long wg_desc(const void *p, unsigned lbo, unsigned sbo) {
  const unsigned long long a = smem_addr(p);
  return ((a & 0x3FFFF) >> 4) | (static_cast<unsigned long long>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<unsigned long long>((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps the compiler from touching the accumulators across a wgmma wait.
__device__ __forceinline__ void wg_hold(float (&d)[32]) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// d += A (64 x 16, K-major) . B (16 x 64, N-major: trans-b 1), fp32 accumulate.
__device__ __forceinline__ void wgmma_64x64x16(float (&d)[32], unsigned long long da,
                                               unsigned long long db) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, "
      "1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db)
      : "memory");
}
static_assert(kWgBK == 64, "wgmma_ktile_64x64 takes k-tiles of 64");
// One k-tile of 64 on 64 rows: four k-steps (32 bytes along A's 128-byte-swizzled rows, 16
// rows of B's) issued as one committed wgmma group.
__device__ __forceinline__ void wgmma_ktile_64x64(float (&d)[32], const unsigned char *a,
                                                  const unsigned char *b) {
  wg_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
    wgmma_64x64x16(d, wg_desc(a + kk * 32, 16, 1024), wg_desc(b + kk * 2048, 1024, 1024));
  wg_commit();
}
#endif

// Block b computes the tile (b % m_tiles, b / m_tiles): the M-tiles that share a B column
// block run side by side, so B is read from HBM once and from L2 by the others.
template <class Epi>
__global__ void __launch_bounds__(kWgThreads, 1)
    wgmma_tile_kernel(const __grid_constant__ CUtensorMap amap,
                      const __grid_constant__ CUtensorMap bmap, half *C, int M, int N, int K,
                      Epi epi) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char wg_smem_raw[];
  // The swizzle pattern repeats every 1024 bytes: stages start on 1024-byte boundaries.
  unsigned char *ring = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(wg_smem_raw) + 1023) & ~uintptr_t(1023));
  __shared__ unsigned long long full[kWgStages], empty[kWgStages];
  const int m_tiles = (M + kWgBM - 1) / kWgBM;
  const int m0 = (blockIdx.x % m_tiles) * kWgBM, n0 = (blockIdx.x / m_tiles) * kWgBN;
  const int k_tiles = (K + kWgBK - 1) / kWgBK;
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int i = 0; i < kWgStages; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kWgConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();  // the last block-wide barrier: the roles below never meet again
  if (wg == 0) {
    // Producer: k-tile kt into stage kt % S once every consumer warp released its last use.
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % kWgStages;
        if (kt >= kWgStages) mbar_wait(&empty[s], (kt / kWgStages - 1) & 1);
        unsigned char *st = ring + s * kWgStageBytes;
        mbar_expect_tx(&full[s], kWgStageBytes);
        tma_load_2d(st, &amap, kt * kWgBK, m0, &full[s]);
        tma_load_2d(st + kWgABytes, &bmap, n0, kt * kWgBK, &full[s]);
      }
    }
    return;
  }
  const int cw = wg - 1, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  // This lane's 16 columns: n0 + 8j + 2(lane % 4) + {0, 1}, j = 0..7 (the accumulator layout).
  const int col_l = 2 * (lane % 4);
  float op[16];  // the functor's column operand, prepped, loaded while the loop runs
  if constexpr (Epi::kColOperand) {
    const half *src = epi.col_operand();
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = n0 + 8 * j + col_l;
      const float2 f = col < N ? __half22float2(__ldg(reinterpret_cast<const __half2 *>(src + col)))
                               : make_float2(0.0f, 0.0f);
      op[2 * j] = epi.prep(f.x);
      op[2 * j + 1] = epi.prep(f.y);
    }
  }
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kWgStages;
    mbar_wait(&full[s], (kt / kWgStages) & 1);
    const unsigned char *a = ring + s * kWgStageBytes + cw * (64 * 128);
    const unsigned char *b = ring + s * kWgStageBytes + kWgABytes;
    wgmma_ktile_64x64(d, a, b);
    wg_wait<1>();  // the previous k-tile's wgmmas are done: release its stage
    if (kt > 0 && lane == 0) mbar_arrive(&empty[(kt - 1) % kWgStages]);
  }
  wg_wait<0>();
  wg_hold(d);
  // d[4j + q] is row 16 warp + lane / 4 (+8 for q >= 2), column 8j + col_l + (q & 1).
  const int row0 = m0 + 64 * cw + 16 * warp + lane / 4;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int col = n0 + 8 * j + col_l;
    if (col >= N) continue;  // N % 8 == 0: col + 1 < N too
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row >= M) continue;
      float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
      if constexpr (Epi::kColOperand) {
        v0 = epi.apply1(v0, op[2 * j]);
        v1 = epi.apply1(v1, op[2 * j + 1]);
      }
      *reinterpret_cast<__half2 *>(C + static_cast<size_t>(row) * N + col) =
          __floats2half2_rn(v0, v1);
    }
  }
#else
  __trap();  // never launched: the host runs it on compute capability 9.0 with sm_90a code only
#endif
}

// Whether this build carries the kernel's sm_90a code (build.rs defines RL_SM90A when the
// target list has 90a) and the device and driver can run it.
inline bool wgmma_capable() {
#if defined(RL_SM90A)
  return device_is_sm90() && rl_tma::tensor_map_encoder() != nullptr;
#else
  return false;
#endif
}

// The wgmma tile's launch; *launched false (and nothing run) when a tensor map cannot be made.
// The caller has checked vec16_ok and wgmma_capable.
template <class Epi>
int launch_wgmma(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                 cudaStream_t stream, bool *launched) {
  *launched = false;
  constexpr auto *kernel = &wgmma_tile_kernel<Epi>;
  const long long blocks = rl_ceil_div(M, kWgBM) * rl_ceil_div(N, kWgBN);
  if (blocks > 0x7fffffffLL) return 0;
  CUtensorMap am, bm;
  if (!rl_tma::tensor_map(&am, A, M, K, kWgBK, kWgBM) ||
      !rl_tma::tensor_map(&bm, B, K, N, kWgBN, kWgBK))
    return 0;
  const int prep = allow_smem<kernel, kWgSmem>();
  if (prep != 0) return prep;
  *launched = true;
  kernel<<<static_cast<unsigned>(blocks), kWgThreads, kWgSmem, stream>>>(am, bm, C, M, N, K, epi);
  return rl_launch_status();
}

}  // namespace rlg
