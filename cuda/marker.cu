// The marker kernel of `--counters`: the probe child runs several cases under one Nsight
// Compute process and launches this kernel at the start of each case's profiled range, so
// that the parent can split ncu's rows (one per profiled kernel, in launch order) case by
// case (src/counters/parse.rs, split_at_markers). It does nothing: no memory is touched, so
// it leaves L2 as the case's warm-up launch left it. C linkage keeps its name in ncu's
// "Kernel Name" column exactly ROOFLINE_PROFILER_MARKER (src/gpu/profiler.rs).
#include "common.cuh"

extern "C" __global__ void roofline_profiler_marker() {}

extern "C" int rl_profiler_marker(void *stream) {
  roofline_profiler_marker<<<1, 1, 0, rl_stream(stream)>>>();
  return rl_launch_status();
}
