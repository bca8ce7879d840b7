// Development probe (not part of the product): GEMV v18 (gemv_slab_n32, 32-column slabs over
// all of K, 2..16 rows at N = K = 4096) at 16 rows, where it stays 1.08-1.09x the read (one
// launch) while 2..8 rows are within 5%. The XP runs (gemv_xp_parts.cu) put ~0.5 us of it on
// the walk (x's loads) and ~0.7 us (graph) on the end, which at 2 rows, moving almost nothing,
// still costs ~0.35 us: latency, not bandwidth. A copy of v18's loop (checked bitwise against
// rl_gemv v18) with:
//   END  0 none (each lane stores its own partial sums, racing: timing only); 1 v18's (the
//        warps' sums through red[], a second pass through part[] and a barrier, then the
//        store); 2 one pass: after the one barrier every thread sums one output over the 16
//        warps in v18's order and stores it (as a half2 with its neighbour's column, through
//        one shuffle): bitwise v18's y; 3 as 2 with the 16 sums added as a tree (4 levels of
//        independent adds instead of a chain of 16; run 1); 4 (run 2) one pass where lane l of
//        warp w sums entry w of lane l, its own warp's term from its registers (a sixteenth
//        less through shared memory): bitwise v18's y
//   ROT  1 v18's unit order; 2 / 4: CTA b starts its warps' unit sequences at b % ROT, so that
//        at any moment the CTAs read x from ROT different places of K instead of all the same
//        lines (every CTA reads all of x: 128 KB at 16 rows, from L2) (run 1)
//   OPT  (run 2) bit 1: W's loads with an L2 prefetch of their 256-byte block (.L2::256B; a
//        slab reads 64 bytes of each row, its neighbours the rest); bit 2: x's loads without
//        L1 allocation, as W's
// Run 1 (docs/results/h200/dev-2026-12-02/n32-end/run1.txt): END 2 0.1-0.3 us faster than
// v18's end, the tree slower than the chain, every ROT 1.3-1.6 us slower (the CTAs no longer
// read the same rows of W together). Run 2 (run2.txt): END 4 a little faster than END 2, the
// prefetch 0.1-0.2 us off the walk, x without L1 allocation 0.3-0.5 us slower (x's two 16-byte
// loads per lane share a sector). END 4 with the prefetch became GEMV v19. Run 3 (run3.txt,
// after v19): x in shared memory (n32mc below): 1 us slower than v19 with multicast, 3.8 us
// without.
// Usage: gemv_n32_end  (N = K = 4096, where v18 / v19 run on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// END 1 / 2 / 3 / 4 (see the header); 1 and 4 are the product's ends (v18's, v19's).
template <int MB, int END>
__device__ __forceinline__ void n32_end(const WaAcc (&wacc)[MB / 8], float (*red)[32][MB + 1],
                                        float *part, __half *y, int M, int N, int n0) {
  if constexpr (END == 4) {
    n32_end_own<MB>(wacc, red, y, M, N, n0);
  } else if constexpr (END == 1) {
    n32_end_parts<MB>(wacc, red, part, y, M, N, n0);
  } else {  // one output per thread (MB x 32 <= 512 threads), whole warps alike
    n32_red_store<MB>(wacc, red, M);
    const int e = threadIdx.x;
    if (e >= MB * 32) return;
    const int gg = e % 8, jj = e / 8 % 8, tt = e / 64 % 4, h = e / 256;
    const int m = 8 * h + 2 * tt + (jj & 1), col = 4 * gg + 2 * (jj / 4) + (jj % 4 >> 1);
    float v = 0.0f;
    if (m < M) {
      if constexpr (END == 2) {
#pragma unroll
        for (int w = 0; w < kSlabWarps; ++w) v += red[w][4 * gg + tt][h * 8 + jj];
      } else {
        float a[kSlabWarps];
#pragma unroll
        for (int w = 0; w < kSlabWarps; ++w) a[w] = red[w][4 * gg + tt][h * 8 + jj];
#pragma unroll
        for (int d = kSlabWarps / 2; d >= 1; d /= 2)
#pragma unroll
          for (int w = 0; w < d; ++w) a[w] += a[w + d];
        v = a[0];
      }
    }
    // Column col + 1 (jj ^ 2) is lane ^ 16's: the even column stores both.
    const float o = __shfl_xor_sync(0xffffffffu, v, 16);
    if (m < M && (jj & 2) == 0 && n0 + col < N)
      *reinterpret_cast<__half2 *>(y + (size_t)m * N + n0 + col) = __floats2half2_rn(v, o);
  }
}

template <int MB, int END, int ROT, int OPT = 0>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, UR = 64, LR = 16;
  __shared__ float red[kSlabWarps][32][MB + 1];
  __shared__ float part[END == 1 ? MB * 32 : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * 32;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / UR;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * UR * N;
  const __half *w0 = W + (size_t)(warp * UR + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp0[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r) xp0[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * UR + LR * t;
  int c = (ROT > 1 && cntu > 0) ? (int)(blockIdx.x % ROT) % cntu : 0;  // the unit in the sequence
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];
  uint4 xa[XR][2], xb[XR][2];
  const auto load_half = [&](uint2(&w)[2][4], int h2) {
    const size_t off = (size_t)c * step;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(8 * h2 + 4 * j) * N;
      const auto ld = [&](const __half *q) {
        return (OPT & 1) ? ldg_stream8_l2(q) : ldg_stream8(q);
      };
      w[j][0] = ld(w0 + o);
      w[j][1] = ld(w1 + o);
      w[j][2] = ld(w2 + o);
      w[j][3] = ld(w3 + o);
    }
  };
  const auto load_x = [&](uint4(&v)[XR][2]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      const __half *p = xp0[r] + (size_t)c * kSlabWarps * UR;
      if constexpr ((OPT & 2) != 0) {  // x without L1 allocation, as W
        v[r][0] = ldg_stream(p);
        v[r][1] = ldg_stream(p + 8);
      } else {
        v[r][0] = __ldg(reinterpret_cast<const uint4 *>(p));
        v[r][1] = __ldg(reinterpret_cast<const uint4 *>(p + 8));
      }
    }
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) {
    load_half(wb[0], 0);
    load_x(xa);
  }
  for (int u = 0; u < cntu; ++u) {
    load_half(wb[1], 1);
    n32_compute_half<XR>(wacc, wb[0], xa, 0);
    if (u + 1 < cntu) {
      c = c + 1 == cntu ? 0 : c + 1;
      load_half(wb[0], 0);
      load_x(xb);
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  if constexpr (END == 0) {  // every lane its own sums (racing stores): timing only
    float f[4] = {};
#pragma unroll
    for (int h = 0; h < XR; ++h)
#pragma unroll
      for (int j = 0; j < 8; ++j) f[j % 4] += wacc[h].v[j / 4][j % 4];
    uint2 v;
    v.x = pack_half2(__float2half_rn(f[0]), __float2half_rn(f[1]));
    v.y = pack_half2(__float2half_rn(f[2]), __float2half_rn(f[3]));
    if (t == 0) *reinterpret_cast<uint2 *>(y + (size_t)n) = v;
  } else {
    n32_end<MB, END>(wacc, red, part, y, M, N, n0);
  }
}

template <int MB, int END, int ROT, int OPT = 0>
void launch_n32(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  n32<MB, END, ROT, OPT><<<n / 32, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

// Run 3 (after v19): x in shared memory. MC false: each CTA copies all of x (its M rows x K,
// clamped rows past M) into shared memory by bulk copies, in 4 chunks of K on 4 mbarriers in
// the walk's order; MC true: (1, 2) clusters of neighbouring 32-column slabs, each rank copying
// half of the rows of every chunk with .multicast::cluster into both CTAs, so that each SM
// pulls half of x's bytes from L2 (v19's loads: every CTA pulls all 128 KB at 16 rows). The
// loop is v19's (the L2 prefetch on W, the own-entry end); the first x wait comes after both
// halves of the first unit's W are issued. Rows padded by 16 bytes: a lane's 16-byte x reads
// stay conflict-free. Bitwise v19's y.
constexpr int kMcChunks = 4;

template <int MB, bool MC>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32mc(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, UR = 64, LR = 16;
  extern __shared__ __align__(16) unsigned char mc_raw[];
  __half *xs = reinterpret_cast<__half *>(mc_raw);  // [MB][K + 8]
  __shared__ float red[kSlabWarps][32][MB + 1];
  __shared__ unsigned long long bar[kMcChunks];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = (MC ? 2 * blockIdx.x + blockIdx.y : blockIdx.x) * 32;
  const int rank = MC ? blockIdx.y : 0;
  const int xstride = K + 8, kc = K / kMcChunks;
  if (threadIdx.x == 0) {
    for (int c = 0; c < kMcChunks; ++c) mbar_init(&bar[c], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (MC) {
    cluster_arrive_relaxed();
    cluster_wait();
  } else {
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int r0 = MC ? rank * MB / 2 : 0, r1 = MC ? r0 + MB / 2 : MB;
    for (int c = 0; c < kMcChunks; ++c) {
      mbar_expect_tx(&bar[c], (unsigned)(MB * kc * 2));
      for (int r = r0; r < r1; ++r) {
        const __half *src = x + (size_t)min(r, M - 1) * K + (size_t)c * kc;
        __half *dst = xs + (size_t)r * xstride + (size_t)c * kc;
        if constexpr (MC)
          bulk_load_1d_mc(dst, src, (unsigned)kc * 2, &bar[c], (unsigned short)3);
        else
          bulk_load_1d(dst, src, (unsigned)kc * 2, &bar[c]);
      }
    }
  }
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / UR;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * UR * N;
  const __half *w0 = W + (size_t)(warp * UR + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];
  uint4 xa[XR][2], xb[XR][2];
  int c = 0;
  const auto load_half = [&](uint2(&w)[2][4], int h2) {
    const size_t off = (size_t)c * step;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(8 * h2 + 4 * j) * N;
      w[j][0] = ldg_stream8_l2(w0 + o);
      w[j][1] = ldg_stream8_l2(w1 + o);
      w[j][2] = ldg_stream8_l2(w2 + o);
      w[j][3] = ldg_stream8_l2(w3 + o);
    }
  };
  const auto load_x = [&](uint4(&v)[XR][2]) {
    const int k = (warp + kSlabWarps * c) * UR;
    mbar_wait(&bar[k / kc], 0);
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      const __half *p = xs + (size_t)(g + 8 * r) * xstride + k + LR * t;
      v[r][0] = *reinterpret_cast<const uint4 *>(p);
      v[r][1] = *reinterpret_cast<const uint4 *>(p + 8);
    }
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) load_half(wb[0], 0);
  for (int u = 0; u < cntu; ++u) {
    load_half(wb[1], 1);
    if (u == 0) load_x(xa);  // after both halves of the first unit are in flight
    n32_compute_half<XR>(wacc, wb[0], xa, 0);
    if (u + 1 < cntu) {
      ++c;
      load_half(wb[0], 0);
      load_x(xb);
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  // Warps with no unit still wait for every chunk: no CTA leaves while copies land in it.
  for (int k = 0; k < kMcChunks; ++k) mbar_wait(&bar[k], 0);
  if constexpr (MC) {  // nor while its copies may still be landing in the peer
    cluster_arrive_relaxed();
    cluster_wait();
  }
  n32_end_own<MB>(wacc, red, y, M, N, n0);
}

template <int MB, bool MC>
void launch_n32mc(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  const int smem = mc_smem<MB>(n);
  static const bool attr = cudaFuncSetAttribute(n32mc<MB, MC>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                smem) == cudaSuccess;
  if (!attr) {
    std::fprintf(stderr, "smem attribute refused\n");
    std::exit(1);
  }
  cudaLaunchAttribute a;
  const cudaLaunchConfig_t cfg =
      launch_config(MC ? dim3(n / 64, 2, 1) : dim3(n / 32, 1, 1), kSlabThreads, smem, MC ? 2 : 1,
                    st, &a);
  CK(cudaLaunchKernelEx(&cfg, n32mc<MB, MC>, x, W, y, M, n, n));
}

using Launch = void (*)(const __half *, const __half *, __half *, int, int, cudaStream_t);

// On random data at M = 2, 8, 13, 16: the x-in-smem kernels against rl_gemv v19 (bitwise),
// then every copy of v18's loop against rl_gemv v18: bitwise where the order of the sums is
// v18's (ROT 1; END 1, 2, 4), within fp16 rounding otherwise.
void check(const __half *x, const __half *W, int n) {
  __half *y0, *y1;
  const size_t count = (size_t)16 * n;
  CK(cudaMalloc(&y0, count * 2));
  CK(cudaMalloc(&y1, count * 2));
  struct Copy {
    const char *name;
    Launch l8, l16;
    bool bitwise;
  };
  const Copy copies[] = {
      {"END 1 ROT 1", launch_n32<8, 1, 1>, launch_n32<16, 1, 1>, true},
      {"END 2 ROT 1", launch_n32<8, 2, 1>, launch_n32<16, 2, 1>, true},
      {"END 4 ROT 1", launch_n32<8, 4, 1>, launch_n32<16, 4, 1>, true},
      {"END 2 OPT 1", launch_n32<8, 2, 1, 1>, launch_n32<16, 2, 1, 1>, true},
      {"END 2 OPT 2", launch_n32<8, 2, 1, 2>, launch_n32<16, 2, 1, 2>, true},
      {"END 3 ROT 1", launch_n32<8, 3, 1>, launch_n32<16, 3, 1>, false},
      {"END 1 ROT 4", launch_n32<8, 1, 4>, launch_n32<16, 1, 4>, false},
  };
  for (int M : {2, 8, 13, 16}) {  // run 3: x in shared memory, bitwise v19's y
    CK(cudaMemset(y0, 0xff, count * 2));
    CK((cudaError_t)rl_gemv(19, x, W, y0, nullptr, M, n, n, 0));
    CK(cudaDeviceSynchronize());
    for (bool mc : {false, true}) {
      CK(cudaMemset(y1, 0xff, count * 2));
      const Launch l = M <= 8 ? (mc ? launch_n32mc<8, true> : launch_n32mc<8, false>)
                              : (mc ? launch_n32mc<16, true> : launch_n32mc<16, false>);
      l(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      probe_require_equal(std::string(mc ? "x multicast" : "x in smem") +
                              " vs rl_gemv v19, M = " + std::to_string(M),
                          y0, y1, (size_t)M * n);
    }
  }
  for (int M : {2, 8, 13, 16}) {
    CK(cudaMemset(y0, 0xff, count * 2));
    CK((cudaError_t)rl_gemv(18, x, W, y0, nullptr, M, n, n, 0));
    CK(cudaDeviceSynchronize());
    for (const Copy &c : copies) {
      CK(cudaMemset(y1, 0xff, count * 2));
      (M <= 8 ? c.l8 : c.l16)(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      const std::string label = std::string(c.name) + " vs rl_gemv v18, M = " + std::to_string(M);
      if (c.bitwise)
        probe_require_equal(label, y0, y1, (size_t)M * n);
      else
        probe_require_close(label, y0, y1, (size_t)M * n, 2e-3);
    }
  }
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

}  // namespace

int main() {
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  check(buf.x[0], buf.W[0], n);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::vector<__half *> W = buf.W, x = buf.x;
  __half *y = buf.y;
  const size_t bytes = buf.bytes;
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, bytes / 1e6, buf.sets);
  for (int M : {16, 8}) {
    std::vector<ProbeCase> cases;
    cases.push_back(probe_read_case(W, bytes));
    cases.push_back({"product gemv v18, M=" + std::to_string(M), [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(18, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
#define N32(END, ROT, OPT, NAME)                                                           \
  cases.push_back({std::string(NAME) + ", M=" + std::to_string(M), [=](int i, cudaStream_t st) { \
                     (M <= 8 ? launch_n32<8, END, ROT, OPT>                                      \
                             : launch_n32<16, END, ROT, OPT>)(x[i], W[i], y, M, n, st);          \
                   }})
    // Run 1 (n32-end/run1.txt) also timed v18's end copy, the tree (END 3) and ROT 2 / 4:
    // the tree 0.3-0.5 us slower than END 2, every ROT 1.3-1.6 us slower than ROT 1. Run 2
    // (run2.txt) the ends 2 / 4 and OPT 1 / 2 (v19 = END 4 + OPT 1). Run 3: x in smem.
    cases.push_back({"product gemv v19, M=" + std::to_string(M), [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(19, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
    N32(0, 1, 1, "no end, W with L2::256B");
    cases.push_back({"x in smem (bulk copies), M=" + std::to_string(M),
                     [=](int i, cudaStream_t st) {
                       (M <= 8 ? launch_n32mc<8, false> : launch_n32mc<16, false>)(x[i], W[i], y, M,
                                                                                   n, st);
                     }});
    cases.push_back({"x multicast in (1, 2) clusters, M=" + std::to_string(M),
                     [=](int i, cudaStream_t st) {
                       (M <= 8 ? launch_n32mc<8, true> : launch_n32mc<16, true>)(x[i], W[i], y, M,
                                                                                 n, st);
                     }});
#undef N32
    for (int run = 0; run < 2; ++run) probe_run(cases, buf.sets, (double)bytes, s);
  }
  return 0;
}
