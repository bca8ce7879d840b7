// Development probe (not part of the product): where the time of GEMV v17's unit loop (XP)
// over the read of W goes at N = K = 4096, where it runs in (1, 2) clusters whose ranks send
// their sums by st.async (2..16 rows: 1.053-1.092x the read in report R, one launch, against
// 1.033 for the one-row slab). A copy of gemv_slab_v10's XP path (MB 8: 2..8 rows, MB 16:
// 9..16 rows) with its parts switched off or changed one at a time (wrong results where parts
// are off: timing only), timed cold in graph and one launch, interleaved (probe_bench.cuh),
// beside the product's kernels (rl_gemv v17) and its read. The copy is first checked to give
// the product's y bitwise; as gemv_slab1_parts.cu found, a copy's decomposition holds for the
// product only where the copy times as the product does, so that line comes first.
//   MMA  the MMAs (off: the W and x words folded into the accumulators by XOR)
//   XL   x's loads, one 16-byte load per half of the rows per unit (off: a constant x)
//   RED  the end: 0 none (each lane stores its own partial sums, racing: timing only); 1 the
//        product's (all warps' sums through shared memory, half of them sent to the peer by
//        st.async, the store); 2 a candidate: only the rows below M written, summed and sent
//        (the product does all 8 or 16 rows whatever M is; at M = 2 a quarter of the work);
//        then the end in pieces (timing only; the first run found the end to be the gap):
//        3 RED 0 plus the cluster start and its wait (the start's cost); 4 the reduction
//        through shared memory and each rank's store of its half of its own sums (no cluster
//        start, no exchange); 5 the start, the exchange and the store of warp 0's sums alone
//        (the reduction skipped, the other warps' sums kept live); candidates for the
//        exchange (the second run: the start, exchange and store ~0.65 us at 8 rows, ~1.1
//        at 16): 6 the product's end with the exchange as st.async.v4 (a quarter of the
//        transfers); 7 as one cp.async.bulk of the peer's half by one thread;
//        8 (9..16 rows, MB 8; after report S) no K split: CTA (b, r) takes rows 8r .. 8r + 7
//        of x over all of K, no cluster, each W byte read by both CTAs of a slab (the second
//        from L2 at best): no exchange, no x read twice per CTA, the 8-row end
// Another loop, 32-column slabs over all of K without a cluster (xp32: no exchange, half the
// sums per lane; it became GEMV v18), was timed here through XP8; its copy now lives in
// gemv_n32_end.cu (n32 with END 0 / 1, ROT 1, OPT 0), in 2640307's form here. The pieces
// 3 / 4 / 5 and the bulk copy were timed in earlier
// runs, and so was a kernel of 8 warps walking units of 64 rows (half the sums to reduce; the
// walk 0.55 us slower; in cb2e562), since taken out (docs/results/h200/dev-2026-12-01/xp-parts/).
// The kernels of xp6 and xp7 (after v18: v18's loads alone, 16-byte loads traded in lane
// pairs, whole x sectors per load, two other ends) are in 37fe761's probe, since taken out.
// After report S (xp8): RED 8 at 16 rows, the only timed list now (xp32's line: gemv_n32_end).
// Usage: gemv_xp_parts [N]  (N = K, default 4096: the cluster form, as the product runs it)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// RED 2's sum: as wa_warps_to_part, over the rows below M only. Entry e maps to (t, jj, g)
// with g fastest, so that a warp's 32 reads of red[w][4g + t][16h + jj] hit 32 banks.
template <int H>
__device__ __forceinline__ void wa_warps_to_part_rows(const WaAcc (&acc)[H],
                                                      float (*red)[32][16 * H + 1],
                                                      float *part, int M) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, t = lane & 3;
#pragma unroll
  for (int h = 0; h < H; ++h)
    if (8 * h + 2 * t < M)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) red[warp][lane][h * 16 + i * 4 + q] = acc[h].v[i][q];
  __syncthreads();
#pragma unroll
  for (int h = 0; h < H; ++h) {
    const int T = min(4, max(0, (M - 8 * h + 1) / 2));  // lanes t < T hold rows below M
    for (int e = threadIdx.x; e < T * 128; e += kSlabThreads) {
      const int g = e % 8, jj = e / 8 % 16, tt = e / 128, l = 4 * g + tt;
      float v = 0.0f;
#pragma unroll
      for (int w = 0; w < kSlabWarps; ++w) v += red[w][l][h * 16 + jj];
      const int i = jj / 4, q = jj % 4;
      const int m = 8 * h + 2 * tt + (q & 1), col = 8 * g + 2 * i + (q >> 1);
      part[m * kTileN + col] = v;
    }
  }
}

// RED 2's exchange and store: slab_store_tile's PUSH 2 branch over the rows below M only.
template <int MB>
__device__ __forceinline__ void store_rows(const float *part, __half *y, int M, int N, int n0,
                                           float *recv) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int EL = MB * kTileN;
  cluster_wait();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = (int)cluster.block_rank(), peer = rank ^ 1;
  __syncthreads();
  const int lim = M * kTileN;  // entries below row M
  const int plo = peer * EL / 2, phi = min((peer + 1) * EL / 2, lim);
  unsigned long long *bar = slab_recv_bar();
  const unsigned peer_recv = cluster_map(smem_addr(recv), peer);
  const unsigned peer_bar = cluster_map(smem_addr(bar), peer);
  // The barrier expects EL / 2 floats (slab_cluster_start): entries past row M are sent as
  // zeros rather than summed, so the byte count stays the product's.
  for (int e = plo + threadIdx.x; e < (peer + 1) * EL / 2; e += kSlabThreads)
    st_async_f32(peer_recv + 4 * (e - plo), e < phi ? part[e] : 0.0f, peer_bar);
  mbar_wait_cluster(bar, 0);
  const int lo = rank * EL / 2, hi = min((rank + 1) * EL / 2, lim);
  for (int e = lo + threadIdx.x; e < hi; e += kSlabThreads) {
    const int m = e / kTileN, col = n0 + e % kTileN;
    if (col < N) y[(size_t)m * N + col] = __float2half_rn(part[e] + recv[e - lo]);
  }
#else
  __trap();  // sm_90 only, as the product's cluster kernels
#endif
}

// RED 6 / 7's exchange and store: slab_store_tile's PUSH 2 branch with the peer's half of
// part[] sent as 16-byte st.async (BULK false) or as one bulk copy (BULK true).
template <int MB, bool BULK, int THREADS = kSlabThreads>
__device__ __forceinline__ void store_vec(const float *part, __half *y, int M, int N, int n0,
                                          float *recv) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int EL = MB * kTileN;
  cluster_wait();
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = (int)cluster.block_rank(), peer = rank ^ 1;
  __syncthreads();
  const int plo = peer * EL / 2;
  unsigned long long *bar = slab_recv_bar();
  const unsigned peer_recv = cluster_map(smem_addr(recv), peer);
  const unsigned peer_bar = cluster_map(smem_addr(bar), peer);
  if constexpr (BULK) {
    if (threadIdx.x == 0) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // part[] for the copy
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], "
          "%2, [%3];" ::"r"(peer_recv),
          "r"(smem_addr(part + plo)), "r"(EL / 2 * 4), "r"(peer_bar)
          : "memory");
    }
  } else {
    for (int e = threadIdx.x; e < EL / 8; e += THREADS) {
      const float4 v = reinterpret_cast<const float4 *>(part + plo)[e];
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, "
          "[%5];" ::"r"(peer_recv + 16 * e),
          "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)),
          "r"(__float_as_uint(v.w)), "r"(peer_bar)
          : "memory");
    }
  }
  mbar_wait_cluster(bar, 0);
  // This CTA's bulk copy reads its part[] until the peer's barrier completes: the peer arrives
  // after its wait, and this CTA waits for that before it exits (at the end, behind the
  // store). st.async reads registers: nothing to wait for.
  if constexpr (BULK) cluster_arrive_relaxed();
  const int lo = rank * EL / 2, hi = (rank + 1) * EL / 2;
  for (int e = lo + threadIdx.x; e < hi; e += THREADS) {
    const int m = e / kTileN, col = n0 + e % kTileN;
    if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(part[e] + recv[e - lo]);
  }
  if constexpr (BULK) cluster_wait();
#else
  __trap();
#endif
}

template <int MB, bool MMA, bool XL, int RED>
__global__ void __launch_bounds__(kSlabThreads, 1)
    xp_parts(const __half *x, const __half *W, __half *y, int M, int N, int K, SlabEpi epi) {
  constexpr int XR = MB / 8, JS = 8 * (MB / 4), UR = 32, LR = 8;
  extern __shared__ __align__(16) unsigned char slab_smem[];
  float(*red)[32][JS + 1] = reinterpret_cast<float(*)[32][JS + 1]>(slab_smem);
  float *part = reinterpret_cast<float *>(slab_smem) + kSlabWarps * 32 * (JS + 1);
  if constexpr (RED != 0 && RED != 4 && RED != 8)
    slab_cluster_start<2, slab_recv_bytes(MB)>();
  if constexpr (RED == 8) {  // rows 8y .. 8y + 7 of x over all of K (no cluster)
    x += (size_t)8 * blockIdx.y * K;
    y += (size_t)8 * blockIdx.y * N;
    M = min(8, M - 8 * (int)blockIdx.y);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kTileN;
  const int n = min(n0 + g * 8, N - 8);
  const int units = K / UR, S = RED == 8 ? 1 : gridDim.y, rank = RED == 8 ? 0 : blockIdx.y;
  const int ga = slab_split(units, S, rank), gb = slab_split(units, S, rank + 1);
  const int first = ga + warp;
  const int cntu = first < gb ? (gb - first + kSlabWarps - 1) / kSlabWarps : 0;
  const int cnt = 2 * cntu;
  const size_t step = (size_t)kSlabWarps * UR * N;
  const __half *w0 = W + (size_t)(first * UR + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r) xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + first * UR + LR * t;
  epi.prefetch(n0, N);  // a parameter, as in the product (a folded constant times differently)
  WaAcc wacc[XR] = {};
  uint4 wb[2][4];
  uint2 ab[2][2];
  const auto load_w = [&](uint4(&w)[4], size_t adv) {
    w[0] = ldg_stream(w0);
    w[1] = ldg_stream(w1);
    w[2] = ldg_stream(w2);
    w[3] = ldg_stream(w3);
    w0 += adv;
    w1 += adv;
    w2 += adv;
    w3 += adv;
  };
  const auto compute = [&](const uint4(&w)[4], const uint2(&a)[2]) {
    if constexpr (MMA) {
#pragma unroll
      for (int h = 0; h < XR; ++h) wa_group_compute(wacc[h], w, a[h]);
    } else {
#pragma unroll
      for (int h = 0; h < XR; ++h)
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // every word of W and x kept live
          const unsigned f = w[i].x ^ w[i].y ^ w[i].z ^ w[i].w ^ a[h].x ^ a[h].y;
          wacc[h].v[i][0] = __uint_as_float(__float_as_uint(wacc[h].v[i][0]) ^ f);
        }
    }
  };
  const size_t adv_a = (size_t)4 * N, adv_b = step - adv_a;
  uint4 xa[XR], xb[XR];
  const auto load_x = [&](uint4(&v)[XR]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      if constexpr (XL) {
        v[r] = __ldg(reinterpret_cast<const uint4 *>(xp[r]));
      } else {
        const unsigned c = 0x3c003c00u + (unsigned)(xp[r] - x);  // a per-unit constant
        v[r] = make_uint4(c, c, c, c);
      }
      xp[r] += kSlabWarps * UR;
    }
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r] = xb[r] = make_uint4(0, 0, 0, 0);
  if (cnt > 0) {
    load_w(wb[0], adv_a);
    load_x(xa);
  }
  for (int i = 0; i < cnt; i += 2) {
    load_w(wb[1], adv_b);
#pragma unroll
    for (int r = 0; r < XR; ++r) ab[0][r] = make_uint2(xa[r].x, xa[r].y);
    compute(wb[0], ab[0]);
    if (i + 2 < cnt) {
      load_w(wb[0], adv_a);
      load_x(xb);
    }
#pragma unroll
    for (int r = 0; r < XR; ++r) ab[1][r] = make_uint2(xa[r].z, xa[r].w);
    compute(wb[1], ab[1]);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r] = xb[r];
  }
  if constexpr (RED == 0 || RED == 3) {  // every lane its own sums (all folded): timing only
    float f[8] = {};
#pragma unroll
    for (int h = 0; h < XR; ++h)
#pragma unroll
      for (int j = 0; j < 16; ++j) f[j % 8] += wacc[h].v[j / 4][j % 4];
    uint4 v;
    v.x = pack_half2(__float2half_rn(f[0]), __float2half_rn(f[1]));
    v.y = pack_half2(__float2half_rn(f[2]), __float2half_rn(f[3]));
    v.z = pack_half2(__float2half_rn(f[4]), __float2half_rn(f[5]));
    v.w = pack_half2(__float2half_rn(f[6]), __float2half_rn(f[7]));
    if (t == 0 && rank == 0) *reinterpret_cast<uint4 *>(y + (size_t)n) = v;
    if constexpr (RED == 3) cluster_wait();
  } else if constexpr (RED == 4) {
    wa_warps_to_part<kSlabWarps, kSlabThreads, XR>(wacc, red, part);
    __syncthreads();
    constexpr int EL = MB * kTileN;
    for (int e = rank * EL / 2 + threadIdx.x; e < (rank + 1) * EL / 2; e += kSlabThreads) {
      const int m = e / kTileN, col = n0 + e % kTileN;
      if (m < M && col < N) y[(size_t)m * N + col] = __float2half_rn(part[e]);
    }
  } else if constexpr (RED == 5) {
    float f = 0.0f;
#pragma unroll
    for (int h = 0; h < XR; ++h)
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const float v = wacc[h].v[j / 4][j % 4];
        f += v;
        if (warp == 0) {
          const int i = j / 4, q = j % 4;
          part[(8 * h + 2 * t + (q & 1)) * kTileN + 8 * g + 2 * i + (q >> 1)] = v;
        }
      }
    if (__float_as_uint(f) == 0x7fbfffffu) part[threadIdx.x] = f;  // keeps every warp's MMAs
    slab_store_tile<MB, true, kSlabThreads, 2>(part, y, M, N, n0, epi, part + MB * kTileN);
  } else if constexpr (RED == 8) {
    wa_warps_to_part<kSlabWarps, kSlabThreads, XR>(wacc, red, part);
    slab_store_tile<MB, false>(part, y, M, N, n0, epi);
  } else if constexpr (RED == 6 || RED == 7) {
    wa_warps_to_part<kSlabWarps, kSlabThreads, XR>(wacc, red, part);
    store_vec<MB, RED == 7>(part, y, M, N, n0, part + MB * kTileN);
  } else if constexpr (RED == 1) {
    wa_warps_to_part<kSlabWarps, kSlabThreads, XR>(wacc, red, part);
    slab_store_tile<MB, true, kSlabThreads, 2>(part, y, M, N, n0, epi, part + MB * kTileN);
  } else {
    wa_warps_to_part_rows<XR>(wacc, red, part, M);
    store_rows<MB>(part, y, M, N, n0, part + MB * kTileN);
  }
}

template <int MB, bool MMA, bool XL, int RED>
void launch_parts(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  static const bool attr = cudaFuncSetAttribute(xp_parts<MB, MMA, XL, RED>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                kSlabMmaSmem<MB>) == cudaSuccess;
  if (!attr) {
    std::fprintf(stderr, "smem attribute refused\n");
    std::exit(1);
  }
  cudaLaunchAttribute a;
  const cudaLaunchConfig_t cfg = launch_config(dim3(n / 64, 2, 1), kSlabThreads,
                                               kSlabMmaSmem<MB>, RED == 8 ? 1 : 2, st, &a);
  CK(cudaLaunchKernelEx(&cfg, xp_parts<MB, MMA, XL, RED>, x, W, y, M, n, n, kSlabNoEpi));
}

// The product (rl_gemv v17) vs the copy with every part on (RED 1, and RED 2's candidate) on
// random data, at M = 2, 8 (MB 8) and 13, 16 (MB 16): y must be bitwise equal.
void check(const __half *x, const __half *W, int n) {
  __half *y0, *y1;
  const size_t count = (size_t)16 * n;
  CK(cudaMalloc(&y0, count * 2));
  CK(cudaMalloc(&y1, count * 2));
  for (int M : {2, 8, 13, 16}) {
    for (int red : {1, 2, 6, 7}) {
      CK(cudaMemset(y0, 0xff, count * 2));
      CK(cudaMemset(y1, 0xff, count * 2));
      CK((cudaError_t)rl_gemv(17, x, W, y0, nullptr, M, n, n, 0));
      const auto launch = M <= 8 ? (red == 1   ? launch_parts<8, true, true, 1>
                                    : red == 2 ? launch_parts<8, true, true, 2>
                                    : red == 6 ? launch_parts<8, true, true, 6>
                                               : launch_parts<8, true, true, 7>)
                                 : (red == 1   ? launch_parts<16, true, true, 1>
                                    : red == 2 ? launch_parts<16, true, true, 2>
                                    : red == 6 ? launch_parts<16, true, true, 6>
                                               : launch_parts<16, true, true, 7>);
      launch(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      probe_require_equal("the copy (RED " + std::to_string(red) + ") vs rl_gemv v17, M = " +
                              std::to_string(M),
                          y0, y1, (size_t)M * n);
    }
    if (M > 8) {  // y0: v17's
      CK(cudaMemset(y1, 0xff, count * 2));
      launch_parts<8, true, true, 8>(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      probe_require_close("rows split (RED 8) vs rl_gemv v17, M = " + std::to_string(M), y0, y1,
                          (size_t)M * n, 2e-3);
    }
  }
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  // The copy always runs the (1, 2) cluster form, as the product does where N / 64 slabs fill
  // between a half and a whole wave of SMs only in pairs (N = 4096 on an H200).
  const int sms = rl_sm_count();
  if (n % 64 != 0 || 2 * (n / 64) >= sms || 4 * (n / 64) < sms) {
    std::fprintf(stderr, "N must be a multiple of 64 with N / 64 in [SMs / 4, SMs / 2)\n");
    return 1;
  }
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  check(buf.x[0], buf.W[0], n);

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::vector<__half *> W = buf.W, x = buf.x;
  __half *y = buf.y;
  const size_t bytes = buf.bytes;
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, bytes / 1e6, buf.sets);
  for (int M : {16}) {  // after report S: 16 rows only
    std::vector<ProbeCase> cases;
    cases.push_back(probe_read_case(W, bytes));
    cases.push_back({"product gemv v17, M=" + std::to_string(M), [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(17, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
    cases.push_back({"product gemv v18, M=" + std::to_string(M), [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(18, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
#define PARTS(MB, MM, XLD, RD, NAME)                                                  \
  cases.push_back({std::string(NAME) + ", M=" + std::to_string(M),                     \
                   [=](int i, cudaStream_t st) {                                       \
                     launch_parts<MB, MM, XLD, RD>(x[i], W[i], y, M, n, st);            \
                   }})
    PARTS(8, true, true, 8, "rows split: 8 rows per CTA over all of K, no cluster");
    for (int run = 0; run < 2; ++run) probe_run(cases, buf.sets, (double)bytes, s);
  }
  return 0;
}
