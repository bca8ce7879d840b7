// Stream-K for the warp-specialized kernel (HGEMM v15, hgemm_15_stream_k.cuh): the mechanics.
// A launch's cluster tiles are numbered in the kernel's raster order; the first sk_tiles of them
// are not given whole to one cluster but cut along K: their sk_tiles x k_tiles iterations (one
// k-tile of one tile each) are split into W contiguous ranges, one per resident cluster, so
// every cluster gets the same number of iterations; the other tiles follow whole, a wave each
// (W of them), as in v12-v14. A cluster's range covers the end of one tile, whole tiles, and the
// start of another: a unit (tile, k0, k1) per tile it touches, walked first.
//
// The sums of a tile cut into units meet in global memory (the Stream-K paper's "fixup": Osama
// et al., PPoPP 2023): a unit that did not start its tile (k0 > 0) stores its fp32 sums in its
// cluster's slot and raises its flag; the unit that started the tile (k0 = 0, the owner) waits
// for the flags of the clusters after it that hold the rest of the tile, adds their sums in
// cluster order (the same result every run), resets the flags and runs the family's functor
// and store. A cluster's range starts with the end of a tile (its only contribution, before
// anything it waits for) and ends with the start of another (where it may wait, for clusters
// whose first unit that is): no cluster waits on one that waits, and every cluster is resident
// (the grid is W clusters), so the waits end. One slot per consumer warpgroup of each CTA
// (its 64 x BN sums), as each cluster contributes at most once per launch.
//
// The workspace (slots and flags) is per device and stream, allocated on the first launch there
// (flags zeroed once, on that stream: every launch leaves them zero) and kept for the life of
// the process; a stream being captured into a graph cannot allocate, so v15 runs v14's paths
// there until a launch outside capture has made it.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace rlg {

// The widest tile whose sums fit a slot (64 rows x BN fp32 per consumer warpgroup).
constexpr int kWsSkMaxBN = 256;

// What a launch passes the kernel: sk_tiles 0 (v12-v14, and v15 where it does not cut) runs
// every tile whole.
struct WsSkArgs {
  float *partials = nullptr;  // a slot of 64 x kWsSkMaxBN floats per (cluster, CTA, warpgroup)
  unsigned *flags = nullptr;  // one per slot: 1 while its sums wait for their owner
  int sk_tiles = 0;           // the first sk_tiles cluster tiles are cut along K
  long long sk_iters = 0;     // sk_tiles x k_tiles
};

// The first iteration of cluster c's range (of W): ranges differ by at most one iteration.
__host__ __device__ __forceinline__ long long ws_sk_start(int c, int W, long long iters) {
  return static_cast<long long>(c) * iters / W;
}

// Whether cluster c of W has any iteration of the cut tiles (every one has when iters >= W).
__host__ __device__ __forceinline__ bool ws_sk_has_range(int c, int W, long long iters) {
  return ws_sk_start(c, W, iters) < ws_sk_start(c + 1, W, iters);
}

// The cluster whose range holds the last iteration of cut tile `tile`.
__host__ __device__ __forceinline__ int ws_sk_last_cluster(int tile, int k_tiles, int W,
                                                           long long iters) {
  const long long tile_end = static_cast<long long>(tile + 1) * k_tiles;
  return static_cast<int>((tile_end * W - 1) / iters);
}

// Calls f(tile, k0, k1) for each unit of cluster c of W, in order: its stream-K range (when
// SK and sk.sk_tiles > 0), then its whole tiles. Without SK this is v12's loop over tiles.
// (Host and device: rl_gemm_stream_k_units_check walks it on the CPU.)
template <bool SK, class F>
__host__ __device__ __forceinline__ void ws_for_units(int c, int W, int total, int k_tiles,
                                                      const WsSkArgs &sk, F &&f) {
  int first_whole = 0;
  if constexpr (SK) {
    first_whole = sk.sk_tiles;
    long long it = ws_sk_start(c, W, sk.sk_iters);
    const long long end = ws_sk_start(c + 1, W, sk.sk_iters);
    while (it < end) {
      const int tile = static_cast<int>(it / k_tiles);
      const long long base = static_cast<long long>(tile) * k_tiles;
      const long long stop = end < base + k_tiles ? end : base + k_tiles;
      f(tile, static_cast<int>(it - base), static_cast<int>(stop - base));
      it = stop;
    }
  }
  for (int t = first_whole + c; t < total; t += W) f(t, 0, k_tiles);
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ unsigned ws_sk_ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Every thread's sums of this warpgroup are in memory before its flag (named barrier, then a
// gpu-scope release by one thread: CUTLASS's generic barrier does the same).
__device__ __forceinline__ void ws_sk_raise(unsigned *flag, int bar_id) {
  asm volatile("bar.sync %0, 128;" ::"r"(bar_id) : "memory");
  if (threadIdx.x % 128 == 0)
    asm volatile("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(1u)
                 : "memory");
}

// A unit that did not start its tile: its sums (d: the m64nBN accumulator layout, ACC per
// thread) into its slot, thread-major in float4s (each warp's 16-byte stores contiguous), then
// its flag. L2 only (st.cg): the owner on another SM reads them from there.
template <int ACC>
__device__ __forceinline__ void ws_sk_contribute(const float (&d)[ACC], const WsSkArgs &sk,
                                                 int slot, int bar_id) {
  const int t = threadIdx.x % 128;
  float4 *p = reinterpret_cast<float4 *>(sk.partials + static_cast<size_t>(slot) * 64 * kWsSkMaxBN);
#pragma unroll
  for (int i = 0; i < ACC / 4; ++i)
    __stcg(p + i * 128 + t, make_float4(d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]));
  ws_sk_raise(sk.flags + slot, bar_id);
}

// The owner of `tile` (this cluster c started it and stopped before its end): the sums of the
// clusters after it that hold the tile's other iterations, added in cluster order. sub: this
// warpgroup's slot within a cluster (rank x 2 + consumer warpgroup). Thread 0 waits on each
// flag and resets it (no unit of this launch writes that slot again; the next launch, ordered
// after this one, finds it zero); the named barrier then lets the warpgroup read the slot.
template <int ACC, int CL>
__device__ __forceinline__ void ws_sk_gather(float (&d)[ACC], const WsSkArgs &sk, int c, int W,
                                             int tile, int k_tiles, int sub, int bar_id) {
  const int t = threadIdx.x % 128;
  const int last = ws_sk_last_cluster(tile, k_tiles, W, sk.sk_iters);
  for (int c2 = c + 1; c2 <= last; ++c2) {
    if (!ws_sk_has_range(c2, W, sk.sk_iters)) continue;
    const int slot = c2 * CL * 2 + sub;
    if (t == 0) {
      while (ws_sk_ld_acquire(sk.flags + slot) == 0) __nanosleep(40);
      sk.flags[slot] = 0;
    }
    asm volatile("bar.sync %0, 128;" ::"r"(bar_id) : "memory");
    const float4 *p =
        reinterpret_cast<const float4 *>(sk.partials + static_cast<size_t>(slot) * 64 * kWsSkMaxBN);
#pragma unroll
    for (int i = 0; i < ACC / 4; ++i) {
      const float4 v = __ldcg(p + i * 128 + t);
      d[4 * i] += v.x;
      d[4 * i + 1] += v.y;
      d[4 * i + 2] += v.z;
      d[4 * i + 3] += v.w;
    }
  }
}
#endif

// The schedule's invariants, walked on the host for `total` cluster tiles of `k_tiles` over W
// clusters with the first sk_tiles cut (rl_gemm_stream_k_units_check, its CPU tests): 0 when
// every (tile, k-tile) is one unit's exactly once, a cluster's only unit that did not start
// its tile (k0 > 0) is its first, and each owner (k0 = 0, k1 < k_tiles) gathers exactly the
// clusters that hold the rest of its tile; 1 bad arguments, 2 coverage, 3 a contribution not
// first or twice, 4 an owner's set, 5 a cut tile without its owner.
inline int ws_sk_units_check(int total, int W, int k_tiles, int sk_tiles) {
  if (total < 1 || W < 1 || k_tiles < 1 || sk_tiles < 0 || sk_tiles > total ||
      static_cast<long long>(total) * k_tiles > (1LL << 24))
    return 1;
  WsSkArgs sk;
  sk.sk_tiles = sk_tiles;
  sk.sk_iters = static_cast<long long>(sk_tiles) * k_tiles;
  std::vector<int> covered(static_cast<size_t>(total) * k_tiles, 0), owner(total, -1);
  std::vector<std::vector<int>> contributors(total);
  int bad = 0;
  for (int c = 0; c < W; ++c) {
    int index = 0;
    ws_for_units<true>(c, W, total, k_tiles, sk, [&](int t, int k0, int k1) {
      if (t < 0 || t >= total || k0 < 0 || k1 > k_tiles || k0 >= k1) {
        bad = bad ? bad : 2;
        return;
      }
      for (int k = k0; k < k1; ++k) ++covered[static_cast<size_t>(t) * k_tiles + k];
      if (k0 > 0) {
        if (index != 0) bad = bad ? bad : 3;
        contributors[t].push_back(c);
      } else if (k1 < k_tiles) {
        if (owner[t] >= 0) bad = bad ? bad : 4;
        owner[t] = c;
      }
      ++index;
    });
  }
  if (bad) return bad;
  for (int v : covered)
    if (v != 1) return 2;
  for (int t = 0; t < total; ++t) {
    if (contributors[t].empty()) continue;
    if (owner[t] < 0) return 5;
    std::vector<int> want;
    for (int c2 = owner[t] + 1; c2 <= ws_sk_last_cluster(t, k_tiles, W, sk.sk_iters); ++c2)
      if (ws_sk_has_range(c2, W, sk.sk_iters)) want.push_back(c2);
    std::sort(contributors[t].begin(), contributors[t].end());
    if (want != contributors[t]) return 4;
  }
  return 0;
}

// The workspace for `slots` slots on this device and stream: false (nothing to use) where it
// cannot be had: a stream being captured, no memory, more than kStreams streams seen.
inline bool ws_sk_workspace(cudaStream_t stream, int slots, WsSkArgs *sk) {
  constexpr int kStreams = 8;
  struct Entry {
    int device;
    cudaStream_t stream;
    int slots;
    float *partials;
    unsigned *flags;
  };
  static std::mutex mu;
  static Entry cache[kStreams];
  static int used = 0;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  const std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < used; ++i)
    if (cache[i].device == device && cache[i].stream == stream && cache[i].slots >= slots) {
      sk->partials = cache[i].partials;
      sk->flags = cache[i].flags;
      return true;
    }
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone ||
      used == kStreams) {
    (void)cudaGetLastError();
    return false;
  }
  float *partials = nullptr;
  unsigned *flags = nullptr;
  const size_t bytes = static_cast<size_t>(slots) * 64 * kWsSkMaxBN * sizeof(float);
  if (cudaMalloc(&partials, bytes) != cudaSuccess ||
      cudaMalloc(&flags, slots * sizeof(unsigned)) != cudaSuccess ||
      cudaMemsetAsync(flags, 0, slots * sizeof(unsigned), stream) != cudaSuccess) {
    (void)cudaGetLastError();
    cudaFree(partials);
    cudaFree(flags);
    return false;
  }
  cache[used++] = Entry{device, stream, slots, partials, flags};
  sk->partials = partials;
  sk->flags = flags;
  return true;
}

}  // namespace rlg
