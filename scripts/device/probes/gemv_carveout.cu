// Development probe (not part of the product): does GEMV v19's one launch pay for a change of
// the SM's L1 / shared-memory split? I1 (pred_cost.cu) found the GEMV 0.2-0.3 us slower after
// the read of W than after itself, by a path it did not separate; one candidate is the
// carveout: the read uses no shared memory, v19's 32-column slabs 18 KB (8 rows) or 35 KB (16
// rows) for their end, so a launch after the read may first reconfigure every SM.
// Each sample: a predecessor (the read of another weight set, the GEMV itself, an empty
// kernel), a stream synchronization, then events around one launch of the target (cold: each
// launch on the next of the weight sets), as the product's one-launch samples are taken. The
// targets: rl_gemv v19 at 16 and 8 rows (N = K = 4096), with the 32-column slab kernels'
// preferred carveout set to the default (-1: the driver's choice), 0 (the most L1), 16 (about
// the 35 KB they use) and 100 (the most shared memory); and the read after the GEMV at each
// setting (the floor the target is compared with must not move with it). Every (setting,
// target, predecessor) is interleaved round by round; medians, p10 and p90 in us.
// Run CV (docs/results/h200/dev-2026-12-02/gemv-carveout/gemv-carveout.txt, two runs of 600
// rounds): carveouts -1, 0 and 16 within 0.3 us of each other for every pair, so the split is
// not what a launch after the read pays; 100 (28 KB of L1 left) makes both GEMVs 2.6-2.95 us
// slower. After the empty kernel the 16-row GEMV is 0.3-0.5 us faster than after itself or the
// read (8 rows 0-0.3), and the read 0.1-0.6 us faster after the GEMV than after the empty one.
// Usage: gemv_carveout [rounds]  (default 300)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

void set_carveout(int pct) {
  for (auto k : {gemv_slab_n32<16, true>, gemv_slab_n32<8, true>})
    CK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 300;
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  const int sets = buf.sets;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  __half *y = buf.y;
  const ProbeCase read = probe_read_case(buf.W, buf.bytes);
  auto gemv = [&](int m) {
    return ProbeCase{"GEMV v19 " + std::to_string(m) + " rows", [&, m](int s, cudaStream_t t) {
                       CK((cudaError_t)rl_gemv(19, buf.x[s], buf.W[s], y, nullptr, m, n, n, t));
                     }};
  };
  const ProbeCase g16 = gemv(16), g8 = gemv(8);
  const ProbeCase empty{"empty kernel", [](int, cudaStream_t t) { CK((cudaError_t)rl_empty(t)); }};
  struct Pair {
    const ProbeCase *target, *pred;
  };
  const std::vector<Pair> pairs = {{&g16, &g16}, {&g16, &read}, {&g16, &empty}, {&g8, &g8},
                                   {&g8, &read},  {&g8, &empty}, {&read, &g16}, {&read, &empty}};
  const int settings[] = {-1, 0, 16, 100};
  const int S = sizeof(settings) / sizeof(settings[0]);
  for (int c : settings) {  // warm every path once under every setting
    set_carveout(c);
    for (const Pair &p : pairs) {
      p.pred->launch(0, st);
      p.target->launch(1, st);
    }
  }
  CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> t(S * pairs.size());
  int set = 0;
  for (int r = 0; r < rounds; ++r)
    for (int c = 0; c < S; ++c) {
      set_carveout(settings[c]);
      for (size_t i = 0; i < pairs.size(); ++i) {
        pairs[i].pred->launch(set % sets, st);
        CK(cudaStreamSynchronize(st));
        float ms = 0;
        CK(cudaEventRecord(e0, st));
        pairs[i].target->launch((set + 1) % sets, st);
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[c * pairs.size() + i].push_back(ms * 1000);
        set += 2;
      }
    }
  CK(cudaGetLastError());
  std::printf("%-9s %-20s %-20s %9s %9s %9s\n", "carveout", "target", "after", "median us", "p10",
              "p90");
  for (int c = 0; c < S; ++c)
    for (size_t i = 0; i < pairs.size(); ++i) {
      std::vector<float> v = t[c * pairs.size() + i];
      std::sort(v.begin(), v.end());
      std::printf("%-9d %-20s %-20s %9.2f %9.2f %9.2f\n", settings[c],
                  pairs[i].target->name.c_str(),
                  pairs[i].pred == pairs[i].target ? "itself" : pairs[i].pred->name.c_str(),
                  v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
    }
  return 0;
}
