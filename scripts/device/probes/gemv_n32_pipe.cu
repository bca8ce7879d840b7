// Development probe (not part of the product): GEMV v19's 32-column slabs (gemv_slab_n32,
// 2..16 rows at N = K = 4096) with the loop's two half-units really in flight.
// v19's SASS (scripts/sass_waits.py on its cubin; TR2 in docs/perf-log.md) puts the next
// unit's first half and x (issued inside `if (u + 1 < cntu)`) on the scoreboard of the current
// unit's second half's last four loads, hoists that second half's byte permutes above the
// branch, and copies x's next words into the current ones (xa = xb) before the second half's
// MMAs. So each unit waits at the copy for the loads it issued itself: a warp has one half-unit
// (2 KB) of W in flight most of the time, 32 KB per SM, where R1 found a slab walk at 32 KB
// ~10% over the read and at 64 KB 1-3%.
// PIPE, the same units, halves and sums in the same order (bitwise v19's y):
// - the next unit's first half and x are loaded by predicated loads (no branch around them),
//   so that the code between the two halves' MMAs is one block;
// - the loop runs two units per trip with x's registers swapped between them, so no copy
//   waits for the loads just issued.
// The probe's first version (2b940b8) held its own copy of that loop; it became GEMV v20
// (gemv_slab_n32<MB, true, true> in cuda/gemv_n32.cuh, the same SASS), which the probe now
// launches directly, beside rl_gemv v19 and the read.
// Usage: gemv_n32_pipe  (N = K = 4096, where v19 runs on an H200)
#include "../../../cuda/gemv.cu"
#include "probe_bench.cuh"
#include "gemv_probe.cuh"

namespace {

template <int MB>
void launch_pipe(const __half *x, const __half *W, __half *y, int M, int n, cudaStream_t st) {
  gemv_slab_n32<MB, true, true><<<n / kN32Cols, kSlabThreads, 0, st>>>(x, W, y, M, n, n);
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
  for (auto k : {reinterpret_cast<const void *>(gemv_slab_n32<16, true, true>),
                 reinterpret_cast<const void *>(gemv_slab_n32<8, true, true>)}) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, k));
    std::printf("static smem %zu B, %d registers, %zu B local\n", a.sharedSizeBytes, a.numRegs,
                a.localSizeBytes);
  }
  probe_time_forms(19, kForms, buf, {16, 12, 8, 4, 2}, 3);
  return 0;
}
