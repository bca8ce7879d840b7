// The host side of GEMV's TMA slabs: the tensor maps (cached) and their launch.
// A part of gemv/gemv_common.cuh, which includes it after the shared constants and the parts
// before it, whose kernels and helpers it builds on.
namespace {

// ---- TMA slabs (GEMV v8, HGEMM v8): the launch (tensor maps: tma_host.cuh).
// Whether the TMA slabs can run: compute capability 9.x (their SASS is sm_90a; elsewhere the
// compute_80 PTX would JIT the trapping stub) and a driver with the tensor-map encoder.
bool tma_capable() {
  static const bool yes = [] {
    int dev = 0, major = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ==
               cudaSuccess &&
           major == 9 && rl_tma::tensor_map_encoder() != nullptr;
  }();
  return yes;
}

template <int R, bool CLUSTER, int PUSH, bool STAGEB, class Epi>
cudaError_t launch_tma(const CUtensorMap &wm, const CUtensorMap &xm, __half *y, int M, int N,
                       int K, const Epi &epi, cudaStream_t s) {
  constexpr auto *kernel = &gemv_slab_tma<R, CLUSTER, kTmaDepth, PUSH, STAGEB, Epi>;
  if (const cudaError_t e = slab_smem<kernel>(kTmaSmem<R>); e != cudaSuccess) return e;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(N), CLUSTER ? 2 : 1, 1),
                                               kTmaThreads, kTmaSmem<R>, CLUSTER ? 2 : 1, s,
                                               &attr);
  return cudaLaunchKernelEx(&cfg, kernel, wm, xm, y, M, N, K, epi);
}

// The smem attributes of the R-tile kernels, set once.
template <int R>
bool tma_attrs() {
  return slab_attr<&gemv_slab_tma<R, false>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, false, kTmaDepth, false, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, true, true>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, 2>>(kTmaSmem<R>) &
         slab_attr<&gemv_slab_tma<R, true, kTmaDepth, 2, true>>(kTmaSmem<R>);
}

// (1, 2) clusters of the R-tile kernel resident at once.
template <int R>
int tma_max_clusters() {
  if (!tma_attrs<R>()) return 0;
  const int v = cached_active_clusters<&gemv_slab_tma<R, true>, kTmaThreads, kTmaSmem<R>>(2);
  return v > 0 ? v : 0;
}

// The TMA slab launch for `rows` = M <= 64 rows of x when it applies (a slab grid of half to
// one wave, with a (1, 2) cluster below that); *launched says whether it did. PUSH: the
// clusters' exchange; STAGEB: the kernel that stages the bias in shared memory (the fused
// family's staged bias; with a pushing exchange only).
template <int R, int PUSH, bool STAGEB, class Epi>
int tma_launch(const __half *x, const __half *W, __half *y, int M, int N, int K, const Epi &epi,
               long long max_work, cudaStream_t s, bool *launched) {
  if (!tma_attrs<R>()) return 0;
  const int sms = rl_sm_count();
  const long long tiles = tiles_for(N);
  const auto fits = [&](long long blocks) { return 2 * blocks >= sms && blocks <= sms; };
  const bool direct = fits(tiles);
  if (!direct && !(fits(2 * tiles) && tma_max_clusters<R>() >= tiles)) return 0;
  if ((long long)R * (direct ? K : (K + 1) / 2) > max_work) return 0;
  CUtensorMap wm, xm;
  if (!rl_tma::tensor_map(&wm, W, K, N, kTileN, kTmaStageK) ||
      !rl_tma::tensor_map(&xm, x, M, K, 64, 16 * R))
    return 0;
  *launched = true;
  constexpr bool SB = STAGEB && PUSH != kPull;
  const cudaError_t e = direct ? launch_tma<R, false, kPull, SB>(wm, xm, y, M, N, K, epi, s)
                               : launch_tma<R, true, PUSH, SB>(wm, xm, y, M, N, K, epi, s);
  const int st = rl_launch_status();
  return e != cudaSuccess ? (int)e : st;
}

// Whether the TMA slabs take this shape at all (before any query): 2..64 rows, 16-byte
// strides and bases for the tensor maps, a capable device.
bool tma_shape_ok(const void *x, const void *W, int M, int N, int K) {
  return M >= 2 && M <= kTmaMaxRows && N % 8 == 0 && K % 8 == 0 &&
         (uintptr_t)x % 16 == 0 && (uintptr_t)W % 16 == 0 && tma_capable();
}

// max_work: the most m-tiles x rows of K one CTA may take (the HGEMM's limit, below); PUSH and
// STAGEB: as tma_launch. The cluster query and the plan are the SlabEpi kernels' for every Epi
// (the same threads and shared memory, so the same residency).
template <int PUSH, bool STAGEB, class Epi>
int tma_slab_launch(const __half *x, const __half *W, __half *y, int M, int N, int K,
                    const Epi &epi, long long max_work, cudaStream_t s, bool *launched) {
  *launched = false;
  if (!tma_shape_ok(x, W, M, N, K)) return 0;
  switch ((M + 15) / 16) {
    case 1: return tma_launch<1, PUSH, STAGEB>(x, W, y, M, N, K, epi, max_work, s, launched);
    case 2: return tma_launch<2, PUSH, STAGEB>(x, W, y, M, N, K, epi, max_work, s, launched);
    case 3: return tma_launch<3, PUSH, STAGEB>(x, W, y, M, N, K, epi, max_work, s, launched);
    default: return tma_launch<4, PUSH, STAGEB>(x, W, y, M, N, K, epi, max_work, s, launched);
  }
}

// Rows from which the TMA slabs beat the register slabs: 9 (the 16-row bucket). At 2..8 rows
// v7's W-as-A groups take half the MMAs and measured 1-3% faster on the H200.
constexpr int kTmaMinRows = 9;

}  // namespace
