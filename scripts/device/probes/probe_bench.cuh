// The probes' timing harness (development only): each case is timed cold (its launches rotate
// over `sets` buffer sets) in a CUDA graph of 40 launches and in single launches between
// events, the cases interleaved round by round; medians, as GB moved per graph launch.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                   \
                   cudaGetErrorString(e_));                                            \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

// A plain grid-stride read of n16 16-byte words (one load per lane per step): the floor the
// probes compare with. The fold keeps the loads; the store never happens in practice.
__global__ void __launch_bounds__(256) probe_read(const uint4 *__restrict__ src, size_t n16,
                                                  float *sink) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i < n16; i += stride) {
    const uint4 v = src[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) sink[blockIdx.x] = 1.0f;
}

struct ProbeCase {
  std::string name;
  std::function<void(int set, cudaStream_t)> launch;
};

inline float probe_median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times every case and prints one line each: graph us, launch us, TB/s of `bytes` per launch.
inline void probe_run(const std::vector<ProbeCase> &cases, int sets, double bytes,
                      cudaStream_t s) {
  const int kGraph = 40, kRounds = 15, kSingles = 16;
  std::vector<cudaGraphExec_t> exec(cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    for (int i = 0; i < 3; ++i) cases[c].launch(i % sets, s);
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraph; ++i) cases[c].launch(i % sets, s);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&exec[c], g, 0));
    CK(cudaGraphDestroy(g));
  }
  CK(cudaStreamSynchronize(s));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<std::vector<float>> tg(cases.size()), tl(cases.size());
  int rot = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t c = 0; c < cases.size(); ++c) {
      float ms = 0;
      CK(cudaEventRecord(e0, s));
      CK(cudaGraphLaunch(exec[c], s));
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      tg[c].push_back(ms * 1000 / kGraph);
      for (int i = 0; i < kSingles; ++i) {
        CK(cudaEventRecord(e0, s));
        cases[c].launch(rot++ % sets, s);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        tl[c].push_back(ms * 1000);
      }
    }
  }
  CK(cudaGetLastError());
  std::printf("%-58s %9s %9s %9s\n", "kernel", "graph us", "launch us", "graph TB/s");
  for (size_t c = 0; c < cases.size(); ++c) {
    const float g = probe_median(tg[c]);
    std::printf("%-58s %9.2f %9.2f %9.2f\n", cases[c].name.c_str(), g, probe_median(tl[c]),
                bytes / (g * 1e-6) / 1e12);
  }
  for (auto e : exec) CK(cudaGraphExecDestroy(e));
}
