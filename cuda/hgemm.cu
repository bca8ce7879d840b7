// HGEMM on Tensor Cores through WMMA: C = A . B, the tile machinery of hgemm_tile.cuh with an
// identity epilogue.
#include "hgemm_dispatch.cuh"

namespace {

using rlg::EpiIdentity;

const char *const kNames[rlg::kVariantCount] = {
    "v1 wmma: one warp per 16x16 tile, fragments straight from global",
    "v2 smem: 128x128x32 block tile, 8 warps of 64x32, sync 16B loads, 2 buffers",
    "v3 cp.async: v2 tile with a 4-stage cp.async pipeline",
    "v4 big warp tiles: 128x256x32, 8 warps of 64x64, 4 stages, grouped raster",
    "v5 auto: v4, or a 128x128/64x64/32x32 tile when v4's grid leaves SMs idle",
    "v6 persistent: v5 with the 128x256 tile persistent, epilogue overlapped with the next tile",
    "v7 pipelined: 128x256x64, 8 warps of 64x64, 4 stages, double-buffered fragments",
    "v8 pipelined 2/SM: 128x128x32, 4 warps of 64x64, 4 stages, 2 blocks per SM",
    "v9 pipelined BK32: 128x256x32, 8 warps of 64x64, 5 stages, double-buffered fragments",
    "v10 pipelined loop, tile per shape (128x256, 128x128, 64x128, 64x32, 32x32)",
    "v11 cluster split-K: v10, or 2-4 CTAs of a cluster split K of a 128x256/64x128 tile, DSMEM reduce",
    "v12 v11 with a 128x128 tile split 2 ways as a further candidate (mid M)",
    "v13 v12 with a 256x128 block tile among the candidates (large grids)",
    "v14 v13, with M <= 16 on the GEMV's slab kernels (W streamed once, no split-K tail)",
    "v15 v14 with a 128x128 tile of 8 warps (64x32) split 2 ways among the mid-M candidates",
    "v16 v15, with 9..64 rows on the GEMV's TMA slabs (W and x through a TMA ring in smem)",
    "v17 v16 with the slabs' clusters pushing their partial sums to the peer (GEMV v13)",
    "v18 v17 with 2..8 rows on GEMV v14's slab loop (two groups in flight, issue-first)",
    "v19 v18's kernels (v19 of the fused family stages its bias in smem; the plain GEMM has none)",
    "v20 v18's kernels (v20 of the fused family changes its erf GELU; the plain GEMM has none)",
    "v21 v18 with the slabs' clusters sending their partial sums by st.async, one row staging x first (GEMV v15)",
    "v22 v21 with 65..512 rows (where v21 splits K over a cluster) on a wgmma 128x64 tile over all of K, TMA-fed: not WMMA",
    "v23 v22's kernels (v23 of the fused family parks its epilogue in row parts; the plain GEMM has none)",
    "v24 v22 with 17..64 rows on a 64x64 wgmma tile, K split over a cluster of 1-4 CTAs, TMA-fed: not WMMA",
    "v25 v24 with the few-row tile one kernel for the plain and the fused family (bias and GELU chosen at run time)",
    "v26 v25 with whole-tile shapes on the 256x128 tile in a lean loop (ring unrolled, no bounds predicates)",
    "v27 best: v26's kernels (v27 of the fused family changes its lean loop; the plain GEMM keeps v26's)",
};

}  // namespace

int rl_wgmma_rows_launch(const half *A, const half *B, half *C, int M, int N, int K, SlabEpi epi,
                         cudaStream_t stream, bool *launched) {
  return rlg::launch_wgmma_rows(A, B, C, M, N, K, rlg::WrRuntimeEpi{epi.bias, epi.gelu}, stream,
                                launched);
}

extern "C" int rl_hgemm(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                        void *stream) {
  return rlg::launch_variant(variant, A, B, C, M, N, K, EpiIdentity{}, stream);
}

extern "C" int rl_hgemm_variant_count(void) { return rlg::kVariantCount; }

extern "C" const char *rl_hgemm_variant_name(int variant) {
  return variant >= 1 && variant <= rlg::kVariantCount ? kNames[variant - 1] : nullptr;
}
