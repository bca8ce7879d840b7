// Development probe (not part of the product): times forced HGEMM tile / cluster split-K
// configs against the dispatching variant at mid M (N = K = 4096), to choose the next
// variant's candidates. Built here by scripts/device/probes/build.sh (into target/probes/,
// also compiled by CI) and run on the GPU machine by scripts/device/midm-tiles.sh.
// Timing: one launch per sample between CUDA events, cold L2 (the launches rotate over
// kSets buffer sets, > 3x L2), candidates interleaved round by round, medians.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "hgemm_dispatch.cuh"

namespace rlg {

//                         BM   BN  BK  WM  WN  ST async GM minB
// 64x128 tiles with deeper pipelines (1 CTA per SM: more bytes of B in flight).
using CfgW6 = TileCfg<64, 128, 64, 32, 64, 6, true, 8, 1>;
using CfgW8 = TileCfg<64, 128, 64, 32, 64, 8, true, 8, 1>;
// 128x128 with 8 warps of 64x32 (two per scheduler), BK = 64.
using CfgQ4 = TileCfg<128, 128, 64, 64, 32, 4, true, 8, 1>;
using CfgQ5 = TileCfg<128, 128, 64, 64, 32, 5, true, 8, 1>;
// v8's 128x128 / 4 warps with 8 stages.
using CfgV8d = TileCfg<128, 128, 32, 64, 64, 8, true, 8, 1>;
// 64x128 with 8 warps of 32x32 (two per scheduler), 2 CTAs per SM.
using CfgWn = TileCfg<64, 128, 64, 32, 32, 4, true, 8, 2>;
// 64x64 with 4 warps of 32x32, 3 CTAs per SM.
using CfgS64 = TileCfg<64, 64, 64, 32, 32, 4, true, 8, 3>;
}  // namespace rlg

extern "C" int rl_hgemm(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                        void *stream);

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

__global__ void fill_random(half *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 40503u;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2half(((h & 0xffff) / 65535.0f - 0.5f));
  }
}

struct Cand {
  std::string name;
  std::function<int(const half *, const half *, half *, int, int, int, cudaStream_t)> run;
};

template <class Cfg, int SPLIT>
Cand split(const char *name) {
  return {name, [](const half *a, const half *b, half *c, int m, int n, int k, cudaStream_t s) {
            if (rlg::cluster_slots<Cfg, SPLIT, rlg::EpiIdentity>() <
                rlg::tile_count<Cfg>(m, n) * SPLIT)
              return -1;  // not all CTAs resident: not a candidate
            return rlg::launch_cluster_splitk<Cfg, SPLIT>(a, b, c, m, n, k, rlg::EpiIdentity{}, s);
          }};
}

template <class Cfg>
Cand pipelined(const char *name) {
  return {name, [](const half *a, const half *b, half *c, int m, int n, int k, cudaStream_t s) {
            return rlg::launch_pipelined_path<Cfg>(a, b, c, m, n, k, rlg::EpiIdentity{}, s);
          }};
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 150;
  const int N = 4096, K = 4096, kSets = 6;
  std::vector<Cand> cands = {
      {"v15", [](const half *a, const half *b, half *c, int m, int n, int k, cudaStream_t s) {
         return rl_hgemm(15, a, b, c, m, n, k, s);
       }},
      split<rlg::CfgW, 2>("W x2"),     split<rlg::CfgW, 4>("W x4"),
      split<rlg::CfgW, 8>("W x8"),     split<rlg::CfgWn, 2>("Wn x2"),
      split<rlg::CfgWn, 4>("Wn x4"),   split<rlg::CfgS64, 2>("S64 x2"),
      split<rlg::CfgS64, 4>("S64 x4"),
      split<rlg::CfgQ4, 2>("Q4 x2"),
  };
  const int ms[] = {64, 96, 128};
  const int Mmax = 128;
  std::vector<half *> A(kSets), B(kSets), C(kSets);
  for (int s = 0; s < kSets; ++s) {
    CK(cudaMalloc(&A[s], sizeof(half) * Mmax * K));
    CK(cudaMalloc(&B[s], sizeof(half) * (size_t)K * N));
    CK(cudaMalloc(&C[s], sizeof(half) * Mmax * N));
    fill_random<<<1024, 256>>>(A[s], (size_t)Mmax * K, 11 + s);
    fill_random<<<1024, 256>>>(B[s], (size_t)K * N, 101 + s);
  }
  half *ref;
  CK(cudaMalloc(&ref, sizeof(half) * Mmax * N));
  std::vector<half> h_ref(Mmax * N), h_out(Mmax * N);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaDeviceSynchronize());

  for (int M : ms) {
    printf("== %dx%dx%d, one launch, cold, %d rounds interleaved (us: median p10 p90)\n", M, N, K,
           rounds);
    // Correctness against v14 on set 0, and which candidates apply.
    CK((cudaError_t)rl_hgemm(14, A[0], B[0], ref, M, N, K, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(h_ref.data(), ref, sizeof(half) * M * N, cudaMemcpyDeviceToHost));
    std::vector<int> live;
    for (size_t c = 0; c < cands.size(); ++c) {
      CK(cudaMemsetAsync(C[0], 0xff, sizeof(half) * M * N, st));  // NaN poison
      const int rc = cands[c].run(A[0], B[0], C[0], M, N, K, st);
      if (rc < 0) continue;
      CK((cudaError_t)rc);
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(h_out.data(), C[0], sizeof(half) * M * N, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (int i = 0; i < M * N; ++i) {
        const double d = (double)__half2float(h_out[i]) - (double)__half2float(h_ref[i]);
        num += d * d;
        den += (double)__half2float(h_ref[i]) * __half2float(h_ref[i]);
      }
      const double rel = std::sqrt(num / den);
      if (!(rel < 1e-2)) printf("  %-10s WRONG rel err %.3g\n", cands[c].name.c_str(), rel);
      else live.push_back((int)c);
    }
    std::vector<std::vector<float>> t(cands.size());
    int launch = 0;
    for (int r = -3; r < rounds; ++r) {
      for (int c : live) {
        const int s = launch++ % kSets;
        CK(cudaEventRecord(e0, st));
        CK((cudaError_t)cands[c].run(A[s], B[s], C[s], M, N, K, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms_ = 0;
        CK(cudaEventElapsedTime(&ms_, e0, e1));
        if (r >= 0) t[c].push_back(ms_ * 1e3f);
      }
    }
    for (int c : live) {
      auto v = t[c];
      std::sort(v.begin(), v.end());
      const double flops = 2.0 * M * N * K;
      const float med = v[v.size() / 2];
      printf("  %-10s %8.2f %8.2f %8.2f  %6.0f TFLOP/s\n", cands[c].name.c_str(), med,
             v[v.size() / 10], v[v.size() * 9 / 10], flops / (med * 1e-6) / 1e12);
    }
  }
  CK(cudaGetLastError());
  return 0;
}
