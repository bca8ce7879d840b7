// Thread-block clusters (sm_90): launch configs and residency queries for the GEMM family's
// cluster kernels (split-K over a cluster, v7; the few-row wgmma tile, v10; the warp-specialized
// kernel, v12).
#pragma once
#include <cuda_runtime.h>

#include "common.cuh"

namespace rlg {

// A launch of `grid` blocks of `threads` in clusters of `cluster` along x (attr[0] holds the
// cluster attribute; the config points at it).
inline cudaLaunchConfig_t cluster_config(unsigned grid, int threads, int smem, int cluster,
                                         cudaStream_t stream, cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3(grid, 1, 1);
  lc.blockDim = dim3(threads, 1, 1);
  lc.dynamicSmemBytes = smem;
  lc.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  lc.attrs = attr;
  lc.numAttrs = 1;
  return lc;
}

// CTAs of a cluster kernel resident at once (max active clusters x cluster size) under the
// config `lc`; 0 on error (the error cleared: it is not sticky).
template <class Kernel>
int resident_cluster_ctas(Kernel kernel, const cudaLaunchConfig_t &lc, int cluster) {
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &lc) != cudaSuccess) {
    cudaGetLastError();  // do not leave it for the next launch check
    return 0;
  }
  return clusters * cluster;
}

// CTAs of `kernel` (its shared memory limit raised) resident at once with `threads` threads and
// `smem` bytes in clusters of `cluster`: max active clusters x cluster, or without a cluster (1)
// blocks per SM x SMs; 0 on error (cleared).
template <class Kernel>
int resident_ctas(Kernel kernel, int threads, int smem, int cluster) {
  if (cluster == 1) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) !=
        cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return per_sm * rl_sm_count();
  }
  cudaLaunchAttribute attr[1];
  return resident_cluster_ctas(
      kernel, cluster_config(cluster, threads, smem, cluster, nullptr, attr), cluster);
}

// Whether the device is compute capability 9.0 (the only one the sm_90a cluster code runs
// on; elsewhere the compute_80 PTX would JIT the trapping stub), queried once.
inline bool device_is_sm90() {
  static const bool yes = [] {
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
      return false;
    return major == 9 && minor == 0;
  }();
  return yes;
}

}  // namespace rlg
