// Helpers shared by every .cu file: argument checks, launch error capture, small math.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"

// Return cudaErrorInvalidValue from a launcher when an argument is out of range.
#define RL_REQUIRE(cond)                                     \
  do {                                                       \
    if (!(cond)) return (int)cudaErrorInvalidValue;          \
  } while (0)

// After a <<<>>> launch: report a bad configuration (or an earlier sticky error) at once.
static inline int rl_launch_status() { return (int)cudaGetLastError(); }

static inline __host__ __device__ long long rl_ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

static inline cudaStream_t rl_stream(void *s) { return reinterpret_cast<cudaStream_t>(s); }

// Whether [a, a + an) and [b, b + bn) share a byte (a launcher's check of its outputs).
static inline bool rl_overlap(const void *a, size_t an, const void *b, size_t bn) {
  const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return pa < pb + bn && pb < pa + an;
}

// Number of SMs of the current device, cached once per process (launchers size grids by it).
int rl_sm_count();
// Whether the current device has compute capability >= 9.0 (thread-block clusters,
// programmatic dependent launch), cached once per process; false if the query fails.
bool rl_cc9_or_newer();
