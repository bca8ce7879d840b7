// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with less shared memory at 16 rows. v19's end keeps red[16][32][17]
// floats (34.8 KB) for 16 rows, which with the 1 KB the system reserves per CTA makes the
// driver pick a 64 KB shared-memory carveout (192 KB of L1 left), where 8 rows (18.5 KB) get
// 32 KB (224 KB of L1). CV found the L1 that is left matters (28 KB of L1: 2.6-2.95 us slower),
// and the walk serves x's sectors and the in-flight W through L1; 16 rows run ~0.35 us slower
// than 8 (MC1, graph). Here red holds only the 15 entries each lane writes (its own warp's one
// stays in registers, as in v19): red[16][32][15] is 30 KB, so 32 KB of carveout fits.
// (At 8 rows warps 8..15 own none of a lane's 8 entries, so red keeps all 8 there; run 1 left
// that out, and the 8-row forms wrote past red: an illegal address in the checks.)
// Forms (the loop and the order of the sums are v19's: bitwise v19's y, checked at 2, 8, 13, 16
// rows):
//   RED15 false: a copy of v19 (the control; 34.8 KB);
//   RED15 true: red[16][32][15] (30 KB; lane stride 15 floats, conflict-free both ways);
//   CARVE: the preferred carveout in percent (-1: the driver's choice);
//   WARM (run 4): the end's code run once before the walk (see kForms).
// Run 1 (L1A, d576bb0: the 8-row forms without the fix above) stopped at the checks. Run 2 (L1A,
// n32-l1/run2-2514b08): RED15 0.85-0.9 us *slower* than v19 at 16 and 12 rows (graph), every
// carveout alike; 8 rows (v19's layout) equal. Run 3 (run3-2514b08): RED15 held at v19's 64 KB
// carveout just as slow (so the cost is the code, not the L1 left), and v19's copy at 100 / 132
// / 164 KB of shared memory (156 / 124 / 92 KB of L1) equal to its default: L1 capacity between
// 92 and 224 KB does not move the 16-row walk. Run 4: kForms.
// Usage: gemv_n32_l1  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

template <int MB, bool RED15, bool WARM = false>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32l1(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;
  // floats per lane in red: 15 only at 16 rows (at 8, warps 8..15 own none of the 8 entries)
  constexpr bool kOwnOut = RED15 && JS == kSlabWarps;
  constexpr int RS = kOwnOut ? JS - 1 : JS + 1;
  __shared__ float red[kSlabWarps][32][RS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + LR * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r)
    xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * kN32UnitK + LR * t;
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
  const auto load_x = [&](uint4(&v)[XR][2]) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      v[r][0] = __ldg(reinterpret_cast<const uint4 *>(xp[r]));
      v[r][1] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + 8));
      xp[r] += kSlabWarps * kN32UnitK;
    }
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  if (cntu > 0) {
    load_half(wb[0], 0);
    load_x(xa);
  }
  const auto walk = [&]() {
    for (int u = 0; u < cntu; ++u) {
      load_half(wb[1], 1);
      n32_compute_half<XR>(wacc, wb[0], xa, 0);
      if (u + 1 < cntu) {
        off += step;
        load_half(wb[0], 0);
        load_x(xb);
      }
      n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
      for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
    }
  };
  // `store` false: WARM's first pass, the same instructions with nothing stored to y.
  const auto end = [&](bool store) {
    // v19's end (n32_end_own); with RED15 entry j of a lane sits at j - (j > warp): the lane's
    // own warp's entry is never stored.
    const auto slot = [&](int j, int w) { return kOwnOut ? j - (j > w) : j; };
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
              red[warp][lane][slot(j, warp)] = wacc[h].v[i][q];
          }
    __syncthreads();
    const int j = warp, h = j / 8, i = j / 4 % 2, q = j % 4;
    const int m = 8 * h + 2 * t + (q & 1), col = n0 + 4 * g + 2 * i + (q >> 1);
    if (j >= MB || m >= M || col >= N) return;
    float v = 0.0f;
#pragma unroll
    for (int w = 0; w < kSlabWarps; ++w) v += w == warp ? own : red[w][lane][slot(j, w)];
    if (store) y[(size_t)m * N + col] = __float2half_rn(v);
  };
  if constexpr (!WARM) {
    walk();
    end(true);
  } else {  // the end's code run once before the walk (one copy of it: the loop is not unrolled)
#pragma unroll 1
    for (int pass = K >> 30; pass < 2; ++pass) {  // K >> 30 == 0, opaque to the compiler
      if (pass == 1) {
        __syncthreads();  // every warp done with the first pass's red[] before the walk
        walk();
      }
      end(pass == 1);
    }
  }
}

template <int MB, bool RED15, int CARVE, bool WARM = false>
void launch_l1(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  static const bool attr =
      CARVE < 0 || cudaFuncSetAttribute(n32l1<MB, RED15, WARM>,
                                        cudaFuncAttributePreferredSharedMemoryCarveout,
                                        CARVE) == cudaSuccess;
  if (!attr) {
    std::fprintf(stderr, "carveout refused\n");
    std::exit(1);
  }
  n32l1<MB, RED15, WARM><<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

// Runs 2 and 3 also timed the product's v20 (2514b08: this RED15 form in gemv_n32.cuh), the
// same time as RED15 here; v20 was removed again. Runs 2-3 timed RED15 at carveouts -1 / 0 /
// 14 / 20 and v19's copy at 44 / 58 / 72 (forms since dropped).
// Run 4 asked whether the end waits on instruction fetch (RED15's end is ~3.7 KB of code
// longer, 21 branches against 2, and 0.9 us slower; the probe's copy of v19 runs 0.05-0.2 us
// behind the product's): WARM runs the end's code once before the walk (its first pass stores
// nothing), so the end finds its instructions cached. Run 4 (run4-e90119e): WARM slower
// everywhere (v19's copy +0.06-0.11 us, RED15 +1.4, 8 rows +0.6): not instruction fetch.
const std::vector<ProbeForm> kForms = {
    {"copy of v19 (red 17 floats per lane)", launch_l1<8, false, -1>, launch_l1<16, false, -1>},
    {"copy of v19, end's code run first", launch_l1<8, false, -1, true>,
     launch_l1<16, false, -1, true>},
    {"red 15 floats per lane", launch_l1<8, true, -1>, launch_l1<16, true, -1>},
    {"red 15, end's code run first", launch_l1<8, true, -1, true>, launch_l1<16, true, -1, true>},
};

}  // namespace

int main() {
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  probe_check_forms(19, kForms, buf.x[0], buf.W[0], n);
  probe_print_attributes({reinterpret_cast<const void *>(n32l1<16, false>),
                          reinterpret_cast<const void *>(n32l1<16, true>),
                          reinterpret_cast<const void *>(n32l1<8, false>)});

  probe_time_forms(19, kForms, buf, {16, 8}, 3);  // run 2: {16, 12, 8}, run 3: {16}
  return 0;
}
