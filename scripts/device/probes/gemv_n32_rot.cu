// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) and x's first touch. In v19 every CTA walks K in the same
// order, so at each of a warp's 4 units (K = 4096) all 128 CTAs want the same 16 units of x
// at once, and none of them has been read before: each unit's x is an HBM miss shared by the
// whole grid, and the warp waits for it before it issues its next W half-unit (TR2's SASS
// reading: the wait sits at the copy xa = xb). Forms:
//   copy of v19 (the control; bitwise v19's y);
//   X_PREFETCH: v19 plus one prefetch.global.L2 per 128-byte line of x, spread over the grid
//     right after the first loads, so that x's later units hit L2 (bitwise v19's y);
//   ROTATE: each group of 4 CTAs (one 256-byte W block, the L2 prefetch's unit) starts its
//     warps' unit sequences at another of their units, (u + q) mod count with q the group's
//     index mod count: a quarter of the CTAs on each quarter of K at a time, x's later units
//     already in L2 from other CTAs (another order of the sums);
//   ROTATE + X_PREFETCH;
//   X_HALF (a diagnostic, not a candidate; its y is wrong): at 16 rows only rows 0..7 of x
//     are loaded and used for rows 8..15 too: what x's second 8 rows cost the walk.
// RX1 found the rotation 0.3 us slower (graph): the grid's CTAs reading the same rows of W
// at the same time matters, so the second set of forms (`pf`, RX2) makes W's rows arrive in
// bigger contiguous pieces instead: W_PF = D >= 0: lane 0 of each warp issues one
// cp.async.bulk.prefetch.L2 per unit of its sequence, D units ahead of its loads (D = 0: with
// them; 3: every unit at the start, K = 4096), for the CTA's 1 / grid of the unit's 64 whole
// rows (4 KB at N = 4096): the grid prefetches each unit as one contiguous 512 KB block
// (bitwise v19's y).
// RX2's bulk prefetch ran 2.6-4.8 us slower. The third set (`tl`, RX3) is a diagnostic: the
// copy of v19 with timestamps (%globaltimer) per CTA at its start, at warp 0's first multiply
// (its first W arrival), at each warp's loop end and after the end, and its SM: how the grid's
// time splits into launch spread, first latency, walk, warps' spread and the CTAs' tail; and
// (RX4) each warp index's mean loop end and how often it is its CTA's last; (RX5) the end's
// steps from the last warp's loop end.
// RX6: v19's SASS puts the next unit's first-half W loads, x's loads and half of the
// second-half W loads on one scoreboard, so the warp waits for the newest loads before it
// issues more: one half-unit (2 KB) per warp in flight most of the time, 32 KB per SM, where
// R1's slab read lost 0.86 us at 32 KB against 64. The unit double buffer: whole units of W
// in two register sets (A / B, the loop unrolled by 2), the next unit's 16 loads issued before
// the current unit is multiplied, and x through cp.async into two shared-memory slots per
// warp, was written first and compiled, not run: its SASS puts both register sets' loads on
// scoreboard 5 as well, so multiplying unit A waits for unit B (register buffers cannot keep
// loads in flight past a wait here; likely why TR2 and NE5 gained nothing). cp.async's
// groups are waited for by count instead (wait_group N), so the `ring` set streams W and x
// through a per-warp ring of S half-unit stages in shared memory (8-byte cp.async per row with the
// 256-byte L2 prefetch, x 16 bytes), S - 1 half-units in flight per warp, each lane reading
// back only its own words (no barrier); bitwise v19's y.
// RX6 measured the ring 2x slower (8-byte cp.async). RX7 (`lpf`): v19 plus per-lane
// prefetch.global.L2 of the lines of the warp's unit D ahead (D = 1, 2), two instructions per
// lane and unit (rows 16t + g and 16t + 8 + g at the slab's first column): no destination
// register, so no scoreboard, and DRAM sees the warp's next unit early (bitwise v19's y).
// Usage: gemv_n32_rot [rot|pf|tl|ring|lpf]  (N = K = 4096, where v19 runs on an H200; default rot)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// The CTA's share of the grid's prefetch of unit `unit`'s 64 whole rows of W (RX2).
__device__ __forceinline__ void n32r_prefetch_unit(const __half *W, int N, int unit) {
  const size_t bytes = (size_t)kN32UnitK * N * 2;
  const size_t chunk = ((bytes + gridDim.x - 1) / gridDim.x + 15) & ~(size_t)15;
  const size_t start = blockIdx.x * chunk;
  if (start >= bytes) return;
  const char *p = reinterpret_cast<const char *>(W + (size_t)unit * kN32UnitK * N) + start;
  const unsigned size = (unsigned)min(chunk, bytes - start);
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(size) : "memory");
}

// Lane (g, t)'s x pointers of v19's walk: rows g + 8r (the last row past M), the lane's 16
// elements of the warp's first unit.
template <int XR>
__device__ __forceinline__ void n32r_x_rows(const __half *x, int M, int K,
                                            const __half *(&xp)[XR]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int r = 0; r < XR; ++r)
    xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * kN32UnitK + kN32UnitK / 4 * t;
}

// RX3's timestamps: per CTA, kTlSlots words (start, warp 0's first multiply, the 16 warps'
// loop ends, after the end, the SM).
// RX5: %globaltimer ticks by 256 ns here, so the stamps inside a CTA are SM clocks
// (clock64): 0 / 18 globaltimer at the start / end, 38 / 39 clocks there (their ratio converts
// clocks to time), 1 warp 0's first multiply, 2 + w each warp's loop end, 20 + w each warp
// after its stores to red[], 36 thread 0 after the end's barrier, 19 the SM (rx5-run2.txt was
// made when slot 37 also held thread 0's time after its sum: 5524e31).
constexpr int kTlSlots = 40;
__device__ unsigned long long *g_tl;
__device__ __forceinline__ unsigned long long n32r_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned long long n32r_clk() { return clock64(); }

// RX5: n32_end_own (its two halves) with stamps around its barrier.
template <int MB>
__device__ __forceinline__ void n32r_end_stamped(const WaAcc (&wacc)[MB / 8],
                                                 float (*red)[32][MB + 1], __half *y, int M,
                                                 int N, int n0, unsigned long long *tl) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float own = n32_own_to_red<MB>(wacc, red, M);
  __syncwarp();
  if (lane == 0) tl[20 + warp] = n32r_clk();
  __syncthreads();
  if (threadIdx.x == 0) tl[36] = n32r_clk();
  n32_own_sum_store<MB>(own, red, y, M, N, n0);
}

template <int MB, bool ROTATE, bool X_PREFETCH, bool X_HALF, int W_PF = -1, bool TL = false,
          int LPF = 0>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32r(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  unsigned long long *tl = TL ? g_tl + (size_t)blockIdx.x * kTlSlots : nullptr;
  if (TL && threadIdx.x == 0) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    tl[0] = n32r_now();
    tl[38] = n32r_clk();
    tl[19] = smid;
  }
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;
  __shared__ float red[kSlabWarps][32][JS + 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  constexpr int xstep = kSlabWarps * kN32UnitK;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
  n32r_x_rows<XR>(x, M, K, xp);
  // The warp's unit in its sequence: v19 walks 0, 1, .. cntu - 1; ROTATE starts at q.
  int jr = ROTATE && cntu > 0 ? (int)((blockIdx.x >> 2) % (unsigned)cntu) : 0;
  size_t off = (size_t)jr * step;
  int xo = jr * xstep;
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];
  uint4 xa[XR][2], xb[XR][2];
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
  const auto load_x = [&](uint4(&v)[XR][2]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      if (X_HALF && r > 0) {
        v[r][0] = v[0][0], v[r][1] = v[0][1];
        continue;
      }
      v[r][0] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + xo));
      v[r][1] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + xo + 8));
    }
  };
  const auto next_unit = [&] {
    if (ROTATE) {
      jr = jr + 1 == cntu ? 0 : jr + 1;
      off = (size_t)jr * step;
      xo = jr * xstep;
    } else {
      off += step;
      xo += xstep;
    }
  };
  // LPF: this lane's two lines of the warp's j-th unit into L2 (v19's order; not with ROTATE)
  const __half *lp = W + (size_t)(warp * kN32UnitK + LR * t + g) * N + n0;
  const auto line_prefetch = [&](int j) {
    if (LPF > 0 && j < cntu) {
      const __half *p = lp + (size_t)j * step;
      asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
      asm volatile("prefetch.global.L2 [%0];" ::"l"(p + (size_t)8 * N));
    }
  };
  // W_PF: the prefetch of the warp's j-th unit (v19's order; not with ROTATE)
  const auto prefetch = [&](int j) {
    if (W_PF >= 0 && lane == 0 && j < cntu) n32r_prefetch_unit(W, N, warp + kSlabWarps * j);
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int j = 0; j <= W_PF; ++j) prefetch(j);
#pragma unroll
  for (int j = 1; j <= LPF; ++j) line_prefetch(j);
  if (cntu > 0) {
    load_half(wb[0], 0);
    load_x(xa);
  }
  if constexpr (X_PREFETCH) {  // x's 128-byte lines into L2, one per thread at most
    const size_t lines = ((size_t)M * K * 2 + 127) / 128;
    const char *xc = reinterpret_cast<const char *>(x);
    for (size_t l = blockIdx.x * (size_t)kSlabThreads + threadIdx.x; l < lines;
         l += (size_t)gridDim.x * kSlabThreads)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(xc + l * 128));
  }
  for (int u = 0; u < cntu; ++u) {
    line_prefetch(u + 1 + LPF);
    load_half(wb[1], 1);
    n32_compute_half<XR>(wacc, wb[0], xa, 0);
    if (TL && u == 0 && threadIdx.x == 0) tl[1] = n32r_clk();
    if (u + 1 < cntu) {
      prefetch(u + 1 + W_PF);
      next_unit();
      load_half(wb[0], 0);
      load_x(xb);
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  if (TL && lane == 0) {  // after the warp's last multiply has its W (its results not waited)
    float s = 0.0f;
#pragma unroll
    for (int h = 0; h < XR; ++h) s += wacc[h].v[0][0];
    tl[2 + warp] = n32r_clk() + (s == 12345.0f);  // after the sums exist
  }
  if constexpr (TL)
    n32r_end_stamped<MB>(wacc, red, y, M, N, n0, tl);
  else
    n32_end_own<MB>(wacc, red, y, M, N, n0);
  if (TL && threadIdx.x == 0) tl[39] = n32r_clk(), tl[18] = n32r_now();
}

// RX3..RX5: `launches` cold launches of the timestamped copy at M rows. Grid-wide times (the
// CTAs' starts and ends) from %globaltimer relative to the grid's first start, medians over the
// launches; times inside a CTA from its SM clock, converted by the launch's mean ns per clock,
// means over all CTAs and launches.
template <int MB>
void timeline(const GemvProbeBuffers &buf, int M, int launches) {
  const int n = buf.n, grid = n / kN32Cols;
  unsigned long long *d;
  CK(cudaMalloc(&d, (size_t)grid * kTlSlots * 8));
  CK(cudaMemcpyToSymbol(g_tl, &d, sizeof(d)));
  std::vector<unsigned long long> h((size_t)grid * kTlSlots);
  std::vector<std::vector<double>> grid_q(5);  // last start, CTA end p10 / median / p90 / last
  // means (us): first W, warps' spread, the end's steps (2-4) and whole (5), then each warp's
  // loop end (6 + w)
  std::vector<double> mean(6 + kSlabWarps, 0.0), warp_last(kSlabWarps, 0.0);
  std::vector<double> sm_end(256, 0.0), sm_cnt(256, 0.0);
  const double per = 1.0 / ((double)grid * launches);
  for (int l = 0; l < launches + 2; ++l) {
    const int set = l % buf.sets;
    n32r<MB, false, false, false, -1, true>
        <<<grid, kSlabThreads>>>(buf.x[set], buf.W[set], buf.y, M, n, n);
    CK(cudaDeviceSynchronize());
    if (l < 2) continue;  // warm-up
    CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    double gt = 0.0, clk = 0.0;
    for (int c = 0; c < grid; ++c) {
      const unsigned long long *r = &h[(size_t)c * kTlSlots];
      t0 = std::min(t0, r[0]);
      gt += (double)(r[18] - r[0]);
      clk += (double)(r[39] - r[38]);
    }
    const double us = gt / clk * 1e-3;  // us per clock
    std::vector<double> start, cend;
    for (int c = 0; c < grid; ++c) {
      const unsigned long long *r = &h[(size_t)c * kTlSlots];
      const auto d_us = [&](int a, int b) { return ((double)r[b] - (double)r[a]) * us; };
      start.push_back((r[0] - t0) * 1e-3);
      cend.push_back((r[18] - t0) * 1e-3);
      int lo = 2, hi = 2, rs = 20;
      for (int w = 0; w < kSlabWarps; ++w) {
        if (r[2 + w] < r[lo]) lo = 2 + w;
        if (r[2 + w] > r[hi]) hi = 2 + w;
        if (r[20 + w] > r[rs]) rs = 20 + w;
        mean[6 + w] += d_us(38, 2 + w) * per;
      }
      warp_last[hi - 2] += 1;
      mean[0] += d_us(38, 1) * per;
      mean[1] += d_us(lo, hi) * per;
      mean[2] += d_us(hi, rs) * per;  // last loop end -> last warp's red[] stores issued
      mean[3] += d_us(rs, 36) * per;  // -> the barrier passed (thread 0)
      mean[4] += d_us(36, 39) * per;  // -> thread 0's sum and y's store issued
      mean[5] += d_us(hi, 39) * per;  // last loop end -> end
      sm_end[r[19] & 255] += (r[18] - t0) * 1e-3;
      sm_cnt[r[19] & 255] += 1;
    }
    const auto q = [](std::vector<double> v, double f) {
      std::sort(v.begin(), v.end());
      return v[(size_t)(f * (v.size() - 1))];
    };
    grid_q[0].push_back(q(start, 1.0));
    grid_q[1].push_back(q(cend, 0.1));
    grid_q[2].push_back(q(cend, 0.5));
    grid_q[3].push_back(q(cend, 0.9));
    grid_q[4].push_back(q(cend, 1.0));
  }
  const auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("M=%2d (%d launches; grid-wide: us from the grid's first start, medians over the"
              " launches; in a CTA: SM clocks as us, means)\n", M, launches);
  std::printf("  last CTA start %.2f; CTA ends p10 %.2f, median %.2f, p90 %.2f, last %.2f\n",
              med(grid_q[0]), med(grid_q[1]), med(grid_q[2]), med(grid_q[3]), med(grid_q[4]));
  std::printf("  first W (warp 0) %.3f after its CTA's start; warps' loop ends spread %.3f\n",
              mean[0], mean[1]);
  std::printf("  the end: last loop end -> last red[] stores %.3f -> barrier %.3f -> sum and y's"
              " store %.3f; in all %.3f\n", mean[2], mean[3], mean[4], mean[5]);
  std::vector<std::pair<double, int>> sms;
  for (int i = 0; i < 256; ++i)
    if (sm_cnt[i] > 0) sms.push_back({sm_end[i] / sm_cnt[i], i});
  std::sort(sms.begin(), sms.end());
  std::printf("  mean end by SM: fastest");
  for (size_t i = 0; i < 4 && i < sms.size(); ++i)
    std::printf(" sm%d %.2f", sms[i].second, sms[i].first);
  std::printf("; slowest");
  for (size_t i = sms.size() >= 4 ? sms.size() - 4 : 0; i < sms.size(); ++i)
    std::printf(" sm%d %.2f", sms[i].second, sms[i].first);
  std::printf("\n  mean loop end by warp (us after the CTA's start; how often last):");
  for (int w = 0; w < kSlabWarps; ++w)
    std::printf("%s w%d %.2f (%.0f%%)", w % 4 ? "" : "\n   ", w, mean[6 + w],
                100.0 * warp_last[w] * per);
  std::printf("\n");
  CK(cudaFree(d));
}

// A 16-byte cp.async that skips L1 (x's words in the ring).
__device__ __forceinline__ void n32c_cp16(void *smem, const void *gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   (unsigned)__cvta_generic_to_shared(smem)),
               "l"(gmem)
               : "memory");
}

// RX6: the per-warp cp.async ring (see the header).
template <int MB>
constexpr int n32c_stage() {  // bytes per warp and stage: W [8 rows][lane] uint2, x [XR][lane]
  return 8 * 32 * 8 + (MB / 8) * 32 * 16;
}
template <int MB, int S>
constexpr int n32c_smem() {
  return kSlabWarps * S * n32c_stage<MB>();
}
template <int MB, int S>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32c(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;
  constexpr int STAGE = n32c_stage<MB>();
  __shared__ float red[kSlabWarps][32][JS + 1];
  extern __shared__ __align__(16) unsigned char n32c_ring[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const int H = 2 * cntu;  // the warp's half-units
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + LR * t) * N + n;
  const __half *xp[XR];
  n32r_x_rows<XR>(x, M, K, xp);
  unsigned char *ring = n32c_ring + (size_t)warp * S * STAGE;
  const auto wslot = [&](int st, int row) {
    return reinterpret_cast<uint2 *>(ring + st * STAGE) + row * 32 + lane;
  };
  const auto xslot = [&](int st, int r) {
    return reinterpret_cast<uint4 *>(ring + st * STAGE + 8 * 32 * 8) + r * 32 + lane;
  };
  const auto issue = [&](int k) {  // half-unit k into stage k % S, then a group (maybe empty)
    if (k < H) {
      const int u = k >> 1, h2 = k & 1, st = k % S;
      const __half *p = w0 + (size_t)u * step + (size_t)(8 * h2) * N;
#pragma unroll
      for (int row = 0; row < 8; ++row)  // row = 4j + i
        asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], 8;" ::"r"(
                         (unsigned)__cvta_generic_to_shared(wslot(st, row))),
                     "l"(p + (size_t)row * N)
                     : "memory");
#pragma unroll
      for (int r = 0; r < XR; ++r)
        n32c_cp16(xslot(st, r), xp[r] + (size_t)u * kSlabWarps * kN32UnitK + 8 * h2);
    }
    cp_async_commit();
  };
  WaAcc wacc[XR] = {};
#pragma unroll
  for (int k = 0; k < S - 1; ++k) issue(k);
  for (int k = 0; k < H; ++k) {
    issue(k + S - 1);
    cp_async_wait<S - 1>();  // group k is done
    const int st = k % S;
    uint2 w[2][4];
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) w[j][i] = *wslot(st, 4 * j + i);
    uint4 xa[XR][2];  // this half-unit's x in [r][0] (a constant index: no local memory)
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = *xslot(st, r);
    n32_compute_half<XR>(wacc, w, xa, 0);
  }
  n32_end_own<MB>(wacc, red, y, M, N, n0);
}

template <int MB, int S>
void launch_ring(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  static const bool attr = [] {
    CK(cudaFuncSetAttribute(n32c<MB, S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            n32c_smem<MB, S>()));
    return true;
  }();
  (void)attr;
  n32c<MB, S><<<n / kN32Cols, kSlabThreads, n32c_smem<MB, S>(), st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

template <int MB, bool ROTATE, bool X_PREFETCH, bool X_HALF, int W_PF = -1, int LPF = 0>
void launch_rot(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  n32r<MB, ROTATE, X_PREFETCH, X_HALF, W_PF, false, LPF>
      <<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

const std::vector<ProbeForm> kBitwise = {
    {"copy of v19", launch_rot<8, false, false, false>, launch_rot<16, false, false, false>},
    {"v19 + x prefetched into L2", launch_rot<8, false, true, false>,
     launch_rot<16, false, true, false>},
};
const std::vector<ProbeForm> kReordered = {
    {"rotated units", launch_rot<8, true, false, false>, launch_rot<16, true, false, false>},
    {"rotated units + x prefetched", launch_rot<8, true, true, false>,
     launch_rot<16, true, true, false>},
};
const std::vector<ProbeForm> kPrefetch = {
    {"copy of v19", launch_rot<8, false, false, false>, launch_rot<16, false, false, false>},
    {"W's units prefetched whole, with the loads", launch_rot<8, false, false, false, 0>,
     launch_rot<16, false, false, false, 0>},
    {"W's units prefetched whole, 1 unit ahead", launch_rot<8, false, false, false, 1>,
     launch_rot<16, false, false, false, 1>},
    {"W's units prefetched whole, all at the start", launch_rot<8, false, false, false, 3>,
     launch_rot<16, false, false, false, 3>},
};
const std::vector<ProbeForm> kRing = {
    {"copy of v19", launch_rot<8, false, false, false>, launch_rot<16, false, false, false>},
    {"cp.async ring, 2 stages (1 half-unit in flight)", launch_ring<8, 2>, launch_ring<16, 2>},
    {"cp.async ring, 3 stages (2 in flight)", launch_ring<8, 3>, launch_ring<16, 3>},
    {"cp.async ring, 4 stages (3 in flight)", launch_ring<8, 4>, launch_ring<16, 4>},
};
const std::vector<ProbeForm> kLinePrefetch = {
    {"copy of v19", launch_rot<8, false, false, false>, launch_rot<16, false, false, false>},
    {"lines of the unit 1 ahead prefetched", launch_rot<8, false, false, false, -1, 1>,
     launch_rot<16, false, false, false, -1, 1>},
    {"lines of the unit 2 ahead prefetched", launch_rot<8, false, false, false, -1, 2>,
     launch_rot<16, false, false, false, -1, 2>},
};
const ProbeForm kXHalf = {"x's rows 0..7 only (diagnostic, wrong y)",
                          launch_rot<8, false, false, false>, launch_rot<16, false, false, true>};

}  // namespace

int main(int argc, char **argv) {
  const std::string set = argc > 1 ? argv[1] : "rot";
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  if (set == "pf") {
    probe_check_forms(19, kPrefetch, buf.x[0], buf.W[0], n);
    probe_print_attributes({reinterpret_cast<const void *>(n32r<16, false, false, false, 1>)});
    probe_time_forms(19, kPrefetch, buf, {16, 8}, 3);
    return 0;
  }
  if (set == "lpf") {
    probe_check_forms(19, kLinePrefetch, buf.x[0], buf.W[0], n);
    probe_time_forms(19, kLinePrefetch, buf, {16, 8}, 3);
    return 0;
  }
  if (set == "ring") {
    probe_check_forms(19, kRing, buf.x[0], buf.W[0], n);
    probe_print_attributes({reinterpret_cast<const void *>(n32c<16, 3>),
                            reinterpret_cast<const void *>(n32c<8, 3>)});
    probe_time_forms(19, kRing, buf, {16, 8}, 3);
    return 0;
  }
  if (set == "tl") {
    for (int rep = 0; rep < 2; ++rep) {
      timeline<16>(buf, 16, 60);
      timeline<8>(buf, 8, 60);
    }
    return 0;
  }
  if (set != "rot") {
    std::fprintf(stderr, "usage: gemv_n32_rot [rot|pf|tl|ring|lpf]\n");
    return 2;
  }
  probe_check_forms(19, kBitwise, buf.x[0], buf.W[0], n);
  probe_check_forms(19, kReordered, buf.x[0], buf.W[0], n, 1e-3);
  probe_print_attributes({reinterpret_cast<const void *>(n32r<16, false, false, false>),
                          reinterpret_cast<const void *>(n32r<16, false, true, false>),
                          reinterpret_cast<const void *>(n32r<16, true, false, false>),
                          reinterpret_cast<const void *>(n32r<16, true, true, false>),
                          reinterpret_cast<const void *>(n32r<16, false, false, true>)});
  std::vector<ProbeForm> forms = kBitwise;
  forms.insert(forms.end(), kReordered.begin(), kReordered.end());
  forms.push_back(kXHalf);
  probe_time_forms(19, forms, buf, {16, 8}, 3);
  return 0;
}
