// The multistage pipeline of the tiled WMMA steps (v2 on): TileLoader streams k-tiles of A and
// B into shared memory (cp.async where the tile config says so: v3 on), Pipeline runs the
// k-tile loop of one block tile with one barrier per k-tile.
#pragma once
#include "gemm/cp_async.cuh"
#include "gemm/wmma_tile.cuh"

namespace rlg {

// Streams successive ROWS x COLS tiles of a row-major matrix X (leading dimension ld) into
// smem tiles of LDS halves per row, moving by (DR, DC) elements after each tile. A thread
// owns one column of 16-byte chunks (VEC) or of elements (!VEC) and every kRowStep-th row of
// it, so the per-tile work is one pointer bump plus a bounds check per row. Out-of-range
// elements become zero.
template <class Cfg, int ROWS, int COLS, int LDS, int DR, int DC, bool VEC>
struct TileLoader {
  static constexpr int kColsPerThread = VEC ? 8 : 1;
  static constexpr int kThreadsPerRow = COLS / kColsPerThread;
  static constexpr int kRowStep = Cfg::kThreads / kThreadsPerRow;
  static constexpr int kIters = ROWS / kRowStep;
  static_assert(Cfg::kThreads % kThreadsPerRow == 0 && ROWS % kRowStep == 0, "loader split");

  const half *base;  // the matrix: the harmless source of predicated-off copies
  const half *src;   // this thread's first element of the current tile
  size_t step;       // elements between the rows it loads
  int row, col;      // matrix coordinates of src
  int dst;           // halves from the smem tile start to its first element

  TileLoader() = default;
  __device__ __forceinline__ TileLoader(const half *X, int ld, int r0, int c0) : base(X) {
    const int r = threadIdx.x / kThreadsPerRow;
    const int c = (threadIdx.x % kThreadsPerRow) * kColsPerThread;
    row = r0 + r;
    col = c0 + c;
    src = X + static_cast<size_t>(row) * ld + col;
    step = static_cast<size_t>(kRowStep) * ld;
    dst = r * LDS + c;
  }

  // The current tile of X[rows x cols] into s. !valid (a k-tile past the end): the async
  // path zero-fills (keeps the per-thread commit groups uniform), the others skip.
  __device__ __forceinline__ void load(half *s, int rows, int cols, bool valid) const {
    const bool col_ok = valid && col < cols;  // VEC: cols % 8 == 0, so the whole chunk
    if constexpr (VEC && Cfg::kAsync) {
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const bool ok = col_ok && row + i * kRowStep < rows;
        cp_async16(s + dst + i * kRowStep * LDS, ok ? src + i * step : base, ok);
      }
    } else {
      if (!valid) return;
      using T = typename std::conditional<VEC, uint4, half>::type;
      T zero;
      memset(&zero, 0, sizeof(T));
      T v[kIters];  // all loads in flight before the first store
#pragma unroll
      for (int i = 0; i < kIters; ++i) {
        const bool ok = col_ok && row + i * kRowStep < rows;
        v[i] = ok ? __ldg(reinterpret_cast<const T *>(src + i * step)) : zero;
      }
#pragma unroll
      for (int i = 0; i < kIters; ++i) *reinterpret_cast<T *>(s + dst + i * kRowStep * LDS) = v[i];
    }
  }

  __device__ __forceinline__ void advance(int ld) {
    row += DR;
    col += DC;
    src += static_cast<size_t>(DR) * ld + DC;
  }
};

// The multistage cp.async pipeline over the k-tiles of one block tile. Iteration kt waits for
// k-tile kt, then refills the buffer that iteration kt-1 computed from (every warp has passed
// the barrier, so it is free) with k-tile kt+STAGES-1, and computes k-tile kt while that copy
// is in flight. One __syncthreads per k-tile.
template <class Cfg, bool VEC>
struct Pipeline {
  using LoaderA = TileLoader<Cfg, Cfg::BM, Cfg::BK, Cfg::kLda, 0, Cfg::BK, VEC>;
  using LoaderB = TileLoader<Cfg, Cfg::BK, Cfg::BN, Cfg::kLdb, Cfg::BK, 0, VEC>;
  static constexpr bool kAsyncCopy = VEC && Cfg::kAsync;

  half *smem;
  const half *A, *B;
  int M, N, K, k_tiles;
  LoaderA load_a;
  LoaderB load_b;

  __device__ __forceinline__ Pipeline(half *smem_, const half *A_, const half *B_, int M_, int N_,
                                      int K_)
      : smem(smem_), A(A_), B(B_), M(M_), N(N_), K(K_),
        k_tiles(static_cast<int>(rl_ceil_div(K_, Cfg::BK))) {}

  // k-tiles are loaded strictly in order, so each loader just moves on after every one.
  __device__ __forceinline__ void load_next(int stage, bool valid) {
    half *s = smem + stage * Cfg::kStageHalves;
    load_a.load(s, M, K, valid);
    load_b.load(s + Cfg::kAHalves, K, N, valid);
    load_a.advance(K);
    load_b.advance(N);
    if constexpr (Cfg::kAsync) cp_async_commit();
  }

  // Aims the loaders at block tile (m0, n0) and puts its k-tiles 0 .. STAGES-2 in flight, one
  // commit group each. The buffers must be free (after drain()).
  __device__ __forceinline__ void start(int m0, int n0) { start_at(m0, n0, 0); }

  // start() from column k0 of A / row k0 of B (split-K's slices, v7; k0 % BK == 0). k_tiles counts
  // the k-tiles to load from there (the caller sets it first).
  __device__ __forceinline__ void start_at(int m0, int n0, int k0) {
    load_a = LoaderA(A, K, m0, k0);
    load_b = LoaderB(B, N, k0, n0);
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 1; ++s) load_next(s, s < k_tiles);
  }

  // acc += this warp's (wm, wn) share of the started tile. `between()` runs once per k-tile,
  // after the first k-step's MMAs are issued: room for work that overlaps them.
  template <class Between>
  __device__ __forceinline__ void run(int wm, int wn, FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                      Between &&between) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      // Groups committed so far: STAGES-1+kt. Leaving STAGES-2 pending completes k-tile kt.
      if constexpr (Cfg::kAsync) cp_async_wait<Cfg::kStages - 2>();
      __syncthreads();  // k-tile kt visible to all; every warp is done with k-tile kt-1
      const half *s = smem + (kt % Cfg::kStages) * Cfg::kStageHalves;
      const int next = kt + Cfg::kStages - 1;
      // Synchronous loads stall until their data is in registers: issue them before any
      // fragment is live. cp.async goes after the first fragment loads, whose latency its
      // address math then hides.
      if constexpr (!kAsyncCopy) load_next(next % Cfg::kStages, next < k_tiles);
      FragA a[Cfg::kFragsM];
      FragB b[Cfg::kFragsN];
      load_frags<Cfg>(s, wm, wn, 0, a, b);
      if constexpr (kAsyncCopy) load_next(next % Cfg::kStages, next < k_tiles);
      mma_frags<Cfg>(a, b, acc);
      between();
#pragma unroll
      for (int kk = 16; kk < Cfg::BK; kk += 16) {
        load_frags<Cfg>(s, wm, wn, kk, a, b);
        mma_frags<Cfg>(a, b, acc);
      }
    }
  }

  // Zero-fill copies of k-tiles past the end may still be landing, and other warps may still
  // read the last k-tile: after this the buffers are free for anything.
  __device__ __forceinline__ void drain() {
    if constexpr (Cfg::kAsync) cp_async_wait<0>();
    __syncthreads();
  }
};

}  // namespace rlg
