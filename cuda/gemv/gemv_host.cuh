// GEMV's shared host side: occupancy and cluster queries, the slab plan, the slab launch
// helpers, and one launch's arguments (Rows). The steps' own launchers are in
// gemv_NN_<name>.cuh. A part of gemv/gemv_common.cuh, which includes it after the shared
// constants and the kernels it launches.
namespace {

// ---------------------------------------------------------------- host side
int bucket(int rows) { return rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16; }

// Resident blocks per SM of a kernel (cached per instantiation by the caller's static).
int occupancy(const void *kernel) {
  int b = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, kThreads, 0) != cudaSuccess ||
      b < 1)
    b = 1;
  return b;
}
template <int MB, int MODE>
int fma_occupancy() {
  static const int b = occupancy(reinterpret_cast<const void *>(gemv_fma<MB, MODE>));
  return b;
}
template <int MB, int MODE>
int mma_occupancy() {
  static const int b = occupancy(reinterpret_cast<const void *>(gemv_mma<MB, MODE>));
  return b;
}

// K splits per column tile: as many as keep all blocks in one resident wave, with at least
// kMinQuadsPerWarp quads of K per warp.
int splits_for(int tiles, int K, int blocks_per_sm, int cap) {
  const long long wave = (long long)rl_sm_count() * blocks_per_sm;
  long long s = wave / tiles;
  const long long by_k = ((long long)K + 3) / 4 / (kWarps * kMinQuadsPerWarp);
  if (s > by_k) s = by_k;
  if (s > cap) s = cap;
  return s < 1 ? 1 : (int)s;
}

int tiles_for(int N) { return (int)rl_ceil_div(N, kTileN); }

bool vector_ok(const void *W, int N) { return N % 8 == 0 && (uintptr_t)W % 16 == 0; }

int fma_splits(int MB, int N, int K) {
  int occ = 1;
  switch (MB) {
    case 1: occ = fma_occupancy<1, kWorkspace>(); break;
    case 2: occ = fma_occupancy<2, kWorkspace>(); break;
    case 4: occ = fma_occupancy<4, kWorkspace>(); break;
    case 8: occ = fma_occupancy<8, kWorkspace>(); break;
    default: occ = fma_occupancy<16, kWorkspace>(); break;
  }
  return splits_for(tiles_for(N), K, occ, kMaxSplitsWs);
}

int mma_splits(int MB, int N, int K) {
  const int occ = MB <= 8 ? mma_occupancy<8, kWorkspace>() : mma_occupancy<16, kWorkspace>();
  return splits_for(tiles_for(N), K, occ, kMaxSplitsWs);
}

bool cluster_capable() { return rl_cc9_or_newer(); }

// Launch configuration of `threads`-thread blocks with `smem` dynamic bytes; S > 1 makes
// the blocks (1, S) clusters along y, through *attr (storage the caller keeps alive).
cudaLaunchConfig_t launch_config(dim3 grid, int threads, int smem, int S, cudaStream_t s,
                                 cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(threads, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  if (S > 1) {
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = 1;
    attr->val.clusterDim.y = S;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  return cfg;
}

// (1, S) clusters of `kernel` resident on the GPU at once; -1 if none fit or the query fails.
int query_active_clusters(const void *kernel, int threads, int smem, int S) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(1, S, 1), threads, smem, S, 0, &attr);
  int v = 0;
  if (cudaOccupancyMaxActiveClusters(&v, kernel, &cfg) != cudaSuccess) {
    (void)cudaGetLastError();  // an unusable size: do not leave it for the next launch check
    v = 0;
  }
  return v > 0 ? v : -1;
}

// query_active_clusters per cluster size S, cached for one kernel (0 in the cache: not asked).
template <auto *KERNEL, int THREADS, int SMEM>
int cached_active_clusters(int S) {
  static std::atomic<int> cache[kMaxSplitsCluster + 1];
  int v = cache[S].load(std::memory_order_relaxed);
  if (v == 0) {
    v = query_active_clusters(reinterpret_cast<const void *>(KERNEL), THREADS, SMEM, S);
    cache[S].store(v, std::memory_order_relaxed);
  }
  return v;
}

// ---- the slabs (v5 on). Slab kernels need > 48 KiB of dynamic smem (x for one row; the warp
// reduction for 16 rows): attributes set once, in rl_gemv_workspace_bytes or the first launch.
template <auto *KERNEL>
bool slab_attr(int bytes) {
  static const bool ok =
      cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) ==
          cudaSuccess ||
      (cudaGetLastError(), false);
  return ok;
}
// The smem attributes of the lean loop's (v7's) four kernels.
bool lean_attrs() {
  return slab_attr<&gemv_slab_v10<8, false, true>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<8, true, true>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<16, false, true>>(kSlabMmaSmem<16>) &
         slab_attr<&gemv_slab_v10<16, true, true>>(kSlabMmaSmem<16>);
}
bool slab_setup() {
  static const bool ok = slab_attr<&gemv_slab1<false>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab1<true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_mma<8, false>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, false>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, true>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<8, true, true>>(kSlabMmaSmem<8>) &
                         // the pushing cluster kernels (v9)
                         slab_attr<&gemv_slab1<true, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_mma<8, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, true, false, true>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, true>>(kSlabMmaSmem<16>) &
                         // v7's 2..8-row kernels in the one-row slab's loop order (v10)
                         slab_attr<&gemv_slab_v10<8, false, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true, true>>(kSlabMmaSmem<8>) &
                         // their st.async exchange (PUSH 2, v11)
                         slab_attr<&gemv_slab1<true, 2>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab1<true, 2, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true>>(kSlabMmaSmem<8>) &
                         // TOP over units of two groups (XP, v12)
                         slab_attr<&gemv_slab_v10<8, false, true, 0, true, true>>(
                             kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true, true>>(
                             kSlabMmaSmem<8>) &
                         // XP at 9..16 rows (v12)
                         slab_attr<&gemv_slab_v10<16, false, true, 0, true, true>>(
                             kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2, true, true>>(
                             kSlabMmaSmem<16>) &
                         lean_attrs();
  return ok;
}

// (1, 2) clusters of a slab kernel (512 threads, `smem` dynamic bytes) resident at once.
template <auto *KERNEL, int SMEM>
int slab_max_clusters() {
  if (!cluster_capable() || !slab_setup()) return 0;
  const int v = cached_active_clusters<KERNEL, kSlabThreads, SMEM>(2);
  return v > 0 ? v : 0;
}

// Which slab kernel suits a launch of `rows` rows. A slab grid is used when it is between half
// and one resident wave (one 512-thread block per SM); kSlabNone: no slab (the steps from v5 on
// then run v4's kernels).
enum SlabPlan { kSlabNone = 0, kSlab1x64, kSlab1x64Cluster, kSlabMma, kSlabMmaCluster };

SlabPlan slab_plan(int rows, int N, int K) {
  if (!slab_setup()) return kSlabNone;
  const int sms = rl_sm_count();
  const auto fits = [&](long long blocks) { return 2 * blocks >= sms && blocks <= sms; };
  if (rows == 1) {
    if (K > kSlabXSmemMax / 2 - 8) return kSlabNone;  // x must fit in the staging smem
    const long long slabs64 = rl_ceil_div(N, 64);
    if (fits(slabs64)) return kSlab1x64;
    if (fits(2 * slabs64) &&
        slab_max_clusters<&gemv_slab1<true>, kSlabXSmemMax>() >= slabs64)
      return kSlab1x64Cluster;
    return kSlabNone;
  }
  const int tiles = tiles_for(N);
  if (fits(tiles)) return kSlabMma;
  const int clusters =
      bucket(rows) <= 8 ? slab_max_clusters<&gemv_slab_mma<8, true>, kSlabMmaSmem<8>>()
                        : slab_max_clusters<&gemv_slab_mma<16, true>, kSlabMmaSmem<16>>();
  if (fits(2LL * tiles) && clusters >= tiles)
    return kSlabMmaCluster;
  return kSlabNone;
}

// The launch helpers take the epilogue descriptor as Epi (SlabEpi, or SlabEpiResidual for the
// residual's own instantiations) and raise their kernel's smem limit once: the GEMV's own
// kernels have theirs from slab_setup already, before any launch or graph capture; another
// descriptor's kernels get theirs at their first launch, as the GEMM family's kernels do.
template <auto *KERNEL>
cudaError_t slab_smem(int bytes) {
  return slab_attr<KERNEL>(bytes) ? cudaSuccess : cudaErrorInvalidValue;
}

template <int MB, bool CLUSTER, bool WA = false, bool PUSH = false, class Epi>
cudaError_t launch_slab_mma(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            const Epi &epi, cudaStream_t s) {
  constexpr auto *kernel = &gemv_slab_mma<MB, CLUSTER, WA, PUSH, Epi>;
  if (const cudaError_t e = slab_smem<kernel>(kSlabMmaSmem<MB>); e != cudaSuccess) return e;
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, kernel, x, W, y, M, N, K, xvec, epi);
}

template <int MB, bool CLUSTER, bool BATCH, int PUSH = 0, bool TOP = false, bool XP = false,
          class Epi>
cudaError_t launch_slab_v10(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            const Epi &epi, cudaStream_t s) {
  constexpr auto *kernel = &gemv_slab_v10<MB, CLUSTER, BATCH, PUSH, TOP, XP, Epi>;
  if (const cudaError_t e = slab_smem<kernel>(kSlabMmaSmem<MB>); e != cudaSuccess) return e;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, kernel, x, W, y, M, N, K, epi);
}

// (1, 2) clusters of the lean loop's (v7's) kernel for 2..8 (small) or 9..16 rows resident at
// once: the query that admits its clusters, and those of v10's and v12's forms of the kernel.
int lean_max_clusters(bool small) {
  return small ? slab_max_clusters<&gemv_slab_v10<8, true, true>, kSlabMmaSmem<8>>()
               : slab_max_clusters<&gemv_slab_v10<16, true, true>, kSlabMmaSmem<16>>();
}

// A launch's status: the launch call's own error, else what cudaGetLastError reports after it.
int launch_status(cudaError_t e) {
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

// How the two CTAs of a (1, 2) cluster exchange their partial sums: the slab kernels' PUSH
// (slab_store_tile). kPull: a cluster barrier, each reads the peer's half over DSMEM, a second
// barrier (v5..v8); kPushStores: each writes the peer's half into the peer's shared memory,
// one barrier (v9, v10); kPushStAsync: those writes by st.async onto the peer's mbarrier (v11
// on, and the GEMM family's slabs).
constexpr int kPull = 0, kPushStores = 1, kPushStAsync = 2;

// A one-row slab kernel over S CTAs per 64 columns (S = 2: in (1, 2) clusters).
template <auto *KERNEL, class Epi>
cudaError_t launch_slab1_as(const __half *x, const __half *W, __half *y, int N, int K, int S,
                            const Epi &epi, cudaStream_t s) {
  if (const cudaError_t e = slab_smem<KERNEL>(kSlabXSmemMax); e != cudaSuccess) return e;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3((unsigned)rl_ceil_div(N, 64), S, 1),
                                               kSlabThreads, slab1_smem(K, S), S, s, &attr);
  return cudaLaunchKernelEx(&cfg, KERNEL, x, W, y, N, K, epi);
}

// The one-row slab (v5): one block per 64 columns, or in (1, 2) clusters exchanging their sums
// by PUSH; with the st.async exchange (v11) and 16-byte x the cluster's kernel stages x before
// W's first loads (XFAST).
template <int PUSH, class Epi>
cudaError_t launch_slab1(const __half *x, const __half *W, __half *y, int N, int K, bool cluster,
                         const Epi &epi, cudaStream_t s) {
  if (!cluster)
    return launch_slab1_as<&gemv_slab1<false, kPull, false, Epi>>(x, W, y, N, K, 1, epi, s);
  if constexpr (PUSH == kPushStAsync)
    if (K % 8 == 0 && (uintptr_t)x % 16 == 0)
      return launch_slab1_as<&gemv_slab1<true, PUSH, true, Epi>>(x, W, y, N, K, 2, epi, s);
  return launch_slab1_as<&gemv_slab1<true, PUSH, false, Epi>>(x, W, y, N, K, 2, epi, s);
}

// One launch of the GEMV: at most kMaxRows rows of x (rl_gemv runs a larger M in chunks of 16
// rows, one after another on the stream, so they share the workspace). Every step's launcher
// takes one.
struct Rows {
  const __half *x;
  const __half *W;
  __half *y;
  void *ws;  // the split-K steps' workspace (null where no step needs one)
  int rows, N, K;
  SlabEpi epi;  // what the slabs apply at their store: kSlabNoEpi for the GEMV itself
  cudaStream_t s;
  mutable int plan_ = -1;  // plan(), once known

  // The slab plan of this launch (slab_plan), kSlabNone off the 16-byte path (N % 8 != 0 or
  // W unaligned): every slab kernel loads W 16 (or 8) bytes at a time.
  SlabPlan plan() const {
    if (plan_ < 0) plan_ = vector_ok(W, N) ? slab_plan(rows, N, K) : kSlabNone;
    return static_cast<SlabPlan>(plan_);
  }
};

}  // namespace
