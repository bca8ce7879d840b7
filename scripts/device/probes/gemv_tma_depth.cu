// Development probe (not part of the product): the product's TMA slab kernel (gemv_slab_tma
// of cuda/gemv.cu, included here, so this probe links without gemv.cu) at ring depths D = 4
// (the product's), 6 and 8, for R = 1, 2, 4 m-tiles (16, 32, 64 rows of x), beside the plain
// read of W. The bare TMA stream (tma_slab.cu) matched the read with D = 4; the product kernel
// sits ~8% above it in graph timing, and the stages it consumes more slowly (MMAs between a
// stage's wait and its refill) may want more of them in flight.
// Usage: gemv_tma_depth N  (N = K; 8192: 128 slabs, no cluster; 4096: clusters of 2).
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

template <int R, int D>
void add_case(std::vector<ProbeCase> &cases, const std::vector<__half *> &W,
              const std::vector<__half *> &x, __half *y, int M, int N, int K) {
  constexpr auto *k_direct = &gemv_slab_tma<R, false, D>;
  constexpr auto *k_cluster = &gemv_slab_tma<R, true, D>;
  constexpr int smem = kTmaSmemD<R>(D);
  CK(cudaFuncSetAttribute(k_direct, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(k_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int tiles = tiles_for(N);
  const bool direct = 2 * tiles >= rl_sm_count();
  std::vector<CUtensorMap> wm(W.size()), xm(W.size());
  for (size_t i = 0; i < W.size(); ++i)
    if (!rl_tma::tensor_map(&wm[i], W[i], K, N, kTileN, kTmaStageK) ||
        !rl_tma::tensor_map(&xm[i], x[i], M, K, 64, 16 * R)) {
      std::fprintf(stderr, "tensor map failed\n");
      std::exit(1);
    }
  cases.push_back({"tma slab M=" + std::to_string(M) + " R=" + std::to_string(R) + " D=" +
                       std::to_string(D) + " (" + std::to_string(smem / 1024) + " KB smem)" +
                       (direct ? "" : " cluster"),
                   [=](int i, cudaStream_t st) {
                     cudaLaunchAttribute attr;
                     const cudaLaunchConfig_t cfg =
                         launch_config(dim3(tiles, direct ? 1 : 2, 1), kTmaThreads, smem,
                                       direct ? 1 : 2, st, &attr);
                     CK(cudaLaunchKernelEx(&cfg, direct ? k_direct : k_cluster, wm[i], xm[i], y,
                                           M, N, K, kSlabNoEpi));
                   }});
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  require_tma();
  const GemvProbeBuffers buf(n);
  const size_t bytes = buf.bytes;
  const int sets = buf.sets;
  const std::vector<__half *> &W = buf.W, &x = buf.x;
  __half *y = buf.y;
  float *sink;
  CK(cudaMalloc(&sink, 4096 * sizeof(float)));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  std::vector<ProbeCase> cases;
  cases.push_back({"plain read (grid-stride, 8x256 thr/SM)", [=](int i, cudaStream_t st) {
                     probe_read<<<sms * 8, 256, 0, st>>>((const uint4 *)W[i], bytes / 16, sink);
                   }});
  add_case<1, 4>(cases, W, x, y, 16, n, n);
  add_case<1, 6>(cases, W, x, y, 16, n, n);
  add_case<1, 8>(cases, W, x, y, 16, n, n);
  add_case<2, 4>(cases, W, x, y, 32, n, n);
  add_case<2, 6>(cases, W, x, y, 32, n, n);
  add_case<4, 4>(cases, W, x, y, 64, n, n);
  add_case<4, 6>(cases, W, x, y, 64, n, n);
  std::printf("%dx%d fp16 W (%.0f MB), %d sets, %d SMs\n", n, n, bytes / 1e6, sets, sms);
  probe_run(cases, sets, (double)bytes, s);
  return 0;
}
