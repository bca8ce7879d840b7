// Development probe (not part of the product): the (1, 2) clusters' exchange of partial sums at
// N = K = 4096 pushed with plain DSMEM stores behind a cluster barrier (PUSH 1, the product
// since GEMV v13) or with st.async counted on the receiver's mbarrier, each rank waiting on
// its own barrier (PUSH 2). For the one-row slab (M = 1), GEMV v14's 2..8-row kernel (M = 2
// and 8) and the TMA slab (M = 16). Checks first that both forms give bitwise the same y
// (random W and x), then times them cold, graph and one launch, interleaved
// (probe_bench.cuh), beside the product's read.
// Usage: gemv_cluster_signal [N]  (N = K, default 4096; the cluster forms need N / 64 < 66)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// One launch of a cluster kernel form: x, W, y for M rows at N = K = n.
using Form = std::function<void(const __half *, const __half *, __half *, int, int, cudaStream_t)>;

template <int PUSH>
Form slab1() {
  return [](const __half *x, const __half *W, __half *y, int, int n, cudaStream_t st) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(dim3(n / 64, 2, 1), kSlabThreads, slab1_smem(n, 2), 2, st, &attr);
    CK(cudaLaunchKernelEx(&cfg, gemv_slab1<true, PUSH>, x, W, y, n, n, kSlabNoEpi));
  };
}

template <int PUSH>
Form top8() {
  return [](const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(dim3(tiles_for(n), 2, 1), kSlabThreads, kSlabMmaSmem<8>, 2, st, &attr);
    CK(cudaLaunchKernelEx(&cfg, gemv_slab_v10<8, true, true, PUSH, true>, x, W, y, M, n, n,
                          kSlabNoEpi));
  };
}

template <int PUSH>
Form tma1() {
  constexpr auto *k = &gemv_slab_tma<1, true, kTmaDepth, PUSH>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kTmaSmem<1>));
  return [](const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
    CUtensorMap wm, xm;
    if (!rl_tma::tensor_map(&wm, W, n, n, kTileN, kTmaStageK) || !rl_tma::tensor_map(&xm, x, M, n, 64, 16)) {
      std::fprintf(stderr, "tensor map failed\n");
      std::exit(1);
    }
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(dim3(tiles_for(n), 2, 1), kTmaThreads, kTmaSmem<1>, 2, st, &attr);
    CK(cudaLaunchKernelEx(&cfg, gemv_slab_tma<1, true, kTmaDepth, PUSH>, wm, xm, y, M, n, n,
                          kSlabNoEpi));
  };
}

// Bitwise comparison of two forms' y on random data; exits on any difference or NaN.
void check(const char *name, const Form &a, const Form &b, const __half *x, const __half *W,
           int M, int n) {
  __half *y0, *y1;
  CK(cudaMalloc(&y0, (size_t)M * n * 2));
  CK(cudaMalloc(&y1, (size_t)M * n * 2));
  CK(cudaMemset(y0, 0xff, (size_t)M * n * 2));
  CK(cudaMemset(y1, 0xff, (size_t)M * n * 2));
  a(x, W, y0, M, n, 0);
  b(x, W, y1, M, n, 0);
  CK(cudaDeviceSynchronize());
  probe_require_equal(std::string(name) + " M=" + std::to_string(M) + ", PUSH 1 vs 2", y0, y1,
                      (size_t)M * n);
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  require_tma();
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  struct Pair {
    const char *name;
    int M;
    Form p1, p2;
  };
  const std::vector<Pair> pairs = {{"slab1", 1, slab1<1>(), slab1<2>()},
                                   {"v14 top", 2, top8<1>(), top8<2>()},
                                   {"v14 top", 8, top8<1>(), top8<2>()},
                                   {"tma R=1", 16, tma1<1>(), tma1<2>()}};
  for (const Pair &p : pairs) check(p.name, p.p1, p.p2, buf.x[0], buf.W[0], p.M, n);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<ProbeCase> cases;
  const std::vector<__half *> W = buf.W, x = buf.x;
  __half *y = buf.y;
  const size_t bytes = buf.bytes;
  cases.push_back(probe_read_case(W, bytes));
  for (const Pair &p : pairs) {
    const std::string m = std::string(p.name) + " M=" + std::to_string(p.M);
    const int M = p.M;
    const Form f1 = p.p1, f2 = p.p2;
    cases.push_back({m + " PUSH 1 (product)",
                     [=](int i, cudaStream_t st) { f1(x[i], W[i], y, M, n, st); }});
    cases.push_back({m + " PUSH 2 (st.async)",
                     [=](int i, cudaStream_t st) { f2(x[i], W[i], y, M, n, st); }});
  }
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, bytes / 1e6, buf.sets);
  for (int run = 0; run < 2; ++run) probe_run(cases, buf.sets, (double)bytes, s);
  return 0;
}
