// The blocking kernel behind the `kernel` timing mode (nvbench's technique): one thread spins
// on a flag in mapped host memory, so that everything the host enqueues behind it (the start
// event, the kernel under test, the stop event) waits in the stream and then runs back to back
// on the GPU. The events then time the kernel itself, without the host's launch latency,
// one cold launch at a time. A time limit keeps a host that never releases the flag (a
// launcher that synchronises, a crash) from hanging the GPU; the kernel says when it fired.
#include "common.cuh"

namespace {

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void block_stream_kernel(const volatile int *release, volatile int *timed_out,
                                    unsigned long long limit_ns) {
  const unsigned long long start = global_ns();
  while (*release == 0) {
    if (global_ns() - start > limit_ns) {
      *timed_out = 1;
      break;
    }
  }
  // Make the kernel under test start behind this one with nothing of ours in flight.
  __threadfence_system();
}

}  // namespace

extern "C" int rl_host_flags_alloc(int **host, int **device, int count) {
  if (host == nullptr || device == nullptr || count <= 0) return cudaErrorInvalidValue;
  void *h = nullptr;
  cudaError_t e = cudaHostAlloc(&h, sizeof(int) * count, cudaHostAllocMapped | cudaHostAllocPortable);
  if (e != cudaSuccess) return e;
  for (int i = 0; i < count; ++i) static_cast<volatile int *>(h)[i] = 0;
  void *d = nullptr;
  e = cudaHostGetDevicePointer(&d, h, 0);
  if (e != cudaSuccess) {
    cudaFreeHost(h);
    return e;
  }
  *host = static_cast<int *>(h);
  *device = static_cast<int *>(d);
  return cudaSuccess;
}

extern "C" int rl_host_flags_free(int *host) { return cudaFreeHost(host); }

extern "C" int rl_block_stream(const int *release, int *timed_out, unsigned long long limit_ns,
                               void *stream) {
  if (release == nullptr || timed_out == nullptr) return cudaErrorInvalidValue;
  block_stream_kernel<<<1, 1, 0, rl_stream(stream)>>>(release, timed_out, limit_ns);
  return rl_launch_status();
}
