// Runtime helpers behind kernels.h: error strings, versions, SM count, a fault injector.
#include "common.cuh"

extern "C" const char *rl_error_string(int code) {
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}

extern "C" int rl_runtime_version(void) { return CUDART_VERSION; }

extern "C" int rl_driver_version(void) {
  int v = 0;
  cudaError_t e = cudaDriverGetVersion(&v);
  return e == cudaSuccess ? v : -(int)e;
}

extern "C" int rl_last_error(void) { return (int)cudaGetLastError(); }

int rl_sm_count() {
  static int cached = 0;  // launchers run on one device per process
  if (cached == 0) {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && n > 0)
      cached = n;
    else
      return 108;  // a sane grid size if the query fails; the launch reports the real error
  }
  return cached;
}

bool rl_cc9_or_newer() {
  static const bool yes = [] {
    int dev = 0, major = 0;
    return cudaGetDevice(&dev) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
           major >= 9;
  }();
  return yes;
}

// Writes far outside any allocation so the launch faults with an illegal address.
__global__ void rl_fault_kernel(float *p) { p[threadIdx.x] = 1.0f; }

extern "C" int rl_inject_fault(void *stream) {
  float *bad = reinterpret_cast<float *>(uintptr_t(0x10));  // never mapped
  rl_fault_kernel<<<1, 32, 0, rl_stream(stream)>>>(bad);
  return rl_launch_status();
}
