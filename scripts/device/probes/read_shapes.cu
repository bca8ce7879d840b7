// Development probe (not part of the product): what a streaming read of a GEMV's weights needs
// to reach the plain read's time. Times read kernels that differ in one thing at a time:
// - the grid: one 512-thread CTA on each of 132 SMs, or on 128 (the GEMV slabs' grid at
//   N = 8192 and at N = 4096 split 2 ways);
// - bytes in flight per SM: U 16-byte loads per lane per buffer, two buffers (as gemv_slab1);
// - the pattern: each CTA a contiguous range, or a 128-byte column strip of a row-major
//   matrix (the GEMV slab's walk: 8 lanes per row, 64 rows per pass);
// against the product's read (rl_read of cuda/copy.cu: 8 CTAs of 256 threads per SM,
// grid-stride, 4 loads per lane).
// One CTA per SM is forced with 120 KB of dynamic shared memory (unused).
// Timing: cold (launches rotate over buffer sets of > 2x L2 in all), a CUDA graph of 40
// launches (back to back) and single launches between events; medians.
// Built by scripts/device/probes/build.sh; run by scripts/device/read-shapes.sh.
#include "kernels.h"
#include "probe_bench.cuh"

namespace {

constexpr int kThreads = 512, kPadSmem = 120 * 1024;

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

__device__ __forceinline__ uint4 ldg_stream(const uint4 *p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ void sink_out(unsigned acc, float *sink) {
  if (acc == 0x12345678u) sink[blockIdx.x] = 1.0f;  // keeps the loads; never true in practice
}

// Contiguous: CTA b reads [b * chunk, (b + 1) * chunk) uint4s, two buffers of U per lane.
template <int U>
__global__ void __launch_bounds__(kThreads, 1)
    read_contig(const uint4 *__restrict__ src, size_t n16, float *sink) {
  const size_t chunk = (n16 + gridDim.x - 1) / gridDim.x;
  const size_t b0 = blockIdx.x * chunk, b1 = min(n16, b0 + chunk);
  const size_t step = (size_t)U * kThreads;
  unsigned acc = 0;
  uint4 a[U], b[U];
  auto load = [&](uint4(&w)[U], size_t i0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const size_t i = i0 + (size_t)u * kThreads + threadIdx.x;
      w[u] = i < b1 ? ldg_stream(src + i) : make_uint4(0, 0, 0, 0);
    }
  };
  auto use = [&](const uint4(&w)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= fold(w[u]);
  };
  size_t i = b0;
  load(a, i);
  for (; i < b1; i += 2 * step) {
    load(b, i + step);
    use(a);
    load(a, i + 2 * step);
    use(b);
  }
  sink_out(acc, sink);
}

// Slab: the matrix is rows x cols16 uint4s; CTA (s, k) reads 8 uint4 columns (128 B) of
// strip s over its K share of the rows: lane (c, r) = (tid % 8, tid / 8) reads rows r, r + 64...
template <int U>
__global__ void __launch_bounds__(kThreads, 1)
    read_slab(const uint4 *__restrict__ src, int rows, int cols16, int splits, float *sink) {
  const int strip = blockIdx.x / splits, part = blockIdx.x % splits;
  const int r0 = (int)((long long)rows * part / splits), r1 = (int)((long long)rows * (part + 1) / splits);
  const int c = threadIdx.x % 8, r = threadIdx.x / 8;
  const uint4 *base = src + strip * 8 + c;
  unsigned acc = 0;
  uint4 a[U], b[U];
  auto load = [&](uint4(&w)[U], int k0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + u * 64;
      w[u] = k < r1 ? ldg_stream(base + (size_t)k * cols16) : make_uint4(0, 0, 0, 0);
    }
  };
  auto use = [&](const uint4(&w)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= fold(w[u]);
  };
  int k0 = r0 + r;
  load(a, k0);
  for (; k0 < r1; k0 += 2 * U * 64) {
    load(b, k0 + U * 64);
    use(a);
    load(a, k0 + 2 * U * 64);
    use(b);
  }
  sink_out(acc, sink);
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;  // a n x n fp16 matrix
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = (size_t)n * n * 2, n16 = bytes / 16;
  const int sets = (int)std::max<size_t>(2, (size_t)(3 * 60 * 1024 * 1024) / bytes + 1);
  std::vector<uint4 *> buf(sets);
  for (auto &b : buf) {
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(b, 1, bytes));
  }
  float *sink;
  CK(cudaMalloc(&sink, rl_read_sink_floats() * sizeof(float)));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  const int cols16 = n * 2 / 16, strips = cols16 / 8;
  const int split = strips >= sms / 2 + 1 ? 1 : 2;  // as the GEMV: 128 CTAs at 4096 and 8192
  std::vector<ProbeCase> cases;
  cases.push_back({"read_once (product): 8x256 thr/SM, grid-stride",
                   [=](int i, cudaStream_t st) {
                     CK((cudaError_t)rl_read(buf[i], n16 * 16, sink, st));
                   }});
#define CONTIG(U, G)                                                                      \
  CK(cudaFuncSetAttribute(read_contig<U>, cudaFuncAttributeMaxDynamicSharedMemorySize,    \
                          kPadSmem));                                                     \
  cases.push_back({"contig " + std::to_string(G) + " CTAs, 2x" #U " loads/lane (" +       \
                       std::to_string(2 * U * 16 * kThreads / 1024) + " KB/SM max)",      \
                   [=](int i, cudaStream_t st) {                                          \
                     read_contig<U><<<G, kThreads, kPadSmem, st>>>(buf[i], n16, sink);    \
                   }});
#define SLAB(U)                                                                           \
  CK(cudaFuncSetAttribute(read_slab<U>, cudaFuncAttributeMaxDynamicSharedMemorySize,      \
                          kPadSmem));                                                     \
  cases.push_back({"slab " + std::to_string(strips * split) + " CTAs (split " +           \
                       std::to_string(split) + "), 2x" #U " loads/lane",                  \
                   [=](int i, cudaStream_t st) {                                          \
                     read_slab<U><<<strips * split, kThreads, kPadSmem, st>>>(            \
                         buf[i], n, cols16, split, sink);                                 \
                   }});
  const int g128 = strips * split;
  CONTIG(4, sms) CONTIG(8, sms) CONTIG(4, g128) CONTIG(8, g128) CONTIG(12, g128)
  SLAB(2) SLAB(4) SLAB(8) SLAB(12)

  std::printf("%dx%d fp16 (%.0f MB), %d sets, %d SMs\n", n, n, bytes / 1e6, sets, sms);
  probe_run(cases, sets, (double)bytes, s);
  return 0;
}
