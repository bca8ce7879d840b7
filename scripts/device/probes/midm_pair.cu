// Development probe (not part of the product): mid-M HGEMM kernels of midm_pair.cuh against
// v21 and v21's mid-M config (the 128x128 tile of 8 warps split 2 ways over a cluster), plain,
// fused (bias + tanh GELU) and unfused (GEMM, then the separate bias + GELU kernel), at
// 128..256 x 4096 x 4096, 500x2040x2056 and 256x4096x8192. Second argument: "pair" (run PS1:
// the split-K over two clusters of two on the 256x128 and 128x256 tiles), "push" (run QP:
// v21's mid-M config with its partial tiles pushed) or "tile" (run MT: 128x64 tiles over all
// of K, cuBLAS's shape of the problem, on the pipelined kernel); third: how many of the shapes
// (all five by default). It includes gemm_gelu.cu to reach the fused functor. Checks: every candidate against v21's output by relative Frobenius error, and
// each run twice on the same inputs, bitwise.
// Timing: one launch per sample between CUDA events, cold (the launches rotate over kSets
// buffer sets, > 3x L2), candidates interleaved round by round, medians with p10 / p90.
// Built by scripts/device/probes/build.sh; run by scripts/device/midm-pair.sh.
#include <cmath>
#include <cstring>
#include <iterator>

#include "../../../cuda/gemm_gelu.cu"
#include "midm_pair.cuh"
#include "probe_bench.cuh"

namespace rlg {
//                          BM  BN  BK  WM  WN  ST async GM minB
using Cfg64a = TileCfg<128, 64, 64, 32, 32, 4, true, 8, 1>;
using Cfg64b = TileCfg<128, 64, 64, 32, 32, 8, true, 8, 1>;
using Cfg64c = TileCfg<128, 64, 32, 32, 32, 8, true, 8, 1>;
using Cfg64d = TileCfg<128, 64, 64, 64, 32, 6, true, 8, 1>;
}  // namespace rlg

namespace {

constexpr int kSets = 6;
using Fused = EpiBiasGelu<0, true>;

struct Bufs {
  const half *a, *b, *bias;
  half *c;
};
using Run = std::function<int(const Bufs &, int, int, int, cudaStream_t)>;
struct Cand {
  std::string name;
  bool fused;  // compared with v21's fused output, else with its plain output
  Run run;
};

// A plain GEMM on the pipelined kernel with config Cfg (the tile mode).
template <class Cfg>
Cand pipelined(const char *name) {
  return {name, false, [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
            return rlg::launch_pipelined_path<Cfg>(x.a, x.b, x.c, m, n, k, rlg::EpiIdentity{}, s);
          }};
}

double rel_err(const std::vector<half> &x, const std::vector<half> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = (double)__half2float(x[i]) - (double)__half2float(ref[i]);
    num += d * d;
    den += (double)__half2float(ref[i]) * __half2float(ref[i]);
  }
  return std::sqrt(num / den);  // NaN (poison left) fails every comparison below
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string mode = argc > 2 ? argv[2] : "push";
  const int max_shapes = argc > 3 ? std::atoi(argv[3]) : 5;  // the sanitizer runs take 1
  using namespace rlg;
  // Plain / fused / unfused v21, then the mode's kernels in the same order, so that no
  // candidate runs right after itself (a launch after its own kernel measured ~0.5 us faster,
  // A3). PS1 ("pair") also timed v21's mid-M config forced, each right after v21 (the same
  // kernel at its shapes): read those against each other, not against the rest.
  if (mode != "push" && mode != "pair" && mode != "tile") {
    std::fprintf(stderr, "midm_pair: mode must be push, pair or tile (got %s)\n", mode.c_str());
    return 2;
  }
  const bool push = mode == "push";
  std::vector<Cand> cands = {
      {"plain v21", false,
       [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
         return rl_hgemm(21, x.a, x.b, x.c, m, n, k, s);
       }},
      {"fused v21", true,
       [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
         return rl_gemm_bias_gelu(21, x.a, x.b, x.bias, x.c, m, n, k, 0, s);
       }},
      {"unfused v21", true,
       [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
         const int rc = rl_hgemm(21, x.a, x.b, x.c, m, n, k, s);
         return rc ? rc : rl_bias_gelu(x.c, x.bias, x.c, m, n, 0, s);
       }},
  };
  if (mode == "tile") {
    // cuBLAS's shape of the problem (NM): 128x64 tiles over all of K, 128 CTAs, no split,
    // here on the pipelined WMMA kernel (v7's loop) with 8 warps of 32x32 (4 or 8 stages, BK
    // 64 or 32) or 4 warps of 64x32.
    cands.push_back(pipelined<Cfg64a>("plain 128x64 8w 32x32 st4"));
    cands.push_back(pipelined<Cfg64b>("plain 128x64 8w 32x32 st8"));
    cands.push_back(pipelined<Cfg64c>("plain 128x64 8w 32x32 bk32 st8"));
    cands.push_back(pipelined<Cfg64d>("plain 128x64 4w 64x32 st6"));
  } else if (push) {
    cands.push_back({"plain Q x2 push", false,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_push_splitk<CfgQ, 2>(x.a, x.b, x.c, m, n, k,
                                                          EpiIdentity{}, s);
                     }});
    cands.push_back({"fused Q x2 push staged", true,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_push_splitk<CfgQ, 2>(x.a, x.b, x.c, m, n, k,
                                                          Fused{x.bias}, s, true);
                     }});
    cands.push_back({"unfused Q x2 push", true,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       const int rc = launch_push_splitk<CfgQ, 2>(x.a, x.b, x.c, m, n, k,
                                                                  EpiIdentity{}, s);
                       return rc ? rc : rl_bias_gelu(x.c, x.bias, x.c, m, n, 0, s);
                     }});
  } else {  // "pair"
    cands.push_back({"plain Q x2 (v21 mid-M)", false,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_cluster_splitk<CfgQ, 2>(x.a, x.b, x.c, m, n, k,
                                                             EpiIdentity{}, s);
                     }});
    cands.push_back({"plain Tall 2x2", false,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_pair_splitk<CfgTall>(x.a, x.b, x.c, m, n, k,
                                                          EpiIdentity{}, s);
                     }});
    cands.push_back({"plain V7 2x2", false,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_pair_splitk<CfgV7>(x.a, x.b, x.c, m, n, k, EpiIdentity{},
                                                        s);
                     }});
    cands.push_back({"fused Tall 2x2 staged", true,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       return launch_pair_splitk<CfgTall>(x.a, x.b, x.c, m, n, k,
                                                          Fused{x.bias}, s, true);
                     }});
    cands.push_back({"unfused Tall 2x2", true,
                     [](const Bufs &x, int m, int n, int k, cudaStream_t s) {
                       const int rc = launch_pair_splitk<CfgTall>(x.a, x.b, x.c, m, n, k,
                                                                  EpiIdentity{}, s);
                       return rc ? rc : rl_bias_gelu(x.c, x.bias, x.c, m, n, 0, s);
                     }});
  }
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{256, 4096, 4096}, {192, 4096, 4096}, {128, 4096, 4096},
                          {500, 2040, 2056}, {256, 4096, 8192}};
  const size_t amax = 512 * 8192, bmax = (size_t)8192 * 4096, cmax = 512 * 4096;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  std::vector<Bufs> sets(kSets);
  for (int i = 0; i < kSets; ++i) {
    half *a, *b, *bias, *c;
    CK(cudaMalloc(&a, amax * 2));
    CK(cudaMalloc(&b, bmax * 2));
    CK(cudaMalloc(&bias, 8192 * 2));
    CK(cudaMalloc(&c, cmax * 2));
    CK((cudaError_t)rl_fill_uniform_f16(a, amax, 11 + i, -1.f, 1.f, st));
    CK((cudaError_t)rl_fill_uniform_f16(b, bmax, 101 + i, -1.f, 1.f, st));
    CK((cudaError_t)rl_fill_uniform_f16(bias, 8192, 7 + i, -1.f, 1.f, st));
    sets[i] = {a, b, bias, c};
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaStreamSynchronize(st));
  bool all_ok = true;
  for (int si = 0; si < max_shapes && si < (int)std::size(shapes); ++si) {
    const Shape &sh = shapes[si];
    const int M = sh.m, N = sh.n, K = sh.k;
    const size_t outs = (size_t)M * N;
    std::printf("== %dx%dx%d, one launch, cold, %d rounds interleaved (us: median p10 p90)\n",
                M, N, K, rounds);
    std::vector<half> ref_plain(outs), ref_fused(outs), out(outs), again(outs);
    const auto result = [&](const Cand &cd, std::vector<half> &dst) {
      CK(cudaMemsetAsync(sets[0].c, 0xff, outs * 2, st));  // NaN poison
      const int rc = cd.run(sets[0], M, N, K, st);
      if (rc != 0) return rc;
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(dst.data(), sets[0].c, outs * 2, cudaMemcpyDeviceToHost));
      return 0;
    };
    CK((cudaError_t)result(cands[0], ref_plain));
    CK((cudaError_t)result(cands[1], ref_fused));
    std::vector<int> live;
    for (size_t c = 0; c < cands.size(); ++c) {
      const int rc = result(cands[c], out);
      if (rc != 0) {
        std::printf("  %-36s not launched: %s\n", cands[c].name.c_str(),
                    cudaGetErrorString((cudaError_t)rc));
        continue;
      }
      CK((cudaError_t)result(cands[c], again));
      const double e = rel_err(out, cands[c].fused ? ref_fused : ref_plain);
      const bool same = std::memcmp(out.data(), again.data(), outs * 2) == 0;
      const bool ok = e < 1e-2 && same;
      all_ok = all_ok && ok;
      std::printf("  %-36s rel err vs v21 %.3g, rerun %s%s\n", cands[c].name.c_str(), e,
                  same ? "bitwise equal" : "DIFFERS", ok ? "" : "  FAIL");
      if (ok) live.push_back((int)c);
    }
    std::vector<std::vector<float>> t(cands.size());
    int launch = 0;
    for (int r = -3; r < rounds; ++r) {
      for (int c : live) {
        const Bufs &x = sets[launch++ % kSets];
        CK(cudaEventRecord(e0, st));
        CK((cudaError_t)cands[c].run(x, M, N, K, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) t[c].push_back(ms * 1e3f);
      }
    }
    for (int c : live) {
      if (t[c].empty()) continue;  // no timed rounds (the sanitizer runs)
      std::vector<float> v = t[c];
      std::sort(v.begin(), v.end());
      const float med = v[v.size() / 2];
      std::printf("  %-36s %8.2f %8.2f %8.2f  %6.0f TFLOP/s\n", cands[c].name.c_str(), med,
                  v[v.size() / 10], v[v.size() * 9 / 10], 2.0 * M * N * K / (med * 1e-6) / 1e12);
    }
  }
  CK(cudaGetLastError());
  std::printf("%s\n", all_ok ? "all checks passed" : "SOME CHECKS FAILED");
  return all_ok ? 0 : 1;
}
