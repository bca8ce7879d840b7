// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with the loop's two half-units really in flight.
// v19's SASS (scripts/sass_waits.py on its cubin; TR2 in docs/perf-log.md) puts the next
// unit's first half and x (issued inside `if (u + 1 < cntu)`) on the scoreboard of the current
// unit's second half's last four loads, hoists that second half's byte permutes above the
// branch, and copies x's next words into the current ones (xa = xb) before the second half's
// MMAs. So each unit waits at the copy for the loads it issued itself: a warp has one half-unit
// (2 KB) of W in flight most of the time, 32 KB per SM, where R1 found a slab walk at 32 KB
// ~10% over the read and at 64 KB 1-3%.
// Here (PIPE) the same units, halves and sums in the same order (bitwise v19's y):
// - the next unit's first half and x are loaded by predicated loads (no branch around them),
//   so that the code between the two halves' MMAs is one block;
// - the loop runs two units per trip with x's registers swapped between them, so no copy
//   waits for the loads just issued.
// Run TR2 (dev-2026-12-03/n32-pipe/run1-e12b446.txt) timed this loop as GEMV v20's kernel
// (gemv_slab_n32<MB, true, true>, the same SASS; the probe launched it directly then): bitwise
// v19's y, but 0.2 us *slower* than v19 at 12..16 rows and 0.1 at 2..8 in graph timing, and
// within the noise of v19 in one launch. v20 was removed again; the loop stays here.
// Usage: gemv_n32_pipe  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// 8 bytes of W (as ldg_stream8_l2), loaded only if `pred`; v keeps its value otherwise.
__device__ __forceinline__ void ldg8_l2_if(uint2 &v, const __half *p, bool pred) {
  asm("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %3, 0;\n\t"
      "@q ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];\n\t}"
      : "+r"(v.x), "+r"(v.y)
      : "l"(p), "r"((int)pred));
}

// 16 bytes of x (as __ldg), loaded only if `pred`.
__device__ __forceinline__ void ldg16_if(uint4 &v, const __half *p, bool pred) {
  asm("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %5, 0;\n\t"
      "@q ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
      : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w)
      : "l"(p), "r"((int)pred));
}

template <int MB>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32pipe(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR, LR = kN32UnitK / 4;
  __shared__ float red[kSlabWarps][32][JS + 1];
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
  uint2 wb[2][2][4] = {};      // [half-unit][group][row]
  uint4 xa[XR][2], xb[XR][2];  // x of alternate units: [8 rows of x][half]
  size_t off = 0;
  const auto load_half = [&](uint2(&w)[2][4], size_t o0, int h2, bool pred) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = o0 + (size_t)(8 * h2 + 4 * j) * N;
      ldg8_l2_if(w[j][0], w0 + o, pred);
      ldg8_l2_if(w[j][1], w1 + o, pred);
      ldg8_l2_if(w[j][2], w2 + o, pred);
      ldg8_l2_if(w[j][3], w3 + o, pred);
    }
  };
  const auto load_x = [&](uint4(&v)[XR][2], bool pred) {
#pragma unroll
    for (int r = 0; r < XR; ++r) {
      ldg16_if(v[r][0], xp[r], pred);
      ldg16_if(v[r][1], xp[r] + 8, pred);
      xp[r] += kSlabWarps * kN32UnitK;
    }
  };
  // Unit u with x words xc; issues unit u + 1's first half and x (into xn) between its halves.
  const auto unit = [&](uint4(&xc)[XR][2], uint4(&xn)[XR][2], int u) {
    load_half(wb[1], off, 1, true);
    n32_compute_half<XR>(wacc, wb[0], xc, 0);
    const bool more = u + 1 < cntu;
    load_half(wb[0], off + step, 0, more);
    load_x(xn, more);
    n32_compute_half<XR>(wacc, wb[1], xc, 1);
    off += step;
  };
#pragma unroll
  for (int r = 0; r < XR; ++r) xa[r][0] = xa[r][1] = xb[r][0] = xb[r][1] = make_uint4(0, 0, 0, 0);
  load_half(wb[0], 0, 0, cntu > 0);
  load_x(xa, cntu > 0);
  for (int u = 0; u < cntu; u += 2) {
    unit(xa, xb, u);
    if (u + 1 >= cntu) break;
    unit(xb, xa, u + 1);
  }
  n32_end_own<MB>(wacc, red, y, M, N, n0);
}

template <int MB>
void launch_pipe(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  n32pipe<MB><<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

const std::vector<ProbeForm> kForms = {
    {"v19, two half-units in flight (PIPE)", launch_pipe<8>, launch_pipe<16>},
};

}  // namespace

int main() {
  const int n = 4096;
  const GemvProbeBuffers buf(n);
  probe_fill_first_set(buf);
  probe_check_forms(19, kForms, buf.x[0], buf.W[0], n);
  probe_print_attributes({reinterpret_cast<const void *>(n32pipe<16>),
                          reinterpret_cast<const void *>(n32pipe<8>)});
  probe_time_forms(19, kForms, buf, {16, 12, 8, 4, 2}, 3);
  return 0;
}
