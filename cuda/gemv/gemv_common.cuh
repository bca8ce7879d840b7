// What every step of the GEMV ladder shares: the constants, then the kernels and their host
// side, in the order they build on each other (each part relies on the ones before it):
//   gemv_fma.cuh       W loads that skip L1, K splits, the split-K finish, the scalar-column
//                      fallback (N % 8 != 0 or W unaligned) and the FMA kernel (v2, v3)
//   gemv_mma.cuh       the tensor-core kernel, mma.sync on W fragments (v4)
//   gemv_reg_slabs.cuh the register slabs: a 512-thread block streams all of K (or half of it
//                      in a (1, 2) cluster) for 64 columns (v5..v7, v9..v12)
//   gemv_n32.cuh       the 32-column slabs over all of K, no cluster (v13, v14)
//   gemv_tma_slab.cuh  the TMA slabs, W and x through a TMA ring in shared memory (v8)
//   gemv_host.cuh      occupancy and cluster queries, the slab plan, launch helpers, and one
//                      launch's arguments (Rows)
//   gemv_tma_host.cuh  the TMA slabs' tensor maps and launch
// The steps' launchers are in gemv_NN_<name>.cuh, the variant table in gemv.cu.
#pragma once
#include <cooperative_groups.h>

#include <cuda.h>

#include <atomic>
#include <climits>

#include "common.cuh"
#include "gemv/gemv.h"
#include "gemv/gemv_slabs_api.cuh"
#include "tma.cuh"
#include "tma_host.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kTileN = 64;     // columns per block: 8 lanes x 8 halves = one 128-byte line per row
constexpr int kMaxRows = 16;   // rows of x per launch
constexpr int kMaxSplitsWs = 32;       // split-K cap with the workspace
constexpr int kMaxSplitsCluster = 8;   // portable cluster size (the cluster query cache)
constexpr int kMinQuadsPerWarp = 4;    // below this a split adds more reduction than it saves
// gemv_mma: 2 blocks x 256 threads x 12..16 loads x 16 B = 96..128 KiB of W in flight per SM
// (13..17 MiB on 132 SMs, 3-4x what HBM latency needs) within 128 registers. (3 blocks x 8
// loads, 80 registers, spills.)
constexpr int kMmaBlocksPerSm = 2;
template <int MB>
constexpr int kMmaUnroll = MB == 16 ? 3 : 4;  // groups of 16 rows per loop step

}  // namespace

#include "gemv/gemv_fma.cuh"
#include "gemv/gemv_mma.cuh"
#include "gemv/gemv_reg_slabs.cuh"
#include "gemv/gemv_n32.cuh"
#include "gemv/gemv_tma_slab.cuh"
#include "gemv/gemv_host.cuh"
#include "gemv/gemv_tma_host.cuh"
