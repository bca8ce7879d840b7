// Development probe (not part of the product): the (1, 2) cluster's reduction of the TMA
// slabs at N = K = 4096 pulled (the product: a cluster barrier, each rank reads the peer's
// partial sums over DSMEM, a second barrier) or pushed (each rank writes the peer's half of
// its sums into the peer's shared memory, one barrier; slab_store_tile's PUSH form). C1
// (gemv_cluster_cost.cu) put the pulled reduction at ~0.6 us in graph timing and ~0.8 us in
// one launch. Checks first that both forms give bitwise the same y (random W and x), then
// times them cold, graph and one launch, interleaved (probe_bench.cuh), beside the read and
// the same grid without any reduction (wrong sums, timing only), for R = 1 and 4 m-tiles
// (16 and 64 rows of x).
// Usage: gemv_cluster_push [N]  (N = K, default 4096; the cluster form needs N / 64 < 66)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

template <int R, bool CLUSTER, bool PUSH>
constexpr auto *kKernel = &gemv_slab_tma<R, CLUSTER, kTmaDepth, PUSH>;

template <int R, bool CLUSTER, bool PUSH>
void launch(const CUtensorMap &wm, const CUtensorMap &xm, __half *y, int M, int n, int gy,
            cudaStream_t st) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config(dim3(tiles_for(n), gy, 1), kTmaThreads,
                                               kTmaSmem<R>, CLUSTER ? 2 : 1, st, &attr);
  CK(cudaLaunchKernelEx(&cfg, kKernel<R, CLUSTER, PUSH>, wm, xm, y, M, n, n, kSlabNoEpi));
}

template <int R>
void set_smem() {
  for (auto *k : {kKernel<R, true, false>, kKernel<R, true, true>, kKernel<R, false, false>})
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kTmaSmem<R>));
}

// Bitwise comparison of the pulled and pushed forms' y on random data.
template <int R>
void check(const __half *W, const __half *x, int n) {
  const int M = 16 * R;
  set_smem<R>();
  CUtensorMap wm, xm;
  if (!rl_tma::tensor_map(&wm, W, n, n, kTileN, kTmaStageK) || !rl_tma::tensor_map(&xm, x, M, n, 64, 16 * R)) {
    std::fprintf(stderr, "tensor map failed\n");
    std::exit(1);
  }
  __half *y0, *y1;
  CK(cudaMalloc(&y0, (size_t)M * n * 2));
  CK(cudaMalloc(&y1, (size_t)M * n * 2));
  CK(cudaMemset(y0, 0xff, (size_t)M * n * 2));
  CK(cudaMemset(y1, 0xff, (size_t)M * n * 2));
  launch<R, true, false>(wm, xm, y0, M, n, 2, 0);
  launch<R, true, true>(wm, xm, y1, M, n, 2, 0);
  CK(cudaDeviceSynchronize());
  probe_require_equal("R=" + std::to_string(R) + " (M=" + std::to_string(M) + "), pull vs push",
                      y0, y1, (size_t)M * n);
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

template <int R>
void add_cases(std::vector<ProbeCase> &cases, const GemvProbeBuffers &buf) {
  const int M = 16 * R, n = buf.n;
  set_smem<R>();
  std::vector<CUtensorMap> wm(buf.sets), xm(buf.sets);
  for (int i = 0; i < buf.sets; ++i)
    if (!rl_tma::tensor_map(&wm[i], buf.W[i], n, n, kTileN, kTmaStageK) ||
        !rl_tma::tensor_map(&xm[i], buf.x[i], M, n, 64, 16 * R)) {
      std::fprintf(stderr, "tensor map failed\n");
      std::exit(1);
    }
  __half *y = buf.y;
  const std::string m = " M=" + std::to_string(M);
  cases.push_back({"tma" + m + " cluster, pulled (product)", [=](int i, cudaStream_t st) {
                     launch<R, true, false>(wm[i], xm[i], y, M, n, 2, st);
                   }});
  cases.push_back({"tma" + m + " cluster, pushed", [=](int i, cudaStream_t st) {
                     launch<R, true, true>(wm[i], xm[i], y, M, n, 2, st);
                   }});
  cases.push_back({"tma" + m + " split 2, no reduction (wrong)", [=](int i, cudaStream_t st) {
                     launch<R, false, false>(wm[i], xm[i], y, M, n, 2, st);
                   }});
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  require_tma();
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  check<1>(buf.W[0], buf.x[0], n);
  check<4>(buf.W[0], buf.x[0], n);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<ProbeCase> cases;
  const size_t bytes = buf.bytes;
  cases.push_back(probe_read_case(buf.W, bytes));
  add_cases<1>(cases, buf);
  add_cases<4>(cases, buf);
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, bytes / 1e6, buf.sets);
  probe_run(cases, buf.sets, (double)bytes, s);
  return 0;
}
