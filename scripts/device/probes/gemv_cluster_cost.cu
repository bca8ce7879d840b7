// Development probe (not part of the product): what the (1, 2) cluster form costs the GEMV
// slabs at N = K = 4096, where 64 slabs alone would leave half the SMs idle and the product
// splits K over a cluster of 2 reduced through DSMEM. In report H every GEMV there was
// 1.18-1.21x the read in one launch, and at M = 1 the gap was 1.2 us larger in one-launch
// than in graph timing (8192², no cluster: no difference). Cases, each timed cold in graph
// and one-launch timing, interleaved (probe_bench.cuh), plus the host's cost of enqueueing one
// launch (no GPU wait):
// - the product's read and its GEMV (rl_gemv, best variant) at M = 1, 2, 16;
// - the TMA slab kernel (gemv_slab_tma, R = 1: 16 rows) as the product launches it (cluster);
//   without the cluster (grid (64, 2), each CTA stores its half-K partial: wrong sums, timing
//   only); the non-cluster kernel launched with the cluster attribute (the launch's cost
//   without DSMEM); unsplit (64 CTAs);
// - an empty kernel of 128 CTAs with and without the cluster attribute;
// and where a cluster launch places its CTAs (SMs holding two CTAs).
// Usage: gemv_cluster_cost N  (N = K)
#include <chrono>

#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

__global__ void empty_kernel() {}

// Spins ~20 us so that all CTAs are resident at once, then records its SM.
__global__ void __launch_bounds__(256, 1) where_kernel(int *smid) {
  const long long t0 = clock64();
  while (clock64() - t0 < 40000) {
  }
  if (threadIdx.x == 0) {
    int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[blockIdx.y * gridDim.x + blockIdx.x] = s;
  }
}

// CTAs per SM of a (tiles, 2) launch with `smem` bytes, with or without (1, 2) clusters.
void placement(int tiles, int smem, bool cluster) {
  int *d;
  const int n = tiles * 2;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaFuncSetAttribute(where_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      launch_config(dim3(tiles, 2, 1), 256, smem, cluster ? 2 : 1, 0, &attr);
  CK(cudaLaunchKernelEx(&cfg, where_kernel, d));
  CK(cudaDeviceSynchronize());
  std::vector<int> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> per(1024, 0);
  for (int s : h) per[s]++;
  int doubled = 0, used = 0;
  for (int c : per) {
    used += c > 0;
    doubled += c > 1;
  }
  std::printf("placement %s smem %d KB: %d CTAs on %d SMs, %d SMs with 2+\n",
              cluster ? "cluster(1,2)" : "plain", smem / 1024, n, used, doubled);
  CK(cudaFree(d));
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  require_tma();
  const GemvProbeBuffers buf(n);
  const size_t bytes = buf.bytes;
  const int sets = buf.sets;
  const std::vector<__half *> &W = buf.W, &x = buf.x;
  __half *y = buf.y;
  void *ws;
  const size_t wsb = rl_gemv_workspace_bytes(rl_gemv_variant_count(), 16, n, n);
  CK(cudaMalloc(&ws, wsb > 0 ? wsb : 16));
  CK(cudaMemset(ws, 0, wsb > 0 ? wsb : 16));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int best = rl_gemv_variant_count();

  using gemv_tma_r1 = decltype(&gemv_slab_tma<1, false>);
  constexpr gemv_tma_r1 k_plain = &gemv_slab_tma<1, false>;
  constexpr gemv_tma_r1 k_cluster = &gemv_slab_tma<1, true>;
  constexpr int smem = kTmaSmem<1>;
  CK(cudaFuncSetAttribute(k_plain, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(k_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int tiles = tiles_for(n);
  std::vector<CUtensorMap> wm(sets), xm(sets);
  for (int i = 0; i < sets; ++i)
    if (!rl_tma::tensor_map(&wm[i], W[i], n, n, kTileN, kTmaStageK) ||
        !rl_tma::tensor_map(&xm[i], x[i], 16, n, 64, 16)) {
      std::fprintf(stderr, "tensor map failed\n");
      return 1;
    }
  const auto tma = [=](gemv_tma_r1 k, int gy, int S) {
    return [=](int i, cudaStream_t st) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(dim3(tiles, gy, 1), kTmaThreads, smem, S, st,
                                                   &attr);
      CK(cudaLaunchKernelEx(&cfg, k, wm[i], xm[i], y, 16, n, n, kSlabNoEpi));
    };
  };
  const auto empty = [=](int S) {
    return [=](int, cudaStream_t st) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launch_config(dim3(64, 2, 1), 256, 0, S, st, &attr);
      CK(cudaLaunchKernelEx(&cfg, empty_kernel));
    };
  };
  const auto gemv = [=](int m) {
    return [=](int i, cudaStream_t st) {
      const int e = rl_gemv(best, x[i], W[i], y, ws, m, n, n, st);
      if (e != 0) {
        std::fprintf(stderr, "rl_gemv: %s\n", rl_error_string(e));
        std::exit(1);
      }
    };
  };
  std::vector<ProbeCase> cases;
  cases.push_back(probe_read_case(W, bytes));
  cases.push_back({"product gemv M=1", gemv(1)});
  cases.push_back({"product gemv M=2", gemv(2)});
  cases.push_back({"product gemv M=16", gemv(16)});
  const bool split = 2 * tiles < sms;
  if (split) {
    cases.push_back({"tma R=1 cluster (1,2), DSMEM reduce", tma(k_cluster, 2, 2)});
    cases.push_back({"tma R=1 split 2, no cluster (wrong sums)", tma(k_plain, 2, 1)});
    cases.push_back({"tma R=1 split 2, cluster attr, no DSMEM (wrong)", tma(k_plain, 2, 2)});
  }
  cases.push_back({"tma R=1 unsplit", tma(k_plain, 1, 1)});
  cases.push_back({"empty 128 CTAs", empty(1)});
  cases.push_back({"empty 128 CTAs, cluster (1,2)", empty(2)});

  // Host cost of enqueueing one launch: 200 launches, no wait between them.
  std::printf("host enqueue cost per launch (us):\n");
  for (const auto &c : cases) {
    for (int i = 0; i < 10; ++i) c.launch(i % sets, s);
    CK(cudaStreamSynchronize(s));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) c.launch(i % sets, s);
    const auto t1 = std::chrono::steady_clock::now();
    CK(cudaStreamSynchronize(s));
    std::printf("  %-50s %7.2f\n", c.name.c_str(),
                std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
  }
  placement(tiles, smem, true);
  placement(tiles, smem, false);
  placement(tiles, 120 * 1024, true);
  std::printf("%dx%d fp16 W (%.0f MB), %d sets, %d SMs\n", n, n, bytes / 1e6, sets, sms);
  probe_run(cases, sets, (double)bytes, s);
  return 0;
}
