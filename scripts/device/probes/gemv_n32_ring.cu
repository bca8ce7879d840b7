// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with a deeper ring of W in flight. v19 keeps one half-unit
// (8 loads of 8 bytes of W per lane) issued ahead of the one it multiplies, so between one and
// two half-units are in flight per lane: 32-64 KB per SM. R1 (read_shapes.cu) measured a slab
// walk 10% slower than contiguous reads with 32 KB per SM in flight, 1-3% with 64 KB, none
// with 128 KB; NE2 put v19's walk without its end at 10.4-10.5 us against the read's 10.0
// (graph, 16 rows). Here the walk is a ring of D half-unit steps, each step's W (16 registers)
// and its own x word per 8 rows (XR x 16 bytes: v19 loads both halves' x with the first), the
// next D - 1 steps issued before a step is multiplied (D = 2 is v19's depth):
//   D 2 / 3 / 4: 32-64 / 64-96 / 96-128 KB per SM in flight at 16 warps.
// The unit order, the MMAs and the end (n32_end_own) are v19's: bitwise v19's y (checked).
// Run 1, NE5 (docs/results/h200/dev-2026-12-02/n32-ring/run1.txt, three runs): D 2 / 3 / 4
// 0.42-0.44 / 0.40-0.42 / 1.03-1.06 us slower than v19 at 16 rows and 0.51-0.55 us at 8 (graph),
// D 3 no faster than D 2: the depth of the ring is not what holds the walk back. D 2 has v19's
// depth and differs from it in loading each half's x word on its own (a lane's two words of
// one 32-byte sector a step apart) and in computing each step's offsets afresh; which of the
// two costs its ~0.45 us was not separated. Not taken into the product; D 4 left the list.
// Run 2 (NE6): the sector order. v19's lane t takes rows 16t + 8h .. 16t + 8h + 7 of half h of
// a unit, so each of its two 16-byte x loads per 8 rows of x touches 16 bytes of each of four
// 32-byte sectors per row (the lanes t = 0..3 at a 32-byte stride), the second load the other
// halves. With lane t on rows 8t .. 8t + 7 of each half (the k order of the MMAs changes, not
// what they sum), one load of the four lanes reads 64 contiguous bytes: two whole sectors.
// Candidates: v19's loop in that order, and the rings of D 2 / 3 in it. Run 2, NE6 (run2.txt,
// three runs, graph, over v19): v19's loop in the sector order +0.58-0.64 us at 16 rows and
// +0.38-0.43 at 8, slower; the rings the same in either order (within 0.07 us). So v19's split
// sectors are not a cost, and D 2's loss against v19 is its step structure. Not kept.
// Usage: gemv_n32_ring  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

// One step's MMAs: v19's n32_compute_half with the step's own x words (xh[h] = xa[h][h2]).
template <int XR>
__device__ __forceinline__ void ring_compute(WaAcc (&wacc)[XR], const uint2 (&w)[2][4],
                                             const uint4 (&xh)[XR]) {
#pragma unroll
  for (int j = 0; j < 2; ++j)
#pragma unroll
    for (int h = 0; h < XR; ++h) {
      const uint4 v = xh[h];
      wa_group_compute(wacc[h], w[j], j == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w));
    }
}

template <int MB, int D, bool SO = false>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32ring(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, UR = kN32UnitK, LR = UR / 4;
  __shared__ float red[kSlabWarps][32][8 * XR + 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / UR;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const int S = 2 * cntu;  // half-unit steps
  const size_t step = (size_t)kSlabWarps * UR * N;
  const int lr = SO ? 8 : LR, hr = SO ? UR / 2 : 8;  // lane t's rows: lr * t + hr * h2 + 0..7
  const __half *w0 = W + (size_t)(warp * UR + lr * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r)
    xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * UR + lr * t;
  WaAcc wacc[XR] = {};
  uint2 wb[D][2][4];
  uint4 xb[D][XR];
  const auto issue = [&](int s, uint2(&w)[2][4], uint4(&xv)[XR]) {
    const int u = s >> 1, h2 = s & 1;
    const size_t off = (size_t)u * step;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(hr * h2 + 4 * j) * N;
      w[j][0] = ldg_stream8_l2(w0 + o);
      w[j][1] = ldg_stream8_l2(w1 + o);
      w[j][2] = ldg_stream8_l2(w2 + o);
      w[j][3] = ldg_stream8_l2(w3 + o);
    }
#pragma unroll
    for (int r = 0; r < XR; ++r)
      xv[r] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + (size_t)u * kSlabWarps * UR + hr * h2));
  };
#pragma unroll
  for (int k = 0; k < D - 1; ++k)
    if (k < S) issue(k, wb[k], xb[k]);
  for (int s0 = 0; s0 < S; s0 += D) {
#pragma unroll
    for (int k = 0; k < D; ++k) {
      const int s = s0 + k;
      if (s < S) {
        if (s + D - 1 < S) issue(s + D - 1, wb[(k + D - 1) % D], xb[(k + D - 1) % D]);
        ring_compute<XR>(wacc, wb[k], xb[k]);
      }
    }
  }
  n32_end_own<MB>(wacc, red, y, M, N, n0);
}

template <int MB, int D, bool SO = false>
void launch_ring(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  n32ring<MB, D, SO><<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

// v19's kernel (gemv_slab_n32<MB, true>) with the sector order: lane t takes rows 8t .. 8t + 7
// of each half-unit (v19: 16t + 8h .. 16t + 8h + 7), so that one 16-byte x load of the four
// lanes t covers 64 contiguous bytes of a row (two whole sectors) where v19's two loads each
// touch four sectors (16 bytes of each); W's loads still cover 4 rows x 64 bytes each.
template <int MB>
__global__ void __launch_bounds__(kSlabThreads, 1)
    n32so(const __half *x, const __half *W, __half *y, int M, int N, int K) {
  constexpr int XR = MB / 8, JS = 8 * XR;
  __shared__ float red[kSlabWarps][32][JS + 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kN32Cols;
  const int n = min(n0 + g * 4, N - 4);
  const int units = K / kN32UnitK;
  const int cntu = warp < units ? (units - warp + kSlabWarps - 1) / kSlabWarps : 0;
  const size_t step = (size_t)kSlabWarps * kN32UnitK * N;
  const __half *w0 = W + (size_t)(warp * kN32UnitK + 8 * t) * N + n;
  const __half *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;
  const __half *xp[XR];
#pragma unroll
  for (int r = 0; r < XR; ++r)
    xp[r] = x + (size_t)min(g + 8 * r, M - 1) * K + warp * kN32UnitK + 8 * t;
  WaAcc wacc[XR] = {};
  uint2 wb[2][2][4];
  uint4 xa[XR][2], xb[XR][2];
  size_t off = 0;
  const auto load_half = [&](uint2(&w)[2][4], int h2) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const size_t o = off + (size_t)(32 * h2 + 4 * j) * N;
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
      v[r][1] = __ldg(reinterpret_cast<const uint4 *>(xp[r] + 32));
      xp[r] += kSlabWarps * kN32UnitK;
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
      off += step;
      load_half(wb[0], 0);
      load_x(xb);
    }
    n32_compute_half<XR>(wacc, wb[1], xa, 1);
#pragma unroll
    for (int r = 0; r < XR; ++r) xa[r][0] = xb[r][0], xa[r][1] = xb[r][1];
  }
  n32_end_own<MB>(wacc, red, y, M, N, n0);
}

template <int MB>
void launch_so(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  n32so<MB><<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
  CK(cudaGetLastError());
}

using Launch = void (*)(const __half *, const __half *, __half *, int, int, cudaStream_t);

struct Ring {
  const char *name;
  Launch l8, l16;
  bool bitwise;  // the sums in v19's order (else the MMAs see W's rows in another k order)
};
const Ring kRings[] = {
    {"v19 in the sector order", launch_so<8>, launch_so<16>, false},
    {"ring D 2", launch_ring<8, 2>, launch_ring<16, 2>, true},
    {"ring D 2, sector order", launch_ring<8, 2, true>, launch_ring<16, 2, true>, false},
    {"ring D 3, sector order", launch_ring<8, 3, true>, launch_ring<16, 3, true>, false},
};

// On random data at M = 2, 8, 13, 16: every candidate against rl_gemv v19, bitwise where it
// sums in v19's order, else within fp16 rounding.
void check(const __half *x, const __half *W, int n) {
  __half *y0, *y1;
  const size_t count = (size_t)16 * n;
  CK(cudaMalloc(&y0, count * 2));
  CK(cudaMalloc(&y1, count * 2));
  for (int M : {2, 8, 13, 16}) {
    CK(cudaMemset(y0, 0xff, count * 2));
    CK((cudaError_t)rl_gemv(19, x, W, y0, nullptr, M, n, n, 0));
    CK(cudaDeviceSynchronize());
    for (const Ring &r : kRings) {
      CK(cudaMemset(y1, 0xff, count * 2));
      (M <= 8 ? r.l8 : r.l16)(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      const std::string label = std::string(r.name) + " vs rl_gemv v19, M = " + std::to_string(M);
      if (r.bitwise)
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
    cases.push_back({"product gemv v19, M=" + std::to_string(M), [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(19, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
    for (const Ring &r : kRings) {
      const Launch l = M <= 8 ? r.l8 : r.l16;
      cases.push_back({std::string(r.name) + ", M=" + std::to_string(M),
                       [=](int i, cudaStream_t st) { l(x[i], W[i], y, M, n, st); }});
    }
    for (int run = 0; run < 3; ++run) probe_run(cases, buf.sets, (double)bytes, s);
  }
  return 0;
}
