// GEMV / small-M GEMM for decode: y[M x N] = x[M x K] . W[K x N], fp16 in/out, fp32
// accumulation. Reading W (2 K N bytes) is the whole cost; x and y are tiny. The variant table:
// each row's launcher runs one step of the ladder (cuda/gemv/gemv_NN_<name>.cuh, whose header
// says what the step changes and what it measured); each step derives from the one it builds
// on and falls back to it where its shapes end. The kernels and the host machinery the steps
// share are in gemv_common.cuh's parts. A launch covers at most 16 rows of x; a larger M runs
// in chunks of 16 rows, one after another on the stream.
//
// "best" is v14. What it runs per chunk of `rows` rows, the first that applies (off the
// 16-byte path, N % 8 != 0 or W unaligned, every step from v2 on runs the scalar-column
// kernel); src/kernels/gemv.rs keeps the same table for `roofline list`:
//   2..16 rows, where a 64-column slab grid needs a (1, 2) cluster (N = 4096 on the H200),
//     K % 64 == 0, 16-byte x    32-column slabs over all of K, no cluster, the L2 prefetch
//                               hint and the one-pass end (v13, v14): no exchange of sums;
//                               1.02-1.05x the read at 4096² (report Y)
//   2..16 rows, K % 32 == 0, 16-byte x, a 64-column slab plan (its clusters all resident)
//                               the unit loop (v12; clusters send their sums by st.async, v11):
//                               one 16-byte x load per two groups; 1.00-1.04x the read at 8192²
//   2..8 rows, K % 16 == 0, 8-byte x, such a plan
//                               v7's lean loop in the one-row slab's order (v10): two groups in
//                               flight, the next one issued first
//   9..16 rows, sm_90, N and K multiples of 8, 16-byte x and W
//                               the TMA slabs (v8): the bytes in flight in shared memory
//   9..16 rows, K % 16 == 0, 8-byte x, such a plan
//                               v7's lean loop (batched where a warp has >= 4 batches)
//   2..8 rows, such a plan      v6's W-as-A slab (guarded loads: odd K, unaligned x)
//   1 row, a one-row slab plan  the one-row FMA slab (v5), in a cluster with x staged first
//                               (v11) where x is 16-byte aligned: 1.04x the read
//   9..16 rows, such a plan     v5's 16-row tensor-core slab
//   no slab plan (a slab grid would not fill half a wave, or exceed one)
//                               v4: split-K through the workspace, mma.sync at 2..16 rows,
//                               FMA (v3) at one row
// A slab plan (slab_plan): 64-column slabs, one 512-thread block per SM at most, filling half
// of the GPU or more alone, or in (1, 2) clusters that are all resident at once.
#include "gemv/gemv_14_prefetch_one_pass.cuh"
#include "variant_table.cuh"

namespace {

struct Variant {
  int id;
  const char *name;
  const char *summary;
  int (*launch)(const Rows &);          // one launch of at most 16 rows
  int (*splits)(int rows, int N, int K);  // its split-K factor (1: no workspace)
  void (*setup)();                      // its one-time host queries
};

template <class Step>
constexpr Variant step(int id, const char *name, const char *summary) {
  return {id, name, summary, Step::launch, Step::splits, Step::setup};
}

constexpr Variant kVariants[] = {
    step<Naive>(1, "naive", "one thread per output, a scalar loop over K"),
    step<VectorLoads>(2, "vector_loads",
                      "16-byte W loads, K split over the 8 warps of a 64-column block, FMA"),
    step<SplitK>(3, "split_k", "v2, with K split across blocks too (workspace, last-block ticket)"),
    step<TensorCores>(4, "tensor_cores",
                      "v3, with 2..16 rows on tensor cores (mma.sync on W fragments)"),
    step<Slabs<kPull>>(5, "slabs",
                       "v4, where they fit: a 512-thread block streams all of K for 64 columns "
                       "(a cluster of 2 at most), no split-K tail"),
    step<WAsA<kPull>>(6, "w_as_a", "v5, with W as the MMA's A operand at 2..8 rows (half the MMAs)"),
    step<LeanLoop<kPull>>(7, "lean_loop",
                          "v6, with a lean 2..16-row loop: unguarded loads, stepped pointers, a "
                          "rolling ring, batches from 4 per warp"),
    step<TmaSlabs<kPull>>(8, "tma_slabs",
                          "v7, with 9..16 rows on TMA slabs: W and x through a 4-stage TMA ring "
                          "in smem"),
    step<ClusterPush>(9, "cluster_push",
                      "v8, with the clusters pushing their partial sums into the peer's smem "
                      "(one barrier)"),
    step<IssueFirst<kPushStores>>(10, "issue_first",
                                  "v9, with 2..8 rows in the one-row slab's loop order (two "
                                  "groups in flight, the next issued first)"),
    step<StAsync>(11, "st_async",
                  "v10, with the clusters' sums sent by st.async onto the peer's mbarrier; one "
                  "row stages x first"),
    step<XUnits>(12, "x_units",
                 "v11, with 2..16 rows walking K in units of two groups, one 16-byte x load per "
                 "unit"),
    step<NarrowSlabs<false>>(13, "narrow_slabs",
                             "v12, with 2..16 rows on 32-column slabs over all of K, no cluster, "
                             "where v12 runs clusters"),
    step<PrefetchOnePass>(14, "prefetch_one_pass",
                          "best: v13, with an L2 prefetch hint on W's loads and a one-pass end "
                          "(each lane sums one output)"),
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

// ---- the GEMM family's slabs (gemv_slabs_api.cuh), for SlabEpi and SlabEpiResidual
namespace {

// GEMV v11's forms, which the GEMM family's register slabs run, for a launch with a slab plan:
// what StAsync::launch runs at 1..8 rows and WAsA<kPushStAsync>::launch at 9..16 (v11 at 1..8
// rows runs no TMA slab, which starts at 9 rows; the HGEMM tries the TMA slabs first). Spelled
// out here, once for both descriptors, so that the residual's instantiations are only the
// kernels these forms reach (nine), chosen as the plain GEMM's are.
template <class Epi>
cudaError_t gemm_slab_forms(const Rows &r, const Epi &epi) {
  constexpr int P = kPushStAsync;
  const bool cl = r.plan() == kSlab1x64Cluster || r.plan() == kSlabMmaCluster;
  if (r.rows == 1)  // the one-row slab, in a cluster with x staged first (v11)
    return launch_slab1<P>(r.x, r.W, r.y, r.N, r.K, cl, epi, r.s);
  if (bucket(r.rows) > 8)  // v5's 16-row slab
    return cl ? launch_slab_mma<16, true, false, true>(r.x, r.W, r.y, r.rows, r.N, r.K, epi, r.s)
              : launch_slab_mma<16, false>(r.x, r.W, r.y, r.rows, r.N, r.K, epi, r.s);
  if (LeanLoop<P>::fits(r))  // v7's lean loop in the one-row slab's order (v10)
    return cl ? launch_slab_v10<8, true, true, P, true>(r.x, r.W, r.y, r.rows, r.N, r.K, epi,
                                                        r.s)
              : launch_slab_v10<8, false, true, kPull, true>(r.x, r.W, r.y, r.rows, r.N, r.K,
                                                             epi, r.s);
  // v6's W-as-A slab (odd K, unaligned x)
  return cl ? launch_slab_mma<8, true, true, true>(r.x, r.W, r.y, r.rows, r.N, r.K, epi, r.s)
            : launch_slab_mma<8, false, true>(r.x, r.W, r.y, r.rows, r.N, r.K, epi, r.s);
}

template <class Epi>
int slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K, const Epi &epi,
               cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < 1 || M > kMaxRows || N < 1 || K < 1 || !vector_ok(W, N)) return 0;
  // The plan's arguments; the descriptor goes beside them (Rows holds the GEMV's SlabEpi).
  const Rows r = {x, W, y, nullptr, M, N, K, kSlabNoEpi, stream};
  if (r.plan() == kSlabNone) return 0;
  *launched = true;
  return launch_status(gemm_slab_forms(r, epi));
}

// The HGEMM's limit: a CTA of 4 m-tiles over all 8192 of K is MMA-bound (0.81x cuBLAS at
// 64x8192x8192 against the WMMA split-K's 0.87x); 3 m-tiles there tie with it, and 4 m-tiles
// over half of 4096 (a cluster of 2) win (0.87x against 0.80x). So at most 3 x 8192.
constexpr long long kGemmTmaMaxWork = 3LL * 8192;

template <bool STAGEB, class Epi>
int tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                   const Epi &epi, cudaStream_t stream, bool *launched) {
  *launched = false;
  if (M < kTmaMinRows) return 0;
  return tma_slab_launch<kPushStAsync, STAGEB>(x, W, y, M, N, K, epi, kGemmTmaMaxWork, stream,
                                               launched);
}

}  // namespace

int rl_gemv_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpi epi, cudaStream_t stream, bool *launched) {
  return slabs_gemm(x, W, y, M, N, K, epi, stream, launched);
}

int rl_gemv_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                       SlabEpiResidual epi, cudaStream_t stream, bool *launched) {
  return slabs_gemm(x, W, y, M, N, K, epi, stream, launched);
}

int rl_gemv_tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                           SlabEpi epi, bool stage_bias, cudaStream_t stream, bool *launched) {
  return stage_bias ? tma_slabs_gemm<true>(x, W, y, M, N, K, epi, stream, launched)
                    : tma_slabs_gemm<false>(x, W, y, M, N, K, epi, stream, launched);
}

int rl_gemv_tma_slabs_gemm(const __half *x, const __half *W, __half *y, int M, int N, int K,
                           SlabEpiResidual epi, bool stage_bias, cudaStream_t stream,
                           bool *launched) {
  *launched = false;
  if (!stage_bias) return 0;  // only the staged-bias form is built with a residual
  return tma_slabs_gemm<true>(x, W, y, M, N, K, epi, stream, launched);
}

extern "C" size_t rl_gemv_workspace_bytes(int variant, int M, int N, int K) {
  const Variant *v = rl_table::find(kVariants, variant);
  if (v == nullptr || M < 1 || N < 1 || K < 1) return 0;
  v->setup();  // the attributes and cached queries now, not inside a graph capture
  if (N % 8 != 0) return 0;  // scalar path (W alignment is only known at launch: then unused)
  int smax = 1;  // the bucket with the most splits sizes the workspace, so any M fits it
  for (int MB = 1; MB <= kMaxRows; MB *= 2) {
    const int s = v->splits(MB, N, K);
    smax = s > smax ? s : smax;
  }
  if (smax == 1) return 0;
  const int tiles = tiles_for(N);
  return ticket_bytes(tiles) + (size_t)tiles * smax * kMaxRows * kTileN * sizeof(float);
}

extern "C" int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, int M,
                       int N, int K, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && x != nullptr && W != nullptr && y != nullptr && M >= 1 && N >= 1 &&
             K >= 1);
  bool needs_ws = false;
  if (vector_ok(W, N))
    for (int m0 = 0; m0 < M; m0 += kMaxRows)
      needs_ws |= v->splits(M - m0 < kMaxRows ? M - m0 : kMaxRows, N, K) > 1;
  RL_REQUIRE(!needs_ws || (workspace != nullptr && (uintptr_t)workspace % 16 == 0));
  const __half *xh = static_cast<const __half *>(x);
  const __half *Wh = static_cast<const __half *>(W);
  __half *yh = static_cast<__half *>(y);
  // Chunks of 16 rows run one after another on the stream, so they can share the workspace.
  for (int m0 = 0; m0 < M; m0 += kMaxRows) {
    const int rows = M - m0 < kMaxRows ? M - m0 : kMaxRows;
    const Rows r = {xh + (size_t)m0 * K, Wh, yh + (size_t)m0 * N, workspace, rows, N, K,
                    kSlabNoEpi, rl_stream(stream)};
    const int st = v->launch(r);
    if (st != 0) return st;
  }
  return 0;
}

extern "C" int rl_gemv_variant_count(void) { return rl_table::count(kVariants); }

extern "C" const char *rl_gemv_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_gemv_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}
