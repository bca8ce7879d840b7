// Development probe (not part of the product): where the one-row slab's time over the read of
// W goes at N = K = 4096 (GEMV v15's kernel for M = 1 before XFAST: 64-column slabs in (1, 2)
// clusters, the sums exchanged by st.async). A copy of gemv_slab1 with its parts switched off
// or changed one at a time (wrong results where parts are off: timing only), timed cold in
// graph and one launch, interleaved (probe_bench.cuh), beside the product's kernel and its
// read. The copy computes the product's sums bitwise (checked first) but does not time as the
// product: its parts are the copy's (XMODE 5 alone, 0.6 us faster here, was 0.06-0.3 us slower
// built into the product, C5; with PROD's bits the copy found the combination the product now
// runs, XMODE 5 without the column guard: gemv_slab1's XFAST, D3).
//   STAGEX  x staged in shared memory behind a barrier (off: x taken as 1.0)
//   FMA     the 8 FMAs per W element (off: the W bits folded by XOR, as the read does)
//   REDUCE  the 16-warp reduction, the cluster exchange and the store (off: each lane stores
//           its own partial sums, racing with the others)
//   EARLY   the second W buffer issued before x is staged (the first iteration peeled, the
//           loop's order kept; on: a candidate, not the product)
//   XMODE   where a buffer's x values come from (candidates besides 0, the product): 0 read
//           from shared memory as they are multiplied; 1 read from shared memory into
//           registers when the buffer's W loads are issued; 2 loaded from global memory then
//           (no staging, no barrier); 3 staged behind the barrier but taken as 1.0 (the start's
//           cost alone); 4 read from shared memory as multiplied, never staged (uninitialized
//           values, no barrier: the loop's cost alone); 5 as 0, with the staging's global
//           loads issued before the first W loads (their stores to shared memory after them)
//   PROD    the product's differences put back (bits): 1 the lanes' column guard on W's
//           loads, 2 the epilogue as a kernel parameter (prefetch at the start, applied at
//           the store) instead of a constant the compiler folds away
// Usage: gemv_slab1_parts [N]  (N = K, default 4096)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

template <bool STAGEX, bool FMA, bool REDUCE, bool EARLY, int XMODE = 0, int PROD = 0>
__global__ void __launch_bounds__(kSlabThreads, 1)
    slab1_parts(const __half *x, const __half *W, __half *y, int N, int K, SlabEpi pepi) {
  const SlabEpi epi = PROD & 2 ? pepi : SlabEpi{nullptr, -1};
  constexpr int LPR = kSlabLanesPerRow, COLS = LPR * 8, RPP = kSlabThreads / LPR, U = kSlabU;
  extern __shared__ __align__(16) unsigned char slab_smem[];
  __half *xs = reinterpret_cast<__half *>(slab_smem);
  __shared__ float red[kSlabWarps][COLS];
  __shared__ float part[COLS];
  __shared__ float recv[COLS / 2];
  if constexpr (REDUCE) slab_cluster_start<2, slab_recv_bytes(1)>();
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int c = tid % LPR, r = tid / LPR;
  const int n = blockIdx.x * COLS + c * 8;
  const int S = gridDim.y, rank = blockIdx.y;
  const int kb = slab1_split_begin(K, S, rank), ke = slab1_split_begin(K, S, rank + 1);
  float acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) acc[i] = 0.f;
  uint4 wa[U], wb[U];
  float xa[U], xb[U];  // XMODE 1, 2: the buffer's x values
  auto load = [&](uint4(&w)[U], float(&xr)[U], int k0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + u * RPP;
      const bool ok = PROD & 1 ? k < ke && n < N : k < ke;
      w[u] = ok ? ldg_stream(W + (size_t)k * N + n) : make_uint4(0, 0, 0, 0);
      if constexpr (XMODE == 2) xr[u] = k < ke ? __half2float(__ldg(x + k)) : 0.f;
    }
  };
  auto xload = [&](float(&xr)[U], int k0) {  // XMODE 1, after the barrier that publishes xs
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = k0 + u * RPP;
      xr[u] = k < ke ? __half2float(xs[k - kb]) : 0.f;
    }
  };
  auto fma = [&](const uint4(&w)[U], const float(&xr)[U], int k0) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if constexpr (FMA) {
        const int k = k0 + u * RPP;
        float xv = STAGEX ? (k < ke ? __half2float(xs[k - kb]) : 0.f) : 1.0f;
        if constexpr (XMODE == 1 || XMODE == 2) xv = xr[u];
        if constexpr (XMODE == 3) xv = 1.0f;
        const __half2 *h = reinterpret_cast<const __half2 *>(&w[u]);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float2 f = __half22float2(h[j]);
          acc[2 * j] = fmaf(xv, f.x, acc[2 * j]);
          acc[2 * j + 1] = fmaf(xv, f.y, acc[2 * j + 1]);
        }
      } else {
        acc[u] = __uint_as_float(__float_as_uint(acc[u]) ^ w[u].x ^ w[u].y ^ w[u].z ^ w[u].w);
      }
    }
  };
  int k0 = kb + r;
  uint4 xfirst = make_uint4(0, 0, 0, 0);  // XMODE 5: this thread's first 16 bytes of x
  const int nx = (ke - kb) / 8;
  if constexpr (XMODE == 5)
    if (tid < nx) xfirst = __ldg(reinterpret_cast<const uint4 *>(x + kb) + tid);
  load(wa, xa, k0);
  if constexpr (PROD & 2) epi.prefetch(blockIdx.x * COLS, N);
  if constexpr (EARLY) load(wb, xb, k0 + U * RPP);
  if constexpr (XMODE == 5) {
    if (tid < nx) reinterpret_cast<uint4 *>(xs)[tid] = xfirst;
    for (int i = tid + kSlabThreads; i < nx; i += kSlabThreads)
      reinterpret_cast<uint4 *>(xs)[i] = __ldg(reinterpret_cast<const uint4 *>(x + kb) + i);
    __syncthreads();
  } else if constexpr (STAGEX && XMODE != 2 && XMODE != 4) {
    for (int i = tid; i < (ke - kb) / 8; i += kSlabThreads)
      reinterpret_cast<uint4 *>(xs)[i] = __ldg(reinterpret_cast<const uint4 *>(x + kb) + i);
    __syncthreads();
  }
  if constexpr (XMODE == 1) xload(xa, k0);
  if constexpr (EARLY) {  // the first iteration, its second buffer already issued
    if (k0 < ke) {
      if constexpr (XMODE == 1) xload(xb, k0 + U * RPP);
      fma(wa, xa, k0);
      load(wa, xa, k0 + 2 * U * RPP);
      if constexpr (XMODE == 1) xload(xa, k0 + 2 * U * RPP);
      fma(wb, xb, k0 + U * RPP);
      k0 += 2 * U * RPP;
    }
  }
  for (; k0 < ke; k0 += 2 * U * RPP) {
    load(wb, xb, k0 + U * RPP);
    if constexpr (XMODE == 1) xload(xb, k0 + U * RPP);
    fma(wa, xa, k0);
    load(wa, xa, k0 + 2 * U * RPP);
    if constexpr (XMODE == 1) xload(xa, k0 + 2 * U * RPP);
    fma(wb, xb, k0 + U * RPP);
  }
  if constexpr (!REDUCE) {
    if (n < N) {  // every lane with its own partial sums: wrong, timing only
      float4 *o = reinterpret_cast<float4 *>(y + (size_t)n);
      uint4 v;
      v.x = pack_half2(__float2half_rn(acc[0]), __float2half_rn(acc[1]));
      v.y = pack_half2(__float2half_rn(acc[2]), __float2half_rn(acc[3]));
      v.z = pack_half2(__float2half_rn(acc[4]), __float2half_rn(acc[5]));
      v.w = pack_half2(__float2half_rn(acc[6]), __float2half_rn(acc[7]));
      if (r == 0) *reinterpret_cast<uint4 *>(o) = v;
    }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float v = acc[i];
#pragma unroll
      for (int o = LPR; o < 32; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
      if (lane < LPR) red[warp][c * 8 + i] = v;
    }
    __syncthreads();
    for (int e = tid; e < COLS; e += kSlabThreads) {
      float v = 0.f;
#pragma unroll
      for (int w = 0; w < kSlabWarps; ++w) v += red[w][e];
      part[e] = v;
    }
    slab_store_tile<1, true, kSlabThreads, 2>(part, y, 1, N, blockIdx.x * COLS,
                                              epi, recv);
  }
}

template <bool STAGEX, bool FMA, bool REDUCE, bool EARLY, int XMODE = 0, int PROD = 0>
void launch_parts(const __half *x, const __half *W, __half *y, int n, cudaStream_t st) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      launch_config(dim3(n / 64, 2, 1), kSlabThreads, slab1_smem(n, 2), 2, st, &attr);
  CK(cudaLaunchKernelEx(&cfg, slab1_parts<STAGEX, FMA, REDUCE, EARLY, XMODE, PROD>, x, W, y, n,
                        n, kSlabNoEpi));
}

// The product kernel (PUSH 2) vs the probe's full copy on random data: y must be bitwise equal.
void check(const __half *x, const __half *W, int n) {
  __half *y0, *y1;
  CK(cudaMalloc(&y0, (size_t)n * 2));
  CK(cudaMalloc(&y1, (size_t)n * 2));
  CK(cudaMemset(y0, 0xff, (size_t)n * 2));
  CK(cudaMemset(y1, 0xff, (size_t)n * 2));
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      launch_config(dim3(n / 64, 2, 1), kSlabThreads, slab1_smem(n, 2), 2, 0, &attr);
  CK(cudaLaunchKernelEx(&cfg, gemv_slab1<true, 2>, x, W, y0, n, n, kSlabNoEpi));
  for (int xm = 0; xm < 5; ++xm) {
    CK(cudaMemset(y1, 0xff, (size_t)n * 2));
    if (xm == 0) launch_parts<true, true, true, false, 0>(x, W, y1, n, 0);
    if (xm == 1) launch_parts<true, true, true, false, 1>(x, W, y1, n, 0);
    if (xm == 2) launch_parts<true, true, true, false, 2>(x, W, y1, n, 0);
    if (xm == 3) launch_parts<true, true, true, false, 5>(x, W, y1, n, 0);
    if (xm == 4) launch_parts<true, true, true, true, 5>(x, W, y1, n, 0);
    CK(cudaDeviceSynchronize());
    probe_require_equal("the probe's copy (candidate " + std::to_string(xm) +
                            ") vs the product's kernel as first written",
                        y0, y1, (size_t)n);
  }
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  check(buf.x[0], buf.W[0], n);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::vector<__half *> W = buf.W, x = buf.x;
  __half *y = buf.y;
  const size_t bytes = buf.bytes;
  std::vector<ProbeCase> cases;
  cases.push_back(probe_read_case(W, bytes));
  cases.push_back({"product gemv v15, M=1", [=](int i, cudaStream_t st) {
                     CK((cudaError_t)rl_gemv(15, x[i], W[i], y, nullptr, 1, n, n, st));
                   }});
#define PARTS(SX, F, R, E, XM, NAME)                                         \
  cases.push_back({NAME, [=](int i, cudaStream_t st) {                       \
                     launch_parts<SX, F, R, E, XM>(x[i], W[i], y, n, st);    \
                   }})
  PARTS(true, true, true, false, 0, "copy: all parts (the product's sums)");
  PARTS(false, true, true, false, 0, "copy: no x staging");
  PARTS(true, false, true, false, 0, "copy: no FMAs (XOR fold)");
  PARTS(true, true, false, false, 0, "copy: no reduction / exchange");
  PARTS(false, false, false, false, 0, "copy: bare walk (none of the three)");
  PARTS(true, true, true, true, 0, "copy: all parts, second buffer early");
  PARTS(true, true, true, false, 1, "copy: x from smem at issue (XMODE 1)");
  PARTS(true, true, true, false, 2, "copy: x from global at issue (XMODE 2)");
  PARTS(true, true, true, true, 1, "copy: XMODE 1, second buffer early");
  PARTS(true, true, true, false, 3, "copy: x staged, taken as 1.0 (XMODE 3)");
  PARTS(true, true, true, false, 4, "copy: x read, never staged (XMODE 4)");
  PARTS(true, true, true, false, 5, "copy: x's loads first (XMODE 5)");
  PARTS(true, true, true, true, 5, "copy: x's loads first, second buffer early");
#define PRODUCT(XM, P, NAME)                                                 \
  cases.push_back({NAME, [=](int i, cudaStream_t st) {                       \
                     launch_parts<true, true, true, false, XM, P>(x[i], W[i], y, n, st); \
                   }})
  PRODUCT(0, 1, "copy + column guard");
  PRODUCT(0, 2, "copy + epilogue parameter");
  PRODUCT(0, 3, "copy + both (the product's code)");
  PRODUCT(5, 1, "x first + column guard");
  PRODUCT(5, 2, "x first + epilogue parameter");
  PRODUCT(5, 3, "x first + both (the product's XFIRST of C5)");
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, bytes / 1e6, buf.sets);
  for (int run = 0; run < 2; ++run) probe_run(cases, buf.sets, (double)bytes, s);
  return 0;
}
