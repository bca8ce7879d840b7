// GEMV's host side: occupancy and cluster queries, the variants' launch plans and launches.
// A part of gemv/gemv.cu, which includes it after its shared constants and the parts before it,
// whose kernels and helpers it builds on.
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

// Clusters of S blocks of gemv_mma<MB, kCluster> that fit on the GPU at once (cached).
template <int MB>
int active_clusters(int S) {
  return cached_active_clusters<&gemv_mma<MB, kCluster>, kThreads, 0>(S);
}

// Largest cluster split whose clusters (one per column tile) are all resident at once.
template <int MB>
int cluster_splits(int N, int K) {
  if (!cluster_capable()) return 1;
  const int tiles = tiles_for(N);
  for (int S = splits_for(tiles, K, mma_occupancy<MB, kCluster>(), kMaxSplitsCluster); S > 1;
       --S)
    if (active_clusters<MB>(S) >= tiles) return S;
  return 1;
}

// ---- v6 host side: the ring kernels need > 48 KiB of dynamic shared memory (an attribute set
// once, in rl_gemv_workspace_bytes or on the first launch; never again inside a capture).
template <int MB, int MODE>
bool ring_attr() {
  static const bool ok =
      cudaFuncSetAttribute(gemv_ring<MB, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           (int)kRingSmem<MB>) == cudaSuccess ||
      (cudaGetLastError(), false);
  return ok;
}
bool ring_setup() {
  static const bool ok = ring_attr<8, kDirect>() & ring_attr<16, kDirect>() &
                         ring_attr<8, kCluster>() & ring_attr<16, kCluster>();
  return ok;
}
template <int MB>
int ring_occupancy() {
  static const int b = [] {
    int v = 0;
    ring_setup();
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, gemv_ring<MB, kCluster>, kThreads,
                                                      kRingSmem<MB>) != cudaSuccess ||
        v < 1) {
      (void)cudaGetLastError();
      v = 1;
    }
    return v;
  }();
  return b;
}
template <int MB>
int ring_active_clusters(int S) {
  ring_setup();
  return cached_active_clusters<&gemv_ring<MB, kCluster>, kThreads, (int)kRingSmem<MB>>(S);
}
// Largest cluster split (<= 8) whose clusters are all resident at once; 1 without clusters.
template <int MB>
int ring_splits(int N, int K) {
  if (!cluster_capable() || !ring_setup()) return 1;
  const int tiles = tiles_for(N);
  for (int S = splits_for(tiles, K, ring_occupancy<MB>(), kMaxSplitsCluster); S > 1; --S)
    if (ring_active_clusters<MB>(S) >= tiles) return S;
  return 1;
}

// ---- v8 host side. Slab kernels need > 48 KiB of dynamic smem (x for one row; the warp
// reduction for 16 rows): attributes set once, in rl_gemv_workspace_bytes or the first launch.
template <auto *KERNEL>
bool slab_attr(int bytes) {
  static const bool ok =
      cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) ==
          cudaSuccess ||
      (cudaGetLastError(), false);
  return ok;
}
// The smem attributes of v10's (BATCH: v11's) four kernels.
template <bool BATCH>
bool v10_attrs() {
  return slab_attr<&gemv_slab_v10<8, false, BATCH>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<8, true, BATCH>>(kSlabMmaSmem<8>) &
         slab_attr<&gemv_slab_v10<16, false, BATCH>>(kSlabMmaSmem<16>) &
         slab_attr<&gemv_slab_v10<16, true, BATCH>>(kSlabMmaSmem<16>);
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
                         // the pushing cluster kernels (v13)
                         slab_attr<&gemv_slab1<true, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_mma<8, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_mma<16, true, false, true>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_mma<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, true>>(kSlabMmaSmem<16>) &
                         // v11's 2..8-row kernels in the one-row slab's loop order (v14)
                         slab_attr<&gemv_slab_v10<8, false, true, false, true>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, true, true>>(kSlabMmaSmem<8>) &
                         // their st.async exchange (PUSH 2, v15)
                         slab_attr<&gemv_slab1<true, 2>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab1<true, 2, true>>(kSlabXSmemMax) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2>>(kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2>>(kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true>>(kSlabMmaSmem<8>) &
                         // TOP over units of two groups (XP, v16)
                         slab_attr<&gemv_slab_v10<8, false, true, 0, true, true>>(
                             kSlabMmaSmem<8>) &
                         slab_attr<&gemv_slab_v10<8, true, true, 2, true, true>>(
                             kSlabMmaSmem<8>) &
                         // XP at 9..16 rows (v17)
                         slab_attr<&gemv_slab_v10<16, false, true, 0, true, true>>(
                             kSlabMmaSmem<16>) &
                         slab_attr<&gemv_slab_v10<16, true, true, 2, true, true>>(
                             kSlabMmaSmem<16>) &
                         v10_attrs<false>() & v10_attrs<true>();
  return ok;
}

// (1, 2) clusters of a slab kernel (512 threads, `smem` dynamic bytes) resident at once.
template <auto *KERNEL, int SMEM>
int slab_max_clusters() {
  if (!cluster_capable() || !slab_setup()) return 0;
  const int v = cached_active_clusters<KERNEL, kSlabThreads, SMEM>(2);
  return v > 0 ? v : 0;
}

// What v8 runs for a launch of `rows` rows. A slab grid is used when it is between half and
// one resident wave (one 512-thread block per SM); anything else takes v7's kernels.
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

// v7's kernel for `rows`: v3 for one row, v4 for more.
int v7_variant(int rows) { return rows == 1 ? 3 : 4; }

template <int MB, bool CLUSTER, bool WA = false, bool PUSH = false>
cudaError_t launch_slab_mma(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            SlabEpi epi, cudaStream_t s) {
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_slab_mma<MB, CLUSTER, WA, PUSH>, x, W, y, M, N, K, xvec,
                            epi);
}

template <int MB, bool CLUSTER, bool BATCH, int PUSH = 0, bool TOP = false, bool XP = false>
cudaError_t launch_slab_v10(const __half *x, const __half *W, __half *y, int M, int N, int K,
                            SlabEpi epi, cudaStream_t s) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kSlabThreads, kSlabMmaSmem<MB>, CLUSTER ? 2 : 1,
                                               s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_slab_v10<MB, CLUSTER, BATCH, PUSH, TOP, XP>, x, W, y, M,
                            N, K, epi);
}

// (1, 2) clusters of the v10 (BATCH: v11) kernel for 2..8 (small) or 9..16 rows resident at
// once.
template <bool BATCH>
int v10_max_clusters(bool small) {
  return small ? slab_max_clusters<&gemv_slab_v10<8, true, BATCH>, kSlabMmaSmem<8>>()
               : slab_max_clusters<&gemv_slab_v10<16, true, BATCH>, kSlabMmaSmem<16>>();
}

// v11's kernels with PUSH (CLUSTER) for `rows`: 2..8 rows in the one-row slab's loop order
// where `top` says so (1: TOP; 2: TOP over units of two groups, XP; 3: XP at 2..16 rows),
// else the batched ring.
template <bool CLUSTER, int PUSH>
cudaError_t launch_v11(const __half *x, const __half *W, __half *y, int rows, int N, int K,
                       SlabEpi epi, int top, cudaStream_t s) {
  const bool small = bucket(rows) <= 8;
  if (small && top >= 2)
    return launch_slab_v10<8, CLUSTER, true, PUSH, true, true>(x, W, y, rows, N, K, epi, s);
  if (top == 3)  // 9..16 rows (v17)
    return launch_slab_v10<16, CLUSTER, true, PUSH, true, true>(x, W, y, rows, N, K, epi, s);
  if (small && top)
    return launch_slab_v10<8, CLUSTER, true, PUSH, true>(x, W, y, rows, N, K, epi, s);
  return small ? launch_slab_v10<8, CLUSTER, true, PUSH>(x, W, y, rows, N, K, epi, s)
               : launch_slab_v10<16, CLUSTER, true, PUSH>(x, W, y, rows, N, K, epi, s);
}

// Launches v10's (BATCH: v11's) kernel for a tensor-core slab plan where it applies: K a whole
// number of 16-row groups, x 8-byte aligned, and (with the cluster) all of its clusters
// resident. false: it does not apply, nothing was launched. top (with BATCH): 1 (GEMV v14),
// 2..8 rows take the one-row slab's loop order (TOP); 2 (GEMV v16), TOP over units of two
// groups with one x load each (XP) where K % 32 == 0 and x is 16-byte aligned, else TOP; 3
// (GEMV v17), XP at 9..16 rows too, and false at 9..16 rows where XP does not apply (the
// caller runs the TMA slab). In a cluster TOP runs with push 1 or 2 only, as v14 was measured
// (push 0 keeps v11's loop there).
template <bool BATCH>
bool launch_v10(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows, int N,
                int K, SlabEpi epi, int push, cudaStream_t s, cudaError_t *err, int top = 0) {
  if (rows < 2 || K % 16 != 0 || (uintptr_t)x % 8 != 0) return false;
  const bool small = bucket(rows) <= 8;
  if (top >= 2 && (K % 32 != 0 || (uintptr_t)x % 16 != 0)) {
    if (top == 3 && !small) return false;  // v17's 9..16 rows: XP or the caller's TMA slab
    top = 1;
  }
  const bool cluster = plan == kSlabMmaCluster;
  if (plan != kSlabMma && (!cluster || v10_max_clusters<BATCH>(small) < tiles_for(N)))
    return false;
  if constexpr (BATCH) {
    if (!cluster)
      *err = launch_v11<false, 0>(x, W, y, rows, N, K, epi, top, s);
    else if (push == 2)  // v13 pushes from v11's (batched) kernels only
      *err = launch_v11<true, 2>(x, W, y, rows, N, K, epi, top, s);
    else if (push == 1)
      *err = launch_v11<true, 1>(x, W, y, rows, N, K, epi, top, s);
    else
      *err = launch_v11<true, 0>(x, W, y, rows, N, K, epi, 0, s);
    return true;
  }
  if (cluster)
    *err = small ? launch_slab_v10<8, true, BATCH>(x, W, y, rows, N, K, epi, s)
                 : launch_slab_v10<16, true, BATCH>(x, W, y, rows, N, K, epi, s);
  else
    *err = small ? launch_slab_v10<8, false, BATCH>(x, W, y, rows, N, K, epi, s)
                 : launch_slab_v10<16, false, BATCH>(x, W, y, rows, N, K, epi, s);
  return true;
}

// v18's 32-column slabs where they apply: 2..16 rows where v17 would run the (1, 2) clusters,
// K % 64 == 0 and x 16-byte aligned. false: nothing was launched (the launch's own error is
// the caller's to read).
// v19: the same slabs with the L2 prefetch and the one-pass end.
bool launch_n32(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows, int N,
                int K, bool v19, cudaStream_t s) {
  if (plan != kSlabMmaCluster || rows < 2 || K % kN32UnitK != 0 || (uintptr_t)x % 16 != 0)
    return false;
  const unsigned grid = (unsigned)rl_ceil_div(N, kN32Cols);
  const bool small = bucket(rows) <= 8;
  const auto kernel = v19 ? (small ? gemv_slab_n32<8, true> : gemv_slab_n32<16, true>)
                          : (small ? gemv_slab_n32<8, false> : gemv_slab_n32<16, false>);
  kernel<<<grid, kSlabThreads, 0, s>>>(x, W, y, rows, N, K);
  return true;
}

// One v8 launch of `plan` (not kSlabNone) for `rows` <= 16 rows; wa: v9's W-as-A kernel for
// 2..8 rows; lean: 10 or 11 for v10's or v11's kernels where they apply, else 0; push: the
// clusters push their partial sums (GEMV v13; slab_store_tile). epi: applied to
// every result at the store (kSlabNoEpi for the GEMV itself). top: v11's 2..8-row kernel in
// the one-row slab's loop order (1, GEMV v14), over units of two groups (2, GEMV v16). push 2
// (GEMV v15, HGEMM v8's form): the one-row slab and v11's kernels exchange their sums by st.async
// (slab_store_tile); v9's keep push 1. The one-row slab in a cluster with 16-byte x also
// stages x first (XFAST).
cudaError_t launch_slab(SlabPlan plan, const __half *x, const __half *W, __half *y, int rows,
                        int N, int K, bool wa, int lean, int push, SlabEpi epi,
                        cudaStream_t s, int top = 0) {
  const bool small = bucket(rows) <= 8;
  cudaError_t err = cudaSuccess;
  if (lean == 10 && launch_v10<false>(plan, x, W, y, rows, N, K, epi, push, s, &err)) return err;
  if (lean == 11 && launch_v10<true>(plan, x, W, y, rows, N, K, epi, push, s, &err, top))
    return err;
  if (wa && small && plan == kSlabMma)
    return launch_slab_mma<8, false, true>(x, W, y, rows, N, K, epi, s);
  if (wa && small && plan == kSlabMmaCluster)
    return push ? launch_slab_mma<8, true, true, true>(x, W, y, rows, N, K, epi, s)
                : launch_slab_mma<8, true, true>(x, W, y, rows, N, K, epi, s);
  switch (plan) {
    case kSlab1x64:
      gemv_slab1<false><<<(unsigned)rl_ceil_div(N, 64), kSlabThreads, slab1_smem(K, 1), s>>>(
          x, W, y, N, K, epi);
      return cudaSuccess;
    case kSlab1x64Cluster: {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(dim3((unsigned)rl_ceil_div(N, 64), 2, 1),
                                                   kSlabThreads, slab1_smem(K, 2), 2, s, &attr);
      if (push == 2 && K % 8 == 0 && (uintptr_t)x % 16 == 0)
        return cudaLaunchKernelEx(&cfg, gemv_slab1<true, 2, true>, x, W, y, N, K, epi);
      if (push == 2) return cudaLaunchKernelEx(&cfg, gemv_slab1<true, 2>, x, W, y, N, K, epi);
      return push ? cudaLaunchKernelEx(&cfg, gemv_slab1<true, 1>, x, W, y, N, K, epi)
                  : cudaLaunchKernelEx(&cfg, gemv_slab1<true>, x, W, y, N, K, epi);
    }
    case kSlabMma:
      return small ? launch_slab_mma<8, false>(x, W, y, rows, N, K, epi, s)
                   : launch_slab_mma<16, false>(x, W, y, rows, N, K, epi, s);
    default:
      if (push)
        return small ? launch_slab_mma<8, true, false, true>(x, W, y, rows, N, K, epi, s)
                     : launch_slab_mma<16, true, false, true>(x, W, y, rows, N, K, epi, s);
      return small ? launch_slab_mma<8, true>(x, W, y, rows, N, K, epi, s)
                   : launch_slab_mma<16, true>(x, W, y, rows, N, K, epi, s);
  }
}

// The TMA slabs (defined below with their tensor maps).
bool tma_capable();
template <int R>
int tma_max_clusters();
int tma_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                    SlabEpi epi, long long max_work, int push, bool stageb, cudaStream_t s,
                    bool *launched);
// Rows from which the TMA slabs beat v11's register slabs: 9 (the 16-row bucket). At 2..8
// rows v11's W-as-A groups take half the MMAs and measured 1-3% faster on the H200.
constexpr int kTmaMinRows = 9;

// Splits a launch of `variant` with rows = min(M, 16) uses (1: no workspace needed).
int splits(int variant, int rows, int N, int K) {
  const int MB = bucket(rows);
  switch (variant) {
    case 3: return fma_splits(MB, N, K);
    case 4: return mma_splits(MB, N, K);
    default:  // v8 on: the slabs, or v7's kernel for the shape where no slab plan fits (a
              // list of cases here missed a new variant once, which then ran v4 without its
              // workspace)
      return variant >= 8 && slab_plan(rows, N, K) == kSlabNone
                 ? splits(v7_variant(rows), rows, N, K)
                 : 1;
  }
}

size_t workspace_bytes(int variant, int N, int K) {
  if (variant == 5) {  // no workspace; make the cached occupancy queries now, not in a capture
    cluster_splits<8>(N, K);
    cluster_splits<16>(N, K);
    return 0;
  }
  if (variant == 6) {  // no workspace; smem attributes and occupancy queries now
    ring_setup();
    ring_splits<8>(N, K);
    ring_splits<16>(N, K);
    return 0;
  }
  if (variant >= 8) slab_setup();  // the smem attributes now, not in a capture
  if (variant >= 12 && tma_capable()) (void)tma_max_clusters<1>();  // attributes, cluster query
  if (variant >= 10) {  // its cluster residency queries now, not in a capture
    const bool batch = variant >= 11;
    for (const bool small : {true, false})
      (void)(batch ? v10_max_clusters<true>(small) : v10_max_clusters<false>(small));
  }
  if (variant != 3 && variant != 4 && variant < 8) return 0;
  if (N % 8 != 0) return 0;  // scalar path (W alignment is only known at launch: then unused)
  int smax = 1;  // the bucket with the most splits sizes the workspace, so any M fits it
  for (int MB = 1; MB <= kMaxRows; MB *= 2) {
    const int s = splits(variant, MB, N, K);
    smax = s > smax ? s : smax;
  }
  if (smax == 1) return 0;
  const int tiles = tiles_for(N);
  return ticket_bytes(tiles) + (size_t)tiles * smax * kMaxRows * kTileN * sizeof(float);
}

template <int MB>
void launch_scalar(const __half *x, const __half *W, __half *y, int M, int N, int K,
                   cudaStream_t s) {
  gemv_scalar<MB><<<(int)rl_ceil_div(N, 32), kThreads, 0, s>>>(x, W, y, M, N, K);
}

template <int MB>
void launch_fma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K, int S,
                cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  if (S > 1)
    gemv_fma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S);
  else
    gemv_fma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1);
}

template <int MB>
cudaError_t launch_mma(const __half *x, const __half *W, __half *y, void *ws, int M, int N, int K,
                       int S, bool cluster, cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  if (S == 1) {
    gemv_mma<MB, kDirect><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, 1, xvec);
  } else if (!cluster) {
    gemv_mma<MB, kWorkspace><<<grid, kThreads, 0, s>>>(x, W, y, ws, M, N, K, S, xvec);
  } else {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = launch_config(grid, kThreads, 0, S, s, &attr);
    return cudaLaunchKernelEx(&cfg, gemv_mma<MB, kCluster>, x, W, y, ws, M, N, K, S, xvec);
  }
  return cudaSuccess;
}

template <int MB>
cudaError_t launch_ring(const __half *x, const __half *W, __half *y, int M, int N, int K, int S,
                        cudaStream_t s) {
  const dim3 grid(tiles_for(N), S);
  const bool xvec = K % 4 == 0 && (uintptr_t)x % 8 == 0;
  if (S == 1) {
    gemv_ring<MB, kDirect><<<grid, kThreads, kRingSmem<MB>, s>>>(x, W, y, nullptr, M, N, K, 1,
                                                                 xvec);
    return cudaSuccess;
  }
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(grid, kThreads, (int)kRingSmem<MB>, S, s, &attr);
  return cudaLaunchKernelEx(&cfg, gemv_ring<MB, kCluster>, x, W, y, (void *)nullptr, M, N, K, S,
                            xvec);
}

// One launch for `rows` <= 16 rows of x.
int launch_rows(int variant, const __half *x, const __half *W, __half *y, void *ws, int rows,
                int N, int K, cudaStream_t s) {
  const int MB = bucket(rows);
  if (variant == 1) {
    const dim3 grid((unsigned)rl_ceil_div(N, kThreads), rows);
    gemv_v1<<<grid, kThreads, 0, s>>>(x, W, y, rows, N, K);
    return rl_launch_status();
  }
  if (!vector_ok(W, N)) {
    switch (MB) {
      case 1: launch_scalar<1>(x, W, y, rows, N, K, s); break;
      case 2: launch_scalar<2>(x, W, y, rows, N, K, s); break;
      case 4: launch_scalar<4>(x, W, y, rows, N, K, s); break;
      case 8: launch_scalar<8>(x, W, y, rows, N, K, s); break;
      default: launch_scalar<16>(x, W, y, rows, N, K, s); break;
    }
    return rl_launch_status();
  }
  // v13: v12 with the clusters pushing their partial sums; v15: by st.async (push 2)
  const int push = variant >= 15 ? 2 : variant >= 13 ? 1 : 0;
  const SlabPlan plan = variant >= 8 ? slab_plan(rows, N, K) : kSlabNone;
  // v18: 32-column slabs instead of v17's clusters where they apply
  if (variant >= 18 && launch_n32(plan, x, W, y, rows, N, K, variant >= 19, s))
    return rl_launch_status();
  if (variant >= 17 && rows >= kTmaMinRows) {  // v17: v16's XP loop at 9..16 rows, else v16
    cudaError_t e = cudaSuccess;
    if (plan != kSlabNone &&
        launch_v10<true>(plan, x, W, y, rows, N, K, kSlabNoEpi, push, s, &e, 3)) {
      const int st = rl_launch_status();
      return e != cudaSuccess ? (int)e : st;
    }
  }
  if (variant >= 12 && rows >= kTmaMinRows) {  // v12: the TMA slabs where they apply, else v11
    bool launched = false;
    const int st = tma_slab_launch(x, W, y, rows, N, K, kSlabNoEpi, LLONG_MAX, push, false, s,
                                   &launched);
    if (launched) return st;
  }
  if (variant >= 8) {
    if (plan == kSlabNone) return launch_rows(v7_variant(rows), x, W, y, ws, rows, N, K, s);
    const int lean = variant >= 11 ? 11 : variant == 10 ? 10 : 0;  // v12, v13: v11's kernels
    // v14: 2..8 rows in the one-row slab's loop order; v16: over units of two groups (XP)
    const int top = variant >= 16 ? 2 : variant >= 14 ? 1 : 0;
    const cudaError_t e =
        launch_slab(plan, x, W, y, rows, N, K, variant >= 9, lean, push, kSlabNoEpi, s, top);
    const int st = rl_launch_status();
    return e != cudaSuccess ? (int)e : st;
  }
  if (variant == 2 || variant == 3) {
    const int S = variant == 3 ? fma_splits(MB, N, K) : 1;
    switch (MB) {
      case 1: launch_fma<1>(x, W, y, ws, rows, N, K, S, s); break;
      case 2: launch_fma<2>(x, W, y, ws, rows, N, K, S, s); break;
      case 4: launch_fma<4>(x, W, y, ws, rows, N, K, S, s); break;
      case 8: launch_fma<8>(x, W, y, ws, rows, N, K, S, s); break;
      default: launch_fma<16>(x, W, y, ws, rows, N, K, S, s); break;
    }
    return rl_launch_status();
  }
  cudaError_t e;
  if (variant == 4) {
    const int S = mma_splits(MB, N, K);
    e = MB <= 8 ? launch_mma<8>(x, W, y, ws, rows, N, K, S, false, s)
                : launch_mma<16>(x, W, y, ws, rows, N, K, S, false, s);
  } else if (variant == 5) {
    e = MB <= 8 ? launch_mma<8>(x, W, y, nullptr, rows, N, K, cluster_splits<8>(N, K), true, s)
                : launch_mma<16>(x, W, y, nullptr, rows, N, K, cluster_splits<16>(N, K), true, s);
  } else {
    if (!ring_setup()) return (int)cudaErrorInvalidConfiguration;  // smem attribute refused
    e = MB <= 8 ? launch_ring<8>(x, W, y, rows, N, K, ring_splits<8>(N, K), s)
                : launch_ring<16>(x, W, y, rows, N, K, ring_splits<16>(N, K), s);
  }
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

}  // namespace
