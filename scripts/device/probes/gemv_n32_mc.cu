// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with x shared by the CTAs of a (1, CL) cluster of neighbouring
// slabs. v19's 128 CTAs each read all of x from L2 (128 KB at 16 rows, half of W's bytes per
// CTA); NE2 put the walk 0.4-0.5 us over the read at 16 rows and XP6/XP7 the MMAs and x's loads
// at 0.5 us of it. NE4 copied x into shared memory in 4 whole chunks at the start, every CTA
// (or pair, with multicast) asking for the same 32 KB at once before its first W load, and the
// walk waited: 1 us slower with multicast. Here:
// - W's first half-unit and x's first round (the first unit of every warp) are loaded from
//   global as in v19, before the cluster's start, so the start overlaps the first W latency;
// - rounds 1.. (the 16 warps' next units: 1024 of K) come by bulk copies multicast to the
//   cluster, rank r copying rows r * MB / CL .. of each, one copy of 2 KB per row;
// - AHEAD 0: every round issued right after the cluster's start; AHEAD 1: round 1 then, and
//   round u + 2 when warp 0 begins its unit u (a round is first waited for one unit before use);
// - the cluster's end barrier split: arrive once every round has landed here, wait after the
//   stores (no CTA leaves while its copies may still land in a peer).
// The MMAs and the end are v19's: bitwise v19's y (checked at 2, 8, 13, 16 rows).
// Usage: gemv_n32_mc  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

constexpr int kRoundK = kSlabWarps * kN32UnitK;  // K per round: one unit per warp
constexpr int kMaxRounds = 8;                     // K <= 8192 in this probe

template <int MB, int CL, int AHEAD>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32mc(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, LR = kN32UnitK / 4, RPR = MB / CL;
  extern __shared__ __align__(16) unsigned char mc_raw[];
  __half *xs = reinterpret_cast<__half *>(mc_raw);  // [MB][K + 8]
  __shared__ float red[kSlabWarps][32][MB + 1];
  __shared__ unsigned long long bar[kMaxRounds];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int rank = blockIdx.y;
  const int n0 = (CL * blockIdx.x + rank) * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK, rounds = (K + kRoundK - 1) / kRoundK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const int xstride = K + 8;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];
  uint4 xa[XR][2], xb[XR][2];
  size_t off = 0;
  const auto load_half = [&](uint2(&w)[2][4], int h2) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(8 * h2 + 4 * j) * N;
      w[j][0] = ldg_stream8_l2(w0 + o);
      w[j][1] = ldg_stream8_l2(w1 + o);
      w[j][2] = ldg_stream8_l2(w2 + o);
      w[j][3] = ldg_stream8_l2(w3 + o);
    }
  };
  // Round c of x (its rows of this rank, multicast to the cluster), by thread 0.
  const auto issue = [&](int c) {
    const int k0 = c * kRoundK, kc = min(kRoundK, K - k0);
    for (int r = rank * RPR; r < rank * RPR + RPR; ++r)
      bulk_load_1d_mc(xs + (size_t)r * xstride + k0, x + (size_t)min(r, M - 1) * K + k0,
                      (unsigned)kc * 2, &bar[c], (unsigned short)((1 << CL) - 1));
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) {  // v19's first loads, from global
    load_half(wb[0], 0);
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      const __half *p = x + (size_t)min(g + 8 * r, M - 1) * K + warp * kN32UnitK + LR * t;
      xa[r][0] = __ldg(reinterpret_cast<const uint4 *>(p));
      xa[r][1] = __ldg(reinterpret_cast<const uint4 *>(p + 8));
    }
  }
  if (threadIdx.x == 0) {
    for (int c = 1; c < rounds; ++c) {
      mbar_init(&bar[c], 1);
      mbar_expect_tx(&bar[c], (unsigned)(MB * min(kRoundK, K - c * kRoundK) * 2));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_arrive_relaxed();
  cluster_wait();
  if (threadIdx.x == 0)
    for (int c = 1; c < (AHEAD == 0 ? rounds : min(rounds, 2)); ++c) issue(c);
  for (int u = 0; u < cntu; ++u) {
    if (AHEAD == 1 && threadIdx.x == 0 && u + 2 < rounds) issue(u + 2);
    load_half(wb[1], 1);
    n32_compute_half<XR>(wacc, wb[0], xa, 0);
    if (u + 1 < cntu) {
      off += step;
      load_half(wb[0], 0);
      mbar_wait(&bar[u + 1], 0);
      const int k = (warp + kSlabWarps * (u + 1)) * kN32UnitK + LR * t;
#pragma unroll
      for (int r = 0; r < XR; ++r) {
        const __half *p = xs + (size_t)(g + 8 * r) * xstride + k;
        xb[r][0] = *reinterpret_cast<const uint4 *>(p);
        xb[r][1] = *reinterpret_cast<const uint4 *>(p + 8);
      }
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  // Every round has landed here (warps without a unit in it wait too) before the arrive.
  for (int c = cntu; c < rounds; ++c)
    if (c > 0) mbar_wait(&bar[c], 0);
  cluster_arrive_relaxed();
  // v19's end (n32_end_own) without its early return, so every thread reaches the wait.
  float own = 0.0f;
#pragma unroll
  for (int h = 0; h < XR; ++h)
    if (8 * h + 2 * t < M)
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int j = h * 8 + i * 4 + q;
          if (j == warp)
            own = wacc[h].v[i][q];
          else
            red[warp][lane][j] = wacc[h].v[i][q];
        }
  __syncthreads();
  {
    const int j = warp, h = j / 8, i = j / 4 % 2, q = j % 4;
    const int m = 8 * h + 2 * t + (q & 1), col = n0 + 4 * g + 2 * i + (q >> 1);
    if (j < MB && m < M && col < N) {
      float v = 0.0f;
#pragma unroll
      for (int w = 0; w < kSlabWarps; ++w) v += w == warp ? own : red[w][lane][j];
      y[(size_t)m * N + col] = __float2half_rn(v);
    }
  }
  cluster_wait();
}

template <int MB, int CL, int AHEAD>
void launch_mc(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  const int smem = mc_smem<MB>(n);
  static const bool attr = cudaFuncSetAttribute(n32mc<MB, CL, AHEAD>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                smem) == cudaSuccess;
  if (!attr) {
    std::fprintf(stderr, "smem attribute refused\n");
    std::exit(1);
  }
  cudaLaunchAttribute a;
  const cudaLaunchConfig_t cfg =
      launch_config(dim3(n / (32 * CL), CL, 1), kSlabThreads, smem, CL, st, &a);
  CK(cudaLaunchKernelEx(&cfg, n32mc<MB, CL, AHEAD>, x, W, y, M, n, n));
}

const std::vector<ProbeForm> kForms = {
    {"x multicast CL 2, all rounds at start", launch_mc<8, 2, 0>, launch_mc<16, 2, 0>},
    {"x multicast CL 2, rounds 2 ahead", launch_mc<8, 2, 1>, launch_mc<16, 2, 1>},
    {"x multicast CL 4, rounds 2 ahead", launch_mc<8, 4, 1>, launch_mc<16, 4, 1>},
};
// The forms' 16-row kernels and cluster sizes, for the residency query.
const std::pair<const void *, int> kClusterKernels[] = {
    {reinterpret_cast<const void *>(n32mc<16, 2, 0>), 2},
    {reinterpret_cast<const void *>(n32mc<16, 2, 1>), 2},
    {reinterpret_cast<const void *>(n32mc<16, 4, 1>), 4},
};

}  // namespace

int main() {
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  probe_check_forms(19, kForms, buf.x[0], buf.W[0], n);
  for (const auto &[k, cl] : kClusterKernels)  // a whole wave needs n / 32 / CL at once
    std::printf("%d clusters of %d resident (need %d)\n",
                query_active_clusters(k, kSlabThreads, mc_smem<16>(n), cl), cl, n / 32 / cl);

  probe_time_forms(19, kForms, buf, {16, 8}, 3);
  return 0;
}
