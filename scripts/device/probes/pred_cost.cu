// Development probe (not part of the product): what one launch pays for the kernel that ran
// before it. A3 found a launch after a different kernel ~0.5-0.7 us slower than one after its
// own; this separates three readings of that:
// - the launch path: after an empty kernel (another function, no code or data to speak of);
// - the SM instruction caches: after `icache_flush`, a kernel of ~256 KB of straight-line
//   code run on every SM (no data);
// - data and L2 state: after the read of a 32 MB weight set (tiny code).
// Targets at N = K = 4096 (or the second argument), cold (each launch on the next of 8 weight
// sets): our plain GEMM (HGEMM v18) and fused GEMM+bias+GELU (v20) at 64 rows, the GEMV (v14)
// at 1, 8 and 16 rows (register slabs up to 8 rows, TMA slabs at 16), and the product's read of
// W. Each sample: the predecessor, a stream synchronization
// (as the product's samples have between them), then events around one launch of the target.
// All (target, predecessor) pairs are interleaved round by round; medians in us.
// Built by scripts/device/probes/build.sh; run by scripts/device/pred-cost.sh.
#include <cuda_fp16.h>

#include "kernels.h"
#include "probe_bench.cuh"

namespace {

constexpr int kSets = 8, kRows = 64;

// Four independent FMA chains, fully unrolled: ~16K instructions of straight-line code.
__global__ void __launch_bounds__(32) icache_flush(float *sink, float seed) {
  float a = seed + threadIdx.x, b = a * 0.5f, c = a * 0.25f, d = a * 0.125f;
#pragma unroll
  for (int i = 0; i < 4096; ++i) {
    a = fmaf(a, 1.0001f, b);
    b = fmaf(b, 0.9999f, c);
    c = fmaf(c, 1.0002f, d);
    d = fmaf(d, 0.9998f, a);
  }
  if (a + b + c + d == 0.123f) sink[blockIdx.x] = 1.0f;  // never true in practice
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 400;
  const int n = argc > 2 ? std::atoi(argv[2]) : 4096;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const size_t wbytes = (size_t)n * n * 2, xbytes = (size_t)kRows * n * 2;
  std::vector<void *> W(kSets), X(kSets);
  for (int i = 0; i < kSets; ++i) {
    CK(cudaMalloc(&W[i], wbytes));
    CK(cudaMalloc(&X[i], xbytes));
    CK((cudaError_t)rl_fill_uniform_f16(W[i], wbytes / 2, 11 + i, -1.f, 1.f, st));
    CK((cudaError_t)rl_fill_uniform_f16(X[i], xbytes / 2, 101 + i, -1.f, 1.f, st));
  }
  void *bias, *C, *ws = nullptr;
  float *sink;
  CK(cudaMalloc(&bias, n * 2));
  CK(cudaMalloc(&C, xbytes));
  CK(cudaMalloc(&sink, std::max<size_t>(rl_read_sink_floats(), 4096) * sizeof(float)));
  CK((cudaError_t)rl_fill_uniform_f16(bias, n, 7, -1.f, 1.f, st));
  const size_t wsb = rl_gemv_workspace_bytes(14, 16, n, n);
  if (wsb) {
    CK(cudaMalloc(&ws, wsb));
    CK(cudaMemset(ws, 0, wsb));
  }
  auto ck = [](int e) { CK((cudaError_t)e); };
  const std::string nk = std::to_string(n) + "x" + std::to_string(n);
  const ProbeCase plain{"plain GEMM v18 64x" + nk,
                     [&](int s, cudaStream_t t) { ck(rl_hgemm(18, X[s], W[s], C, kRows, n, n, t)); }};
  const ProbeCase fused{"fused GEMM+GELU v20 64x" + nk, [&](int s, cudaStream_t t) {
                       ck(rl_gemm_bias_gelu(20, X[s], W[s], bias, C, kRows, n, n, 0, t));
                     }};
  auto gemv_rows = [&](int m) {
    return ProbeCase{"GEMV v14 " + std::to_string(m) + "x" + nk, [&, m](int s, cudaStream_t t) {
                    ck(rl_gemv(14, X[s], W[s], C, ws, m, n, n, t));
                  }};
  };
  const ProbeCase gemv = gemv_rows(1), gemv8 = gemv_rows(8), gemv16 = gemv_rows(16);
  const ProbeCase read{"read of W (" + std::to_string(wbytes >> 20) + " MB)",
                    [&](int s, cudaStream_t t) { ck(rl_read(W[s], wbytes, sink, t)); }};
  const ProbeCase empty{"empty kernel", [&](int, cudaStream_t t) { ck(rl_empty(t)); }};
  const ProbeCase flush{"icache_flush", [&](int, cudaStream_t t) {
                       icache_flush<<<4 * 132, 32, 0, t>>>(sink, 1.0f);
                       CK(cudaGetLastError());
                     }};
  const ProbeCase gelu{"bias+GELU 64x" + std::to_string(n), [&](int, cudaStream_t t) {
                      ck(rl_bias_gelu(C, bias, C, kRows, n, 0, t));
                    }};
  struct Pair {
    const ProbeCase *target, *pred;
  };
  std::vector<Pair> pairs;
  for (const ProbeCase *t : {&plain, &fused, &gemv, &gemv8, &gemv16, &read})
    for (const ProbeCase *p : {t, &empty, &flush, &read, &gelu, t == &plain ? &fused : &plain})
      if (!(t == &read && p == &read)) pairs.push_back({t, p});
  for (const Pair &p : pairs) {  // warm every path once
    p.pred->launch(0, st);
    p.target->launch(1, st);
  }
  CK(cudaStreamSynchronize(st));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> t(pairs.size());
  int set = 0;
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < pairs.size(); ++i) {
      pairs[i].pred->launch(set % kSets, st);
      CK(cudaStreamSynchronize(st));
      float ms = 0;
      CK(cudaEventRecord(e0, st));
      pairs[i].target->launch((set + 1) % kSets, st);
      CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      t[i].push_back(ms * 1000);
      set += 2;
    }
  }
  CK(cudaGetLastError());
  std::printf("%-34s %-34s %9s %9s %9s\n", "target", "after", "median us", "p10", "p90");
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::vector<float> v = t[i];
    std::sort(v.begin(), v.end());
    std::printf("%-34s %-34s %9.2f %9.2f %9.2f\n", pairs[i].target->name.c_str(),
                pairs[i].pred == pairs[i].target ? "itself" : pairs[i].pred->name.c_str(),
                v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]);
  }
  return 0;
}
