// The unfused epilogue as its own memory-bound kernel, Y[M x N] = gelu(X + bias[N]): what the
// fused family is measured against (`--impl unfused`: our GEMM, then this; `unfused_cublas`:
// cuBLAS, then this). It computes gelu(x + bias) in fp32 and rounds to fp16 once, with the
// exact forms (rl_gelu), where the fused epilogue takes the fast ones; also the host form of
// the fused erf GELU, for its CPU test.
#include "common.cuh"
#include "gelu.cuh"
#include "gemm/bias_gelu_epilogue.cuh"
#include "gemm/gemm.h"

namespace {

using rlg::pack8;
using rlg::unpack8;

template <int KIND>
__device__ __forceinline__ void bias_gelu8(float (&v)[8], const float (&b)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = rl_gelu(v[i] + b[i], KIND);
}

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

extern "C" float rl_gelu_erf_fast_host(float x) { return x / (1.0f + exp2f(rl_gelu_erf_q(x))); }

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
