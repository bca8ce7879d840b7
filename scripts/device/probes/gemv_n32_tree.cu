// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with a shorter end. NE2 put v19's end at ~0.4 us over the walk
// at 16 rows; NC4 found most of its samples waiting at its one barrier for the CTA's last W
// arrivals, so what counts is the path after the slowest warp's last MMA: its 15 stores to
// red[], the barrier, then every thread's 15 loads (30 KB read through shared memory, ~240
// cycles at 128 bytes per cycle), the adds, and y's store. Forms:
//   END_FLAT (the control, a copy of v19 at WARPS = 16: bitwise v19's y): each warp owns
//     JS / WARPS entries of a lane and sums them over the warps in warp order;
//   END_GROUPS: two levels. Level 1 within groups of 4 warps (a named barrier per group):
//     each warp sums a quarter of a lane's entries over its group, so groups whose warps are
//     done reduce while the slowest group still loads, and the slowest group reads 6 KB, not
//     30; level 2 over the groups after one CTA barrier (8 KB). Another order of the sums.
//   END_NOSTORE (a diagnostic, not a candidate): END_FLAT with y's store skipped (kept only on
//     a value no sum takes), to see what y's store and its drain cost at the kernel's end;
//   WARPS = 8: each warp walks two of v19's warps' unit sequences (w and w + 8) in lockstep
//     into one set of sums: v19's bytes in flight per SM, half the sums to reduce
//     (XP4 tried 8 warps before W's loads carried the L2 prefetch). Another order of the sums.
// The 8-warp forms need K % 1024 == 0 (every stream the same number of units; 4096 here).
// Usage: gemv_n32_tree  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

enum End { END_FLAT, END_GROUPS, END_NOSTORE };

// Entry j of lane (g, t): row 8h + 2t + (q & 1), column 4g + 2i + (q >> 1) (j = 8h + 4i + q).
__device__ __forceinline__ void n32t_entry_pos(int j, int g, int t, int &m, int &col) {
  const int h = j / 8, i = j / 4 % 2, q = j % 4;
  m = 8 * h + 2 * t + (q & 1);
  col = 4 * g + 2 * i + (q >> 1);
}

// f(j, value) for each entry j of a lane's sums (j = 8h + 4i + q).
template <int XR, class F>
__device__ __forceinline__ void n32t_for_entries(const WaAcc (&wacc)[XR], F f) {
#pragma unroll
  for (int h = 0; h < XR; ++h)
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int q = 0; q < 4; ++q) f(h * 8 + i * 4 + q, wacc[h].v[i][q]);
}

// y[m][col] = sum(c, j) for each entry j = E * warp + c (c < E) of this lane inside y; with
// `nostore`, only on a value no sum takes (END_NOSTORE).
template <int E, int JS, class Sum>
__device__ __forceinline__ void n32t_store_owned(__half *y, int M, int N, int n0, bool nostore,
                                                 Sum sum) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int c = 0; c < E; ++c) {
    const int j = E * warp + c;
    int m, col;
    n32t_entry_pos(j, g, t, m, col);
    col += n0;
    if (j >= JS || m >= M || col >= N) continue;
    const float v = sum(c, j);
    if (!nostore || v == 12345.0f) y[(size_t)m * N + col] = __float2half_rn(v);
  }
}

template <int MB, int WARPS, End END>
__global__ void __launch_bounds__(WARPS * 32, 1)
    n32t(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;
  constexpr int S = kSlabWarps / WARPS;  // v19 warps' unit sequences per warp
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK;
  // v19's count at S = 1; at S = 2 the host guarantees units % 16 == 0 (equal counts)
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0[S], *w1[S], *w2[S], *w3[S], *xp[S][XR];
#pragma unroll
  for (int s = 0; s < S; ++s) {
    const int vw = warp + WARPS * s;  // the v19 warp whose units stream s walks
    w0[s] = W + (size_t)(vw * kN32UnitK + LR * t) * N + n;
    w1[s] = w0[s] + N, w2[s] = w1[s] + N, w3[s] = w2[s] + N;
#pragma unroll
    for (int r = 0; r < XR; ++r)
      xp[s][r] = x + (size_t)min(g + 8 * r, M - 1) * K + vw * kN32UnitK + LR * t;
  }
  WaAcc wacc[XR] = {};
  uint2 wb[S][2][2][4];              // [stream][half-unit][group][row]
  uint4 xa[S][XR][2], xb[S][XR][2];  // [stream][8 rows of x][half]
  size_t off = 0;
  const auto load_half = [&](int s, uint2(&w)[2][4], int h2) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(8 * h2 + 4 * j) * N;
      w[j][0] = ldg_stream8_l2(w0[s] + o);
      w[j][1] = ldg_stream8_l2(w1[s] + o);
      w[j][2] = ldg_stream8_l2(w2[s] + o);
      w[j][3] = ldg_stream8_l2(w3[s] + o);
    }
  };
  const auto load_x = [&](int s, uint4(&v)[XR][2]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      v[r][0] = __ldg(reinterpret_cast<const uint4 *>(xp[s][r]));
      v[r][1] = __ldg(reinterpret_cast<const uint4 *>(xp[s][r] + 8));
      xp[s][r] += kSlabWarps * kN32UnitK;
    }
  };
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int r = 0; r < XR; ++r)
      xa[s][r][0] = xa[s][r][1] = xb[s][r][0] = xb[s][r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) {
#pragma unroll
    for (int s = 0; s < S; ++s) {
      load_half(s, wb[s][0], 0);
      load_x(s, xa[s]);
    }
  }
  for (int u = 0; u < cntu; ++u) {
#pragma unroll
    for (int s = 0; s < S; ++s) load_half(s, wb[s][1], 1);
#pragma unroll
    for (int s = 0; s < S; ++s) n32_compute_half<XR>(wacc, wb[s][0], xa[s], 0);
    if (u + 1 < cntu) {  // the next unit's first halves
      off += step;
#pragma unroll
      for (int s = 0; s < S; ++s) {
        load_half(s, wb[s][0], 0);
        load_x(s, xb[s]);
      }
    }
#pragma unroll
    for (int s = 0; s < S; ++s) n32_compute_half<XR>(wacc, wb[s][1], xa[s], 1);
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int r = 0; r < XR; ++r) xa[s][r][0] = xb[s][r][0], xa[s][r][1] = xb[s][r][1];
  }

  if constexpr (END == END_GROUPS) {
    constexpr int GS = 4, G = WARPS / GS;  // groups of GS warps
    constexpr int E1 = JS / GS;            // entries a warp sums over its group
    constexpr int E2 = JS >= WARPS ? JS / WARPS : 1;  // entries a warp sums over the groups
    __shared__ float red1[WARPS][JS][32];  // [warp][entry][lane]: conflict-free both ways
    __shared__ float red2[G][JS][32];
    const int gr = warp / GS, wi = warp % GS;
    float own[E1];
    n32t_for_entries(wacc, [&](int j, float v) {
      if (j / E1 == wi)
        own[j % E1] = v;
      else
        red1[warp][j][lane] = v;
    });
    asm volatile("bar.sync %0, %1;" ::"r"(1 + gr), "r"(GS * 32) : "memory");
#pragma unroll
    for (int c = 0; c < E1; ++c) {
      float v = 0.0f;
#pragma unroll
      for (int w = 0; w < GS; ++w) v += w == wi ? own[c] : red1[gr * GS + w][E1 * wi + c][lane];
      red2[gr][E1 * wi + c][lane] = v;
    }
    __syncthreads();
    n32t_store_owned<E2, JS>(y, M, N, n0, false, [&](int, int j) {
      float v = 0.0f;
#pragma unroll
      for (int gg = 0; gg < G; ++gg) v += red2[gg][j][lane];
      return v;
    });
  } else {  // v19's end (n32_end_own), each warp owning E entries of a lane
    constexpr int E = JS >= WARPS ? JS / WARPS : 1;
    __shared__ float red[WARPS][32][JS + 1];  // + 1: conflict-free both ways
    float own[E];
    n32t_for_entries(wacc, [&](int j, float v) {
      if (8 * (j / 8) + 2 * t >= M) return;  // v19 skips the lane's rows past M
      if (j / E == warp)
        own[j % E] = v;
      else
        red[warp][lane][j] = v;
    });
    __syncthreads();
    n32t_store_owned<E, JS>(y, M, N, n0, END == END_NOSTORE, [&](int c, int j) {
      float v = 0.0f;
#pragma unroll
      for (int w = 0; w < WARPS; ++w) v += w == warp ? own[c] : red[w][lane][j];
      return v;
    });
  }
}

template <int MB, int WARPS, End END>
void launch_tree(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  if (WARPS != kSlabWarps && n % (kSlabWarps * kN32UnitK) != 0) {
    std::fprintf(stderr, "the 8-warp forms need K %% 1024 == 0\n");
    std::exit(1);
  }
  n32t<MB, WARPS, END><<<n / kN32Cols, WARPS * 32, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

const std::vector<ProbeForm> kBitwise = {
    {"copy of v19 (flat end)", launch_tree<8, 16, END_FLAT>, launch_tree<16, 16, END_FLAT>},
};
const std::vector<ProbeForm> kReordered = {
    {"16 warps, end in groups of 4", launch_tree<8, 16, END_GROUPS>,
     launch_tree<16, 16, END_GROUPS>},
    {"8 warps x 2 streams, flat end", launch_tree<8, 8, END_FLAT>, launch_tree<16, 8, END_FLAT>},
    {"8 warps x 2 streams, end in groups of 4", launch_tree<8, 8, END_GROUPS>,
     launch_tree<16, 8, END_GROUPS>},
};
const ProbeForm kNoStore = {"copy of v19, y's store skipped (diagnostic)",
                            launch_tree<8, 16, END_NOSTORE>, launch_tree<16, 16, END_NOSTORE>};

}  // namespace

int main() {
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  probe_check_forms(19, kBitwise, buf.x[0], buf.W[0], n);
  probe_check_forms(19, kReordered, buf.x[0], buf.W[0], n, 1e-3);
  probe_print_attributes({reinterpret_cast<const void *>(n32t<16, 16, END_FLAT>),
                          reinterpret_cast<const void *>(n32t<16, 16, END_GROUPS>),
                          reinterpret_cast<const void *>(n32t<16, 8, END_FLAT>),
                          reinterpret_cast<const void *>(n32t<16, 8, END_GROUPS>)});
  std::vector<ProbeForm> forms = kBitwise;
  forms.insert(forms.end(), kReordered.begin(), kReordered.end());
  forms.push_back(kNoStore);
  probe_time_forms(19, forms, buf, {16, 8}, 3);
  return 0;
}
