// GEMV / small-M GEMM for decode: y[M x N] = x[M x K] . W[K x N], fp16 in/out, fp32 accumulation.
// Reading W (2 K N bytes) is the whole cost; x and y are tiny.
//   v1: one thread per output element, loop over K; loads coalesced along N, no vectors.
//   v2: 16-byte loads of W (8 columns per lane), a block owns 64 columns and splits K over its
//       8 warps (shared-memory reduction); x rows through L1; M bucketed (1, 2, 4, 8, 16) so the
//       M x 8 fp32 accumulators are registers. Few blocks when N is small (64 at N = 4096).
//   v3: v2 with K also split across blocks so one resident wave covers every SM; partial sums go
//       to the workspace and the last block of each column tile (atomic ticket) adds them up,
//       writes y and zeroes what it used.
//   v4: v3 with the inner product on tensor cores (mma.sync m16n8k16, W fragments built from the
//       same 16-byte loads with byte permutes): the FMA path needs 16 FFMA per W element at
//       M = 16, which is as much issue time as the HBM time; this needs 1/64 of an MMA.
//   v5: v4 with the split-K reduction inside a thread-block cluster through distributed shared
//       memory (sm_90): no workspace, no global round trips at the end. Elsewhere: v4 with S = 1.
//   v6: v5 with W streamed through a per-lane cp.async ring in shared memory (6 groups = 384 B
//       per lane in flight from the first instruction to the end of the warp's range, no drain
//       between register batches, x one group ahead in registers). Elsewhere: S = 1.
//   v7: v3 for one row, v4 for 2..16 (the best of those two on the H200).
//   v8: slabs: one 512-thread block per 64-column slab streams all of K (or half of it, in a
//       cluster of 2 reduced over DSMEM) with double-buffered register loads, so there is
//       no split-K tail through global memory (measured at ~3 us of v3's 4096^2 time). One row:
//       FMA with x staged in shared memory after W's first loads are issued; 2..16 rows: v4's
//       tensor-core groups. Shapes whose slabs would not fill the GPU take v7's kernels.
//   v9: v8 with W as the MMA's A operand and x^T as B for 2..8 rows: 4 MMAs per 16 x 64 group
//       instead of 8 (the 8 columns of B are the rows of x, none wasted on zero rows).
//  v10: v9 with a lean main loop for 2..16 rows where K % 16 == 0: no guarded loads, row
//       pointers stepped by a constant, a rolling ring of 3-4 groups in flight (else v9).
//  v11: v10 with those groups issued and multiplied in batches where a warp has >= 4 batches.
//  v12: v11 with 9..16 rows on the TMA slabs (sm_90; N, K multiples of 8): W and x come into
//       a 4-stage ring of shared memory through cp.async.bulk.tensor, so the bytes in flight
//       no longer depend on registers and scoreboards (2..8 rows keep v11's W-as-A groups,
//       half the MMAs, 1-3% faster there). The same kernel, with up to 4 m-tiles of 16 rows,
//       is the HGEMM's (v8) for 9..64 rows.
//  v13: v12 with the clusters pushing their partial sums into the peer's shared memory.
//  v14: v13 with 2..8 rows in the one-row slab's loop order (two groups in flight).
//  v15: v14 with the sums sent by st.async onto the peer's mbarrier; one row stages x first.
//  v16: v15 with 2..8 rows walking K in units of two groups, one 16-byte x load per unit.
//  v17: v16's loop at 9..16 rows as well: each W fragment the A operand of two MMAs, one per 8
//       rows of x (else v16's TMA slab).
//  v18: 32-column slabs over all of K, no cluster, where v17 runs (1, 2) clusters (2..16 rows;
//       N = 4096 on the H200): no exchange at the end, half the sums per lane.
//  v19: v18 with an L2 prefetch hint on W's loads and a one-pass end (each lane sums one
//       output over the warps).
// This file holds the shared constants and the C API; the kernels and their host side are in
// the parts it includes below (gemv_fma.cuh: v1..v3; gemv_mma.cuh: v4..v6; gemv_reg_slabs.cuh:
// v8..v17's register slabs; gemv_n32.cuh: v18, v19; gemv_tma_slab.cuh and gemv_tma_host.cuh:
// the TMA slabs; gemv_host.cuh: queries, plans and launches).
// v2..v6 need N % 8 == 0 and a 16-byte aligned W; otherwise they use a scalar-column kernel.
// Launches cover at most 16 rows of x; larger M is done in chunks of 16 rows.
#include <cooperative_groups.h>

#include <cuda.h>

#include <atomic>
#include <climits>

#include "common.cuh"
#include "gemv/gemv.h"
#include "gemv/gemv_slabs_api.cuh"
#include "tma.cuh"
#include "tma_host.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kTileN = 64;     // columns per block: 8 lanes x 8 halves = one 128-byte line per row
constexpr int kMaxRows = 16;   // rows of x per launch
constexpr int kMaxSplitsWs = 32;       // split-K cap with the workspace
constexpr int kMaxSplitsCluster = 8;   // portable cluster size
constexpr int kMinQuadsPerWarp = 4;    // below this a split adds more reduction than it saves
// gemv_mma: 2 blocks x 256 threads x 12..16 loads x 16 B = 96..128 KiB of W in flight per SM
// (13..17 MiB on 132 SMs, 3-4x what HBM latency needs) within 128 registers. (3 blocks x 8
// loads, 80 registers, spills.)
constexpr int kMmaBlocksPerSm = 2;
template <int MB>
constexpr int kMmaUnroll = MB == 16 ? 3 : 4;  // groups of 16 rows per loop step

}  // namespace

// The kernels by variant family, then their host side, in the order they build on each other.
#include "gemv/gemv_fma.cuh"
#include "gemv/gemv_mma.cuh"
#include "gemv/gemv_reg_slabs.cuh"
#include "gemv/gemv_n32.cuh"
#include "gemv/gemv_tma_slab.cuh"
#include "gemv/gemv_host.cuh"
#include "gemv/gemv_tma_host.cuh"

int rl_gemv_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpi epi, cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < 1 || M > kMaxRows || N < 1 || K < 1 || !vector_ok(W, N)) return 0;
  const SlabPlan plan = slab_plan(M, N, K);
  if (plan == kSlabNone) return 0;
  *launched = true;
  // 2..8 rows on GEMV v14's kernel (lean 11, top 1) where it applies, else v9's; the clusters
  // exchange their sums by st.async (push 2).
  constexpr int kPush = 2, kTop = 1;
  const int lean = M <= 8 ? 11 : 0;
  const cudaError_t e =
      launch_slab(plan, x, W, y, M, N, K, true, lean, kPush, epi, stream, kTop);
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

int rl_gemv_tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                           SlabEpi epi, bool stage_bias, cudaStream_t stream, bool *launched) {
  // The HGEMM's limit: a CTA of 4 m-tiles over all 8192 of K is MMA-bound (0.81x cuBLAS at
  // 64x8192x8192 against the WMMA split-K's 0.87x); 3 m-tiles there tie with it, and 4 m-tiles
  // over half of 4096 (a cluster of 2) win (0.87x against 0.80x). So at most 3 x 8192.
  constexpr long long kMaxWork = 3LL * 8192;
  constexpr int kPush = 2;
  *launched = false;
  if (M < kTmaMinRows) return 0;
  return tma_slab_launch(x, W, y, M, N, K, epi, kMaxWork, kPush, stage_bias, stream, launched);
}

constexpr int kVariants = 19;

// v7 ("best") dispatches per 16-row chunk: v3 (FMA, split-K) for a single row, where it
// measured fastest on the H200 (one launch and graph), v4 (tensor cores) for 2..16 rows.
static int effective_variant(int variant, int rows) {
  return variant == 7 ? (rows == 1 ? 3 : 4) : variant;
}

extern "C" size_t rl_gemv_workspace_bytes(int variant, int M, int N, int K) {
  if (variant < 1 || variant > kVariants || M < 1 || N < 1 || K < 1) return 0;
  if (variant == 7) {
    const size_t a = workspace_bytes(3, N, K), b = workspace_bytes(4, N, K);
    return a > b ? a : b;
  }
  return workspace_bytes(variant, N, K);
}

extern "C" int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, int M,
                       int N, int K, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= kVariants && x != nullptr && W != nullptr && y != nullptr &&
             M >= 1 && N >= 1 && K >= 1);
  bool needs_ws = false;
  if (vector_ok(W, N))
    for (int m0 = 0; m0 < M; m0 += kMaxRows) {
      const int rows = M - m0 < kMaxRows ? M - m0 : kMaxRows;
      needs_ws |= splits(effective_variant(variant, rows), rows, N, K) > 1;
    }
  RL_REQUIRE(!needs_ws || (workspace != nullptr && (uintptr_t)workspace % 16 == 0));
  const __half *xh = static_cast<const __half *>(x);
  const __half *Wh = static_cast<const __half *>(W);
  __half *yh = static_cast<__half *>(y);
  cudaStream_t s = rl_stream(stream);
  // Chunks of 16 rows run one after another on the stream, so they can share the workspace.
  for (int m0 = 0; m0 < M; m0 += kMaxRows) {
    const int rows = M - m0 < kMaxRows ? M - m0 : kMaxRows;
    const int st = launch_rows(effective_variant(variant, rows), xh + (size_t)m0 * K, Wh,
                               yh + (size_t)m0 * N, workspace, rows, N, K, s);
    if (st != 0) return st;
  }
  return 0;
}

extern "C" int rl_gemv_variant_count(void) { return kVariants; }

extern "C" const char *rl_gemv_variant_name(int variant) {
  switch (variant) {
    case 1: return "v1 thread per output, scalar loop over K";
    case 2: return "v2 16-byte W loads, K split over the 8 warps of a 64-column block, FMA";
    case 3: return "v3 v2 + split-K across blocks (workspace, last-block ticket)";
    case 4: return "v4 v3 with mma.sync tensor-core inner product";
    case 5: return "v5 v4 with the split-K reduction in a cluster over DSMEM (sm_90)";
    case 6: return "v6 v5 with W streamed through a 6-stage per-lane cp.async ring in smem";
    case 7: return "v7 v3 for a single row, v4 for 2..16 rows (per 16-row chunk)";
    case 8: return "v8 slabs: a 512-thread block streams K for 64 columns (cluster of 2 at most), no split-K tail";
    case 9: return "v9 v8 with W as the MMA A operand for 2..8 rows (half the MMAs)";
    case 10: return "v10 v9 with a lean 2..16-row loop: unguarded loads, stepped pointers, rolling ring";
    case 11: return "v11 v10 with the groups in flight issued and multiplied in batches (>= 4 batches per warp)";
    case 12: return "v12 v11 with 9..16 rows on TMA slabs: W and x through a 4-stage TMA ring in smem";
    case 13: return "v13 v12 with the cluster's partial sums pushed to the peer's smem (one barrier)";
    case 14: return "v14 v13 with 2..8 rows in the one-row slab's loop order (two groups in flight)";
    case 15: return "v15 v14 with the cluster's partial sums sent by st.async onto the peer's mbarrier; one row stages x first";
    case 16: return "v16 v15 with 2..8 rows walking units of two groups, one 16-byte x load per unit";
    case 17: return "v17 v16's unit loop at 9..16 rows too (W as the A operand of two MMAs, one per 8 rows of x)";
    case 18: return "v18 32-column slabs over all of K, no cluster, where v17 runs clusters (2..16 rows)";
    case 19: return "v19 best: v18 with an L2 prefetch on W's loads and a one-pass end (each lane sums one output)";
    default: return nullptr;
  }
}
