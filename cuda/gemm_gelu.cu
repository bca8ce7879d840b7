// GEMM + bias + GELU. The fused kernels are the hgemm tile machinery (hgemm_tile.cuh) with a
// bias+GELU epilogue; rl_bias_gelu is the same epilogue as a standalone memory-bound kernel.
// Both compute gelu(x + bias) in fp32 and round to fp16 once; the fused epilogue's tanh form
// uses the hardware tanh (rl_gelu_fused), the standalone kernel the exact form (rl_gelu).
#include "gelu.cuh"
#include "hgemm_dispatch.cuh"

namespace {

// 8 fp16 values (16-byte aligned) -> fp32.
__device__ __forceinline__ void unpack8(const uint4 &raw, float (&f)[8]) {
  const __half2 *h2 = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = __half22float2(h2[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}

__device__ __forceinline__ uint4 pack8(const float (&f)[8]) {
  uint4 raw;
  __half2 *h2 = reinterpret_cast<__half2 *>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) h2[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
  return raw;
}

template <int KIND>
__device__ __forceinline__ void bias_gelu8(float (&v)[8], const float (&b)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = rl_gelu(v[i] + b[i], KIND);
}

// Fused epilogue: v[i] = gelu(v[i] + bias[col0 + i]) with the epilogue's GELU form
// (rl_gelu_fused). v7+ apply it per value (apply1): the pipelined kernels on their parked
// tile where it fits in the pipeline smem, else in registers; the older kernels per chunk
// (apply).
// V20 (GEMM+GELU v20): the parked epilogue runs as a loop (kRolledEpilogue), and the erf form
// goes through rl_gelu_erf_fast instead of erff in the tile kernels' epilogues (the slabs, at
// <= 64 rows, keep erff: a few thousand values per CTA).
// V23 (GEMM+GELU v23): with the tanh form a warp tile inside C is parked in 4 row parts
// (kParkParts), each part applied and stored before the next is parked (epilogue_parked in
// hgemm_tile.cuh); the same values. The erf form keeps v22's whole-tile park: its longer chain
// in 4 copies of the loop (one per part) made 2048³ 14% slower in run PK (the kernel's SASS grows
// from 4272 to 5952 instructions, run once per CTA: instruction fetch, a reading), though the
// probe's run PR found it 0.2-0.4 us faster than v22's (docs/perf-log.md): not settled.
template <int KIND, bool V20 = false, bool V23 = false>
struct EpiBiasGelu {
  static constexpr bool kFastErf = V20 && KIND == 1;
  static constexpr bool kColOperand = true;
  static constexpr bool kRolledEpilogue = V20;
  static constexpr int kParkParts = V23 && KIND == 0 ? 4 : 1;
  static constexpr bool kLeanLoop = V23;  // v23+ only: v26's lean loop is built for this one
  const half *bias;

  __host__ __device__ const half *col_operand() const { return bias; }
  // The tanh form takes bias / 2 (prep, once per column in registers): gelu(v + b) is then
  // rl_gelu_tanh_fast_half(fmaf(v, 0.5, b / 2)), one FFMA for the add and the halving.
  __device__ __forceinline__ float prep(float b) const { return rl_bias_gelu_prep(b, KIND); }
  __device__ __forceinline__ float apply1(float v, float op) const {
    if constexpr (KIND == 0 || kFastErf) return rl_bias_gelu_fast(v, op, KIND);
    return rl_gelu_erf(v + op);
  }

  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], int col0, int N) const {
    float b[8];
    if constexpr (VEC) {
      unpack8(__ldg(reinterpret_cast<const uint4 *>(bias + col0)), b);
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) b[i] = col0 + i < N ? __half2float(__ldg(bias + col0 + i)) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) v[i] = apply1(v[i], prep(b[i]));
  }

  bool vec_ok() const { return rlg::aligned_to(bias, 16); }
  SlabEpi slab_epi() const { return {bias, KIND}; }
};

const char *const kNames[rlg::kVariantCount] = {
    "v1 wmma 16x16 per warp + bias+GELU epilogue",
    "v2 smem 128x128, sync loads + bias+GELU epilogue",
    "v3 cp.async 4-stage 128x128 + bias+GELU epilogue",
    "v4 128x256, 64x64 warp tiles + bias+GELU epilogue",
    "v5 auto tile (v4 or smaller when SMs idle) + bias+GELU epilogue",
    "v6 persistent 128x256, epilogue overlapped with the next tile + bias+GELU epilogue",
    "v7 pipelined 128x256x64, double-buffered fragments + bias+GELU epilogue",
    "v8 pipelined 128x128x32, 2 blocks per SM + bias+GELU epilogue",
    "v9 pipelined 128x256x32, 5 stages + bias+GELU epilogue",
    "v10 pipelined loop, tile chosen per shape + bias+GELU epilogue",
    "v11 cluster split-K (DSMEM reduce, then one bias+GELU on the full sums)",
    "v12 v11 with a 128x128 tile split 2 ways as a further candidate + bias+GELU epilogue",
    "v13 v12 with a 256x128 block tile among the candidates + bias+GELU epilogue",
    "v14 v13, with M <= 16 on the GEMV's slab kernels, bias+GELU at their store",
    "v15 v14 with a 128x128 tile of 8 warps split 2 ways among the mid-M candidates + bias+GELU",
    "v16 v15, with 9..64 rows on the GEMV's TMA slabs, bias+GELU at their store",
    "v17 v16 with the slabs' clusters pushing their partial sums, bias+GELU at the store",
    "v18 v17 with 2..8 rows on GEMV v14's slab loop, bias+GELU at the store",
    "v19 v18 with the bias staged in smem at the start (TMA slabs: a bulk copy; 128x128 split-K: cp.async)",
    "v20 v19 with the parked epilogue as a loop, and the erf form's GELU as a logistic polynomial (ex2 + rcp) instead of erff",
    "v21 v20 with the slabs' clusters sending their partial sums by st.async, one row staging x first (GEMV v15)",
    "v22 v21 with 65..512 rows (where v21 splits K over a cluster) on a wgmma 128x64 tile over all of K, bias+GELU at its store: not WMMA",
    "v23 v22 with the parked epilogue in 4 row parts, each stored before the next is parked (tanh form; erf as v22)",
    "v24 v23 with 17..64 rows on a 64x64 wgmma tile, K split over a cluster of 1-4 CTAs, bias+GELU at its store: not WMMA",
    "v25 v24 with the few-row tile one kernel for the plain and the fused family (bias and GELU chosen at run time)",
    "v26 v25 with whole-tile shapes on the 256x128 tile in a lean loop (ring unrolled, no bounds predicates)",
    "v27 best: v26 with the lean loop's last k-step stage offset opaque to the compiler (its copy sources kept apart)",
};

template <int KIND>
int fused(int variant, const void *A, const void *B, const void *bias, void *C, int M, int N,
          int K, void *stream) {
  const half *b = static_cast<const half *>(bias);
  if (variant >= 23)  // v22's kernels (v24+: the few-row tile; v26: the lean loop), v23's epilogue
    return rlg::launch_variant_v14_on(variant, A, B, C, M, N, K, EpiBiasGelu<KIND, true, true>{b},
                                      stream);
  if (variant >= 20)  // v19's kernels with v20's epilogue (EpiBiasGelu's V20)
    return rlg::launch_variant_v14_on(variant, A, B, C, M, N, K, EpiBiasGelu<KIND, true>{b},
                                      stream);
  return rlg::launch_variant(variant, A, B, C, M, N, K, EpiBiasGelu<KIND>{b}, stream);
}

// ---- rl_bias_gelu ----
// A thread owns one 8-column chunk (VEC) or one column, keeps its bias in registers and walks
// rows blockIdx.y, +gridDim.y, ... two at a time (both loads issued before either store; X
// may alias Y, but each element is only touched by its owner, read before written).
constexpr int kBgThreads = 256;

template <int KIND, bool VEC>
__global__ void __launch_bounds__(kBgThreads)
    bias_gelu_kernel(const half *X, const half *__restrict__ bias, half *Y, int M, int N) {
  constexpr int kCols = VEC ? 8 : 1;
  const long long col0 = (static_cast<long long>(blockIdx.x) * kBgThreads + threadIdx.x) * kCols;
  if (col0 >= N) return;
  const int c = static_cast<int>(col0);
  const size_t gap = static_cast<size_t>(gridDim.y) * N;  // between a thread's two rows
  int r = blockIdx.y;
  if constexpr (VEC) {
    float b[8];
    unpack8(__ldg(reinterpret_cast<const uint4 *>(bias + c)), b);
    for (; r + static_cast<int>(gridDim.y) < M; r += 2 * gridDim.y) {
      const size_t off = static_cast<size_t>(r) * N + c;
      const uint4 x0 = *reinterpret_cast<const uint4 *>(X + off);
      const uint4 x1 = *reinterpret_cast<const uint4 *>(X + off + gap);
      float v0[8], v1[8];
      unpack8(x0, v0);
      unpack8(x1, v1);
      bias_gelu8<KIND>(v0, b);
      bias_gelu8<KIND>(v1, b);
      *reinterpret_cast<uint4 *>(Y + off) = pack8(v0);
      *reinterpret_cast<uint4 *>(Y + off + gap) = pack8(v1);
    }
    if (r < M) {
      const size_t off = static_cast<size_t>(r) * N + c;
      float v[8];
      unpack8(*reinterpret_cast<const uint4 *>(X + off), v);
      bias_gelu8<KIND>(v, b);
      *reinterpret_cast<uint4 *>(Y + off) = pack8(v);
    }
  } else {
    const float b = __half2float(__ldg(bias + c));
    for (; r + static_cast<int>(gridDim.y) < M; r += 2 * gridDim.y) {
      const size_t off = static_cast<size_t>(r) * N + c;
      const float x0 = __half2float(X[off]), x1 = __half2float(X[off + gap]);
      Y[off] = __float2half_rn(rl_gelu(x0 + b, KIND));
      Y[off + gap] = __float2half_rn(rl_gelu(x1 + b, KIND));
    }
    if (r < M) {
      const size_t off = static_cast<size_t>(r) * N + c;
      Y[off] = __float2half_rn(rl_gelu(__half2float(X[off]) + b, KIND));
    }
  }
}

template <int KIND, bool VEC>
int launch_bias_gelu(const half *X, const half *bias, half *Y, int M, int N, cudaStream_t s) {
  constexpr int kCols = VEC ? 8 : 1;
  constexpr auto *kernel = &bias_gelu_kernel<KIND, VEC>;
  // One full wave of resident blocks (queried once), each thread taking at least two rows.
  static const int per_sm = [] {
    int n = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kBgThreads, 0);
    return e == cudaSuccess && n > 0 ? n : 4;
  }();
  const long long gx = rl_ceil_div(rl_ceil_div(N, kCols), kBgThreads);
  const long long want = rl_ceil_div(static_cast<long long>(per_sm) * rl_sm_count(), gx);
  long long gy = rl_ceil_div(M, 2);
  if (gy > want) gy = want;
  if (gy > 65535) gy = 65535;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  kernel<<<grid, kBgThreads, 0, s>>>(X, bias, Y, M, N);
  return rl_launch_status();
}

template <int KIND>
int bias_gelu(const half *X, const half *bias, half *Y, int M, int N, cudaStream_t s) {
  const bool vec = N % 8 == 0 && rlg::aligned_to(X, 16) && rlg::aligned_to(Y, 16) &&
                   rlg::aligned_to(bias, 16);
  return vec ? launch_bias_gelu<KIND, true>(X, bias, Y, M, N, s)
             : launch_bias_gelu<KIND, false>(X, bias, Y, M, N, s);
}

}  // namespace

extern "C" int rl_gemm_bias_gelu(int variant, const void *A, const void *B, const void *bias,
                                 void *C, int M, int N, int K, int gelu_kind, void *stream) {
  RL_REQUIRE(bias != nullptr);
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  return gelu_kind == 0 ? fused<0>(variant, A, B, bias, C, M, N, K, stream)
                        : fused<1>(variant, A, B, bias, C, M, N, K, stream);
}

extern "C" float rl_gelu_erf_fast_host(float x) { return x / (1.0f + exp2f(rl_gelu_erf_q(x))); }

extern "C" int rl_gemm_bias_gelu_variant_count(void) { return rlg::kVariantCount; }

extern "C" const char *rl_gemm_bias_gelu_variant_name(int variant) {
  return variant >= 1 && variant <= rlg::kVariantCount ? kNames[variant - 1] : nullptr;
}

extern "C" int rl_bias_gelu(const void *X, const void *bias, void *Y, int M, int N,
                            int gelu_kind, void *stream) {
  RL_REQUIRE(X != nullptr && bias != nullptr && Y != nullptr);
  RL_REQUIRE(M >= 1 && N >= 1);
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  const half *x = static_cast<const half *>(X);
  const half *b = static_cast<const half *>(bias);
  half *y = static_cast<half *>(Y);
  return gelu_kind == 0 ? bias_gelu<0>(x, b, y, M, N, rl_stream(stream))
                        : bias_gelu<1>(x, b, y, M, N, rl_stream(stream));
}
