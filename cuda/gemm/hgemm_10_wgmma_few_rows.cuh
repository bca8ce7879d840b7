// HGEMM v10 "wgmma_few_rows": v9, with 17..64 rows on a 64x64 wgmma tile, K split over a
// cluster of SPLIT CTAs (4, 2 or 1: the largest whose CTAs fit one wave with at least 8
// k-tiles each, and only where the grid fills half of the GPU). At these M the weights B are
// the traffic and the 64 rows of A fit one warpgroup's m64 wgmma; v8's TMA slabs ran the same
// stream on mma.sync, 8 warps issuing 32 MMAs per 16 rows of K, and took 1.4-1.5x a read of B
// at 64 rows. The tile takes its epilogue as the run-time descriptor (WrRuntimeEpi, from
// epi.slab_epi()), so one instantiation (wgmma_rows_shared.cu) serves the plain GEMM, the
// unfused pair's GEMM and the fused kernel: in an interleaved run none finds the code colder
// than the others. (GEMM+bias+residual, whose run-time form is another type, runs the tile
// built for its functor.)
//
// Measured on the H200 (docs/perf-log.md, HGEMM old v24 and v25; one launch, cold, µs, v9's
// kernels -> this tile): WR2 17 / 24 / 32 / 48 / 64 x 4096² 20.0 / 18.9 / 19.8 / 22.0 / 23.3 ->
// 19.3 / 18.3 / 19.0 / 19.3 / 18.5, 64 x 8192² 51.6 -> 40.5; with the rolled epilogue (WR5)
// 64 x 4096² 17.3 against v9's 22.0 and cuBLAS's 21.7. As one kernel for both families (WR6):
// the plain GEMM within 0.1 us of the per-family form, fused / plain 1.010-1.017 at 17..64 x
// 4096² (1.022-1.037 with a kernel per family).
//
// Layout: warpgroup 0 is the producer (its thread 0 issues the TMA copies; the others only
// join the cluster barriers), warpgroup 1 runs four m64n64k16 wgmmas per k-tile of 64 on
// both operands in shared memory, the boxes and descriptors of v9's tile with A's box 64 rows
// high. The SPLIT CTAs of a cluster take consecutive ranges of k-tiles of one 64-column block;
// after the loop each parks its partial sums in its own shared memory, a cluster barrier
// publishes them, and each CTA adds the SPLIT partial sums of its 64 / SPLIT rows in rank
// order (so C does not depend on which CTA stores), applies the functor and stores; a second
// barrier keeps every CTA's shared memory alive until the others have read it. Edges as v9's
// tile: TMA zero-fills rows, columns and the K tail, the store is guarded, the host requires
// N % 8 == 0, K % 8 == 0 and 16-byte aligned bases.
#pragma once
#include <type_traits>

#include "gemm/hgemm_09_wgmma_mid_m.cuh"

namespace rlg {

constexpr int kWrBN = 64, kWrBK = 64, kWrStages = 10;
static_assert(kWrBK == kWgmmaKTile, "the k-tile of wgmma_ktile_64x64");
// The tile runs at kWrMinRows < M <= kWrMaxRows (try_wgmma_few_rows): up to 16 rows the GEMV's
// register slabs stream B at the read's pace already.
constexpr int kWrMinRows = 16, kWrMaxRows = 64;
constexpr int kWrThreads = 256;                 // producer warpgroup + 1 consumer warpgroup
constexpr int kWrABytes = 64 * kWrBK * 2;       // 8 KB: 64 rows of 128 bytes
constexpr int kWrBBytes = kWrBK * kWrBN * 2;    // 8 KB: 64 k-rows of 128 bytes
constexpr int kWrStageBytes = kWrABytes + kWrBBytes;
// One CTA's 64x64 fp32 partial sums, row-major with rows padded to 72 floats (288 bytes: the
// parking float2 stores of a half-warp, 4 rows apart, fall on 32 distinct banks).
constexpr int kWrPartStride = 72;
constexpr int kWrPartBytes = 64 * kWrPartStride * 4;
// A's box: M rounded up to 8 rows (whole 1024-byte swizzle atoms), not the tile's 64. With
// 64-row boxes 17 and 32 rows ran 10-15% slower than 64 (docs/perf-log.md, HGEMM old v24).
__host__ __device__ inline int wr_a_rows(int M) { return M >= 64 ? 64 : (M + 7) / 8 * 8; }
// The ring, the parked sums and slack to align the ring to 1024 bytes (every split alike).
constexpr int kWrSmemBytes = kWrStages * kWrStageBytes + kWrPartBytes + 1024;

// The run-time functor: the bias and the GELU chosen at run time (SlabEpi), so that one
// instantiation of the tile (wgmma_rows_shared.cu, rl_wgmma_rows_launch) serves the plain GEMM,
// the unfused pair's GEMM and the fused kernel. With one function per family (old v24) the fused
// kernel's code was the only one of the fusion sweep's cases that no other case ran, and a launch
// whose code the SM no longer caches pays for it (probe I1; WO in docs/perf-log.md, HGEMM old v24:
// fused / plain 1.018- 1.028 with only those two cases interleaved, 1.026-1.037 with the unfused
// pair beside them). The same values as EpiBiasGelu's forms (rl_bias_gelu_fast): gelu 0 tanh, 1
// erf, -1 none; bias null: no column operand (the plain GEMM). It reads no operand by row: a
// functor whose run-time form has one (SlabEpiResidual) gets the tile built for it instead
// (try_wgmma_few_rows), so the shared tile's store is what it was before the residual existed.
struct WrRuntimeEpi {
  static constexpr bool kColOperand = true;  // null at run time for the plain GEMM
  static constexpr bool kElemOperand = false;
  SlabEpi e;
  __host__ __device__ const half *col_operand() const { return e.bias; }
  __device__ __forceinline__ float prep(float b) const { return rl_bias_gelu_prep(b, e.gelu); }
  __device__ __forceinline__ float apply1(float v, float op, int, int) const {
    return rl_bias_gelu_fast(v, op, e.gelu);
  }
};

// Cluster c (blockIdx.x / SPLIT) computes columns 64c..64c+63 of all M rows; its rank r takes
// k-tiles [r per, (r + 1) per) and stores rows 64 r / SPLIT .. 64 (r + 1) / SPLIT - 1.
template <class Epi, int SPLIT>
__global__ void __launch_bounds__(kWrThreads, 1)
    wgmma_rows_kernel(const __grid_constant__ CUtensorMap amap,
                      const __grid_constant__ CUtensorMap bmap, half *C, int M, int N, int K,
                      Epi epi) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(SPLIT == 1 || SPLIT == 2 || SPLIT == 4, "the splits wr_choose_split picks");
  namespace cg = cooperative_groups;
  extern __shared__ unsigned char wr_smem_raw[];
  unsigned char *ring = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(wr_smem_raw) + 1023) & ~uintptr_t(1023));
  float *part = reinterpret_cast<float *>(ring + kWrStages * kWrStageBytes);  // [64][72]
  __shared__ unsigned long long full[kWrStages], empty[kWrStages], op_bar;
  const int rank = SPLIT > 1 ? static_cast<int>(cg::this_cluster().block_rank()) : 0;
  const int n0 = (blockIdx.x / SPLIT) * kWrBN;
  const int k_tiles = (K + kWrBK - 1) / kWrBK, per = (k_tiles + SPLIT - 1) / SPLIT;
  const int kt0 = rank * per, kt1 = min(k_tiles, kt0 + per);
  const int count = kt1 > kt0 ? kt1 - kt0 : 0;
  const int wg = threadIdx.x / 128;
  const int a_rows = wr_a_rows(M);
  if (threadIdx.x == 0) {
    for (int i = 0; i < kWrStages; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], 4);  // the consumer's 4 warps
    }
    mbar_init(&op_bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // The rows of A below the box are never loaded: zero them once in every stage, so that the
  // wgmmas read zeros there (rows >= M are not stored), then hand them to the async proxy.
  if (a_rows < 64) {
    const int per_stage = (64 - a_rows) * 8;  // 16-byte words
    for (int w = threadIdx.x; w < kWrStages * per_stage; w += kWrThreads) {
      uint4 *dst = reinterpret_cast<uint4 *>(ring + (w / per_stage) * kWrStageBytes +
                                             a_rows * 128) + w % per_stage;
      *dst = make_uint4(0, 0, 0, 0);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  // This lane's 16 columns: n0 + 8j + 2(lane % 4) + {0, 1}, j = 0..7 (the accumulator layout).
  const int col_l = 2 * (lane % 4);
  // The functor's column operand (the fused family's bias) for this CTA's 64 columns: staged in
  // shared memory by a bulk copy on a barrier of its own (op_bar), issued first and waited
  // for only by the epilogue, so that its cold load never holds up k-tile 0.
  __shared__ __align__(16) half col_op[kWrBN];
  // A compile-time functor with an operand always has one; the run-time one may have none
  // (bias null).
  constexpr bool kRuntimeOp = std::is_same<Epi, WrRuntimeEpi>::value;
  const bool has_op = Epi::kColOperand && (!kRuntimeOp || epi.col_operand() != nullptr);
  const int op_bytes = has_op ? 2 * min(kWrBN, N - n0) : 0;  // N % 8 == 0: 16 | bytes
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  if (wg == 0) {
    // Producer: k-tile i of this CTA's range into stage i % S once the consumer released it.
    if (threadIdx.x == 0) {
      if (op_bytes > 0) {
        mbar_expect_tx(&op_bar, op_bytes);
        bulk_load_1d(col_op, epi.col_operand() + n0, op_bytes, &op_bar);
      }
      for (int i = 0; i < count; ++i) {
        const int s = i % kWrStages, kt = kt0 + i;
        if (i >= kWrStages) mbar_wait(&empty[s], (i / kWrStages - 1) & 1);
        unsigned char *st = ring + s * kWrStageBytes;
        mbar_expect_tx(&full[s], a_rows * 128 + kWrBBytes);
        tma_load_2d(st, &amap, kt * kWrBK, 0, &full[s]);
        tma_load_2d(st + kWrABytes, &bmap, n0, kt * kWrBK, &full[s]);
      }
    }
  } else {
    for (int i = 0; i < count; ++i) {
      const int s = i % kWrStages;
      mbar_wait(&full[s], (i / kWrStages) & 1);
      const unsigned char *a = ring + s * kWrStageBytes;
      const unsigned char *b = a + kWrABytes;
      wgmma_ktile_64x64(d, a, b);
      wg_wait<1>();  // the previous k-tile's wgmmas are done: release its stage
      if (i > 0 && lane == 0) mbar_arrive(&empty[(i - 1) % kWrStages]);
    }
    wg_wait<0>();
    wg_hold(d);
  }
  // The epilogue as one short rolled loop: every CTA parks its partial sums row-major in its own
  // shared memory, and after a (cluster) barrier all 256 threads of rank r finalize rows
  // 64 r / SPLIT .. 64 (r + 1) / SPLIT - 1 in 8-column chunks: the SPLIT ranks' sums added in
  // rank order (so C does not depend on which CTA stores), the functor, one 16-byte store. The
  // first form kept each warp's 16 rows in registers and ran the functor and 16 4-byte stores
  // straight-line (~375 more SASS instructions with bias+GELU, fetched once at the end of the
  // kernel, nothing left to hide it): the fused tile took ~1 us (5%) over the plain one at
  // 17..64 rows (docs/perf-log.md, HGEMM old v24).
  if (wg == 1) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // a half-warp's float2s hit 4 rows x 32 distinct banks
        const int row = 16 * warp + lane / 4 + 8 * h;
        *reinterpret_cast<float2 *>(part + row * kWrPartStride + 8 * j + col_l) =
            make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
      }
    }
  }
  if constexpr (SPLIT > 1) {
    cg::this_cluster().sync();  // every CTA's sums written and visible cluster-wide
  } else {
    __syncthreads();
  }
  if (op_bytes > 0) mbar_wait(&op_bar, 0);
  const int r0 = kWrBN * rank / SPLIT;
  const int rows = max(0, min(kWrBN / SPLIT, M - r0));
  for (int c = threadIdx.x; c < rows * 8; c += kWrThreads) {
    const int row = r0 + c / 8, col = 8 * (c % 8);
    if (n0 + col >= N) continue;  // N % 8 == 0: the chunk is all in or all out
    float v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = 0.0f;
#pragma unroll
    for (int r = 0; r < SPLIT; ++r) {
      const float *src = part + row * kWrPartStride + col;
      if constexpr (SPLIT > 1) src = cg::this_cluster().map_shared_rank(src, r);
      const float4 lo = reinterpret_cast<const float4 *>(src)[0];
      const float4 hi = reinterpret_cast<const float4 *>(src)[1];
      v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
      v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
    }
    if constexpr (kRuntimeOp) {  // where it has a bias (none: the plain GEMM)
      if (op_bytes > 0) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(col_op + col);
        const __half2 *ops = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float2 f = __half22float2(ops[i]);
          v[2 * i] = epi.apply1(v[2 * i], epi.prep(f.x), row, n0 + col + 2 * i);
          v[2 * i + 1] = epi.apply1(v[2 * i + 1], epi.prep(f.y), row, n0 + col + 2 * i + 1);
        }
      }
    } else {  // a compile-time functor, always (its row operand even without a column one)
      float op[8];  // the column operand, prepared; 0 without one
      if (op_bytes > 0) {
        unpack8(*reinterpret_cast<const uint4 *>(col_op + col), op);
#pragma unroll
        for (int i = 0; i < 8; ++i) op[i] = epi.prep(op[i]);
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i) op[i] = 0.0f;
      }
      epi.template apply<true>(v, op, row, n0 + col, N);
    }
    uint4 out;
    __half2 *o = reinterpret_cast<__half2 *>(&out);
#pragma unroll
    for (int i = 0; i < 4; ++i) o[i] = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
    *reinterpret_cast<uint4 *>(C + static_cast<size_t>(row) * N + n0 + col) = out;
  }
  if constexpr (SPLIT > 1) cg::this_cluster().sync();  // no CTA frees its smem while read
#else
  __trap();  // never launched: the host runs it on compute capability 9.0 with sm_90a code only
#endif
}

// resident_ctas of KERNEL (its shared memory limit raised first), queried once per
// instantiation; 0 (the kernel is never chosen) on error.
template <auto *KERNEL, int THREADS, int SMEM, int CLUSTER>
int resident_ctas_once() {
  static const int ctas =
      allow_smem<KERNEL, SMEM>() != 0 ? 0 : resident_ctas(KERNEL, THREADS, SMEM, CLUSTER);
  return ctas;
}

// CTAs of the SPLIT form resident at once (max active clusters x SPLIT; without a cluster,
// blocks per SM x SMs).
template <class Epi, int SPLIT>
int wr_slots() {
  constexpr auto *kernel = &wgmma_rows_kernel<Epi, SPLIT>;
  return resident_ctas_once<kernel, kWrThreads, kWrSmemBytes, SPLIT>();
}

// The split for a shape: the largest of 4, 2, 1 whose CTAs fit one wave and leave each CTA at
// least kWrMinSplitTiles k-tiles; 0 when even that grid would leave over half of the SMs idle
// (the slab paths keep such shapes).
constexpr int kWrMinSplitTiles = 8;
template <class Epi>
int wr_choose_split(int N, int K) {
  const long long tiles = rl_ceil_div(N, kWrBN);
  const int k_tiles = static_cast<int>(rl_ceil_div(K, kWrBK));
  const auto fits = [&](int split, int slots) {
    return tiles * split <= slots && (split == 1 || k_tiles >= kWrMinSplitTiles * split);
  };
  int split = 0;
  if (fits(4, wr_slots<Epi, 4>())) split = 4;
  else if (fits(2, wr_slots<Epi, 2>())) split = 2;
  else if (fits(1, wr_slots<Epi, 1>())) split = 1;
  if (split == 0 || tiles * split < rl_sm_count() / 2) return 0;
  return split;
}

template <class Epi, int SPLIT>
int launch_wgmma_rows_as(const CUtensorMap &am, const CUtensorMap &bm, half *C, int M, int N,
                         int K, const Epi &epi, cudaStream_t stream) {
  constexpr auto *kernel = &wgmma_rows_kernel<Epi, SPLIT>;
  const int prep = allow_smem<kernel, kWrSmemBytes>();
  if (prep != 0) return prep;
  const long long grid = rl_ceil_div(N, kWrBN) * SPLIT;
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t lc = cluster_config(static_cast<unsigned>(grid), kWrThreads,
                                         kWrSmemBytes, SPLIT, stream, attr);
  if (SPLIT == 1) lc.numAttrs = 0;
  const cudaError_t err = cudaLaunchKernelEx(&lc, kernel, am, bm, C, M, N, K, epi);
  if (err != cudaSuccess) return static_cast<int>(err);
  return rl_launch_status();
}

// The few-row launch; *launched false (nothing run) when no split suits the shape or a tensor
// map cannot be made. The caller has checked M, vec16_ok and wgmma_capable.
template <class Epi>
int launch_wgmma_rows(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                      cudaStream_t stream, bool *launched) {
  *launched = false;
  const int split = wr_choose_split<Epi>(N, K);
  if (split == 0) return 0;
  CUtensorMap am, bm;
  if (!rl_tma::tensor_map(&am, A, M, K, kWrBK, wr_a_rows(M)) ||
      !rl_tma::tensor_map(&bm, B, K, N, kWrBN, kWrBK))
    return 0;
  *launched = true;
  switch (split) {
    case 4: return launch_wgmma_rows_as<Epi, 4>(am, bm, C, M, N, K, epi, stream);
    case 2: return launch_wgmma_rows_as<Epi, 2>(am, bm, C, M, N, K, epi, stream);
    default: return launch_wgmma_rows_as<Epi, 1>(am, bm, C, M, N, K, epi, stream);
  }
}

}  // namespace rlg

// The tile above with WrRuntimeEpi{epi} (gelu: -1 none, 0 tanh, 1 erf in the fast forms),
// instantiated once, in wgmma_rows_shared.cu, for the families whose run-time form is SlabEpi;
// as launch_wgmma_rows otherwise. Returns 0 or a cudaError_t.
int rl_wgmma_rows_launch(const half *A, const half *B, half *C, int M, int N, int K, SlabEpi epi,
                         cudaStream_t stream, bool *launched);

namespace rlg {

// The few-row tile where it suits the shape; *launched false: it did not apply.
template <class Epi>
int try_wgmma_few_rows(const half *A, const half *B, half *C, int M, int N, int K,
                       const Epi &epi, cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M <= kWrMinRows || M > kWrMaxRows || !vec16_ok(A, B, C, N, K, epi) || !wgmma_capable())
    return 0;
  if constexpr (SharesRuntimeForm<Epi>::value)
    return rl_wgmma_rows_launch(A, B, C, M, N, K, epi.slab_epi(), stream, launched);
  else  // no run-time form, or one of its own (a residual): the tile built for the functor
    return launch_wgmma_rows(A, B, C, M, N, K, epi, stream, launched);
}

template <class Epi>
int launch_wgmma_few_rows(const half *A, const half *B, half *C, int M, int N, int K,
                          const Epi &epi, cudaStream_t stream) {
  return path_or(
      [&](bool *done) { return try_wgmma_few_rows(A, B, C, M, N, K, epi, stream, done); },
      [&] { return launch_wgmma_mid_m(A, B, C, M, N, K, epi, stream); });
}

}  // namespace rlg
