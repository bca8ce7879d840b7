// Development probe (not part of the product): where the time of the split-K over two
// clusters of two (pair_splitk_kernel, midm_pair.cuh) goes, run PS2. The kernel's stamps
// (PairStamps): thread 0 of every CTA writes %globaltimer at each phase: start, main loop
// drained, partial parked and published (first cluster barrier), own half summed (second
// barrier), ticket taken, done. The stamped launch's output is checked bitwise against an
// unstamped one. Prints, per phase, the median and max over CTAs of the stamp minus the
// earliest start, the SMs used, and the resident CTAs of the pair kernel and of v21's mid-M
// config. (PS2 ran a copy of the kernel with the stamps inlined; the hook replaced it.)
#include <cstring>

#include "kernels.h"
#include "midm_pair.cuh"
#include "probe_bench.cuh"

int main() {
  using namespace rlg;
  using Cfg = CfgTall;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::printf("pair_slots (Tall) %d, (V7) %d; cluster_slots Q x2 %d\n",
              pair_slots<CfgTall, EpiIdentity>(), pair_slots<CfgV7, EpiIdentity>(),
              cluster_slots<CfgQ, 2, EpiIdentity>());
  for (const int K : {4096, 8192}) {
    const int M = 256, N = 4096;
    const int tiles = (int)tile_count<Cfg>(M, N), ctas = tiles * 4;
    half *a, *b, *c, *c2;
    CK(cudaMalloc(&a, (size_t)M * K * 2));
    CK(cudaMalloc(&b, (size_t)K * N * 2));
    CK(cudaMalloc(&c, (size_t)M * N * 2));
    CK(cudaMalloc(&c2, (size_t)M * N * 2));
    CK((cudaError_t)rl_fill_uniform_f16(a, (size_t)M * K, 1, -1.f, 1.f, st));
    CK((cudaError_t)rl_fill_uniform_f16(b, (size_t)K * N, 2, -1.f, 1.f, st));
    unsigned long long *marks;
    unsigned *info;
    CK(cudaMalloc(&marks, ctas * kPairMarks * 8));
    CK(cudaMalloc(&info, ctas * 4));
    CK((cudaError_t)launch_pair_splitk<Cfg>(a, b, c2, M, N, K, EpiIdentity{}, st));
    for (int rep = 0; rep < 4; ++rep) {
      CK(cudaMemsetAsync(marks, 0, ctas * kPairMarks * 8, st));
      CK((cudaError_t)launch_pair_splitk<Cfg>(a, b, c, M, N, K, EpiIdentity{}, st, false,
                                              PairStamps{marks, info}));
      CK(cudaStreamSynchronize(st));
      std::vector<unsigned long long> h(ctas * kPairMarks);
      std::vector<unsigned> hi(ctas);
      CK(cudaMemcpy(h.data(), marks, h.size() * 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hi.data(), info, hi.size() * 4, cudaMemcpyDeviceToHost));
      unsigned long long t0 = ~0ull;
      for (int i = 0; i < ctas; ++i) t0 = std::min(t0, h[i * kPairMarks]);
      std::vector<int> sms(hi.size());
      for (int i = 0; i < ctas; ++i) sms[i] = hi[i] & 0xffff;
      std::sort(sms.begin(), sms.end());
      const int distinct = (int)(std::unique(sms.begin(), sms.end()) - sms.begin());
      std::printf("256x4096x%d rep %d: %d CTAs on %d SMs; us after the first start (median / "
                  "max over CTAs):",
                  K, rep, ctas, distinct);
      const char *names[kPairMarks] = {"start", "loop", "parked", "summed", "ticket", "done"};
      for (int m = 0; m < kPairMarks; ++m) {
        std::vector<double> v;
        for (int i = 0; i < ctas; ++i) v.push_back((h[i * kPairMarks + m] - t0) * 1e-3);
        std::sort(v.begin(), v.end());
        std::printf(" %s %.2f / %.2f;", names[m], v[v.size() / 2], v.back());
      }
      std::printf("\n");
    }
    std::vector<half> x((size_t)M * N), y((size_t)M * N);
    CK(cudaMemcpy(x.data(), c, x.size() * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), c2, y.size() * 2, cudaMemcpyDeviceToHost));
    std::printf("  stamped vs unstamped launch: %s\n",
                std::memcmp(x.data(), y.data(), x.size() * 2) == 0 ? "bitwise equal" : "DIFFER");
  }
  return 0;
}
