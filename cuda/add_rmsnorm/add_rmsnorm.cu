// Fused residual add + RMSNorm (vLLM's fused_add_rms_norm), the decode-time op between every two
// blocks of a modern LLM. For each row r of `hidden` fp16 values:
//   s = x[r, :] + res[r, :] in fp32;  h[r, :] = fp16(s)
//   y[r, :] = fp16(fp32(h[r, :]) * rsqrt(mean(s^2) + eps) * w[:])
// The statistics come from the unrounded fp32 sum; the output scales the fp16 h that was stored,
// as vLLM's kernel does. fp16 in and out, fp32 arithmetic throughout.
//
// Byte model: x and res read once, h and y written once, w read once from HBM (every other row
// finds it in L1/L2): 8 rows hidden + 2 hidden bytes. Nothing is reused, so the floor is that
// traffic at copy bandwidth: one pass over HBM, enough bytes in flight per SM, and nothing on a
// row's path that the loads of the rows beside it cannot hide.
//
// v1: one CTA per row, the row held in registers. Thread t owns the 16-byte vectors
//     c = t + j T (j < VPT) of the row; VPT and the block size T are template constants picked
//     from hidden (T = 32 up to hidden 1024: one warp, no barrier; then 64..1024 threads with
//     3 or 4 vectors each, up to hidden 32768), so the register arrays are indexed by constants
//     only. A thread loads all its x and res vectors at once (up to 128 bytes in flight, the
//     depth at which layernorm v4 reaches copy bandwidth), sums them in fp32, stores h at once
//     (the stores drain while the block reduces), fetches its w vectors (L1/L2 hits whose
//     latency overlaps the reduction), reduces the sum of squares (warp shuffles, one
//     shared-memory exchange, one barrier), then stores y = h16 * rstd * w.
//     x and res are loaded with L1::no_allocate and an L2 evict-first policy: they are dead after
//     this read, and keeping them out of L1 leaves it to w, which every CTA on the SM re-reads.
//     h and y are ordinary write-back stores: the next kernels read them.
//     On compute capability 9.0+ every launch uses programmatic dependent launch, as layernorm v6
//     does: a CTA first lets the next kernel in the stream launch, then waits for its
//     predecessor (griddepcontrol.wait) before its first global read, so back to back the next
//     launch's CTAs are already resident while this one drains.
//     Other shapes run a looped kernel with the same reduction and PDL: rows longer than 32768
//     (16-byte accesses), and rows whose hidden is not a multiple of 8 or whose pointers are
//     not 16-byte aligned (4-byte accesses when hidden is even and the pointers 4-byte
//     aligned, else 2-byte). It stores h in a first pass and reads it back for y (the thread's
//     own writes, from L2): one extra L2 read in place of holding the row.
//
// y and h must not overlap x, res, w or each other (the launcher rejects it): the kernels read
// x, res and w through the non-coherent path and declare every pointer __restrict__.
#include "add_rmsnorm/add_rmsnorm.h"

#include <algorithm>
#include <cmath>

#include "common.cuh"

namespace {

// ---------------------------------------------------------------- accesses
// An L2 access policy that marks the lines it touches evict-first (the whole access: fraction 1).
__device__ __forceinline__ unsigned long long evict_first_policy() {
  unsigned long long pol;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}

// VEC fp16 values per access: 8 (16 bytes), 2 (4 bytes) or 1.
template <int VEC>
struct Vec;

template <>
struct Vec<8> {
  uint4 v;
  // Read once by this kernel: skip L1, first out of L2 under `pol` (evict_first_policy).
  // volatile keeps it after griddepcontrol.wait: an asm without side effects could be hoisted
  // above it.
  __device__ __forceinline__ void load_stream(const __half *p, unsigned long long pol) {
    asm volatile(
        "ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "l"(pol));
  }
  __device__ __forceinline__ void load_ro(const __half *p) {
    v = __ldg(reinterpret_cast<const uint4 *>(p));
  }
  __device__ __forceinline__ void load(const __half *p) { v = *reinterpret_cast<const uint4 *>(p); }
  __device__ __forceinline__ void store(__half *p) const { *reinterpret_cast<uint4 *>(p) = v; }
  __device__ __forceinline__ void to_float(float (&f)[8]) const {
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 t = __half22float2(h[k]);
      f[2 * k] = t.x;
      f[2 * k + 1] = t.y;
    }
  }
  __device__ __forceinline__ void from_float(const float (&f)[8]) {
    __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; ++k) h[k] = __floats2half2_rn(f[2 * k], f[2 * k + 1]);
  }
};

template <>
struct Vec<2> {
  unsigned v;
  __device__ __forceinline__ void load_stream(const __half *p, unsigned long long pol) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u32 %0, [%1], %2;"
                 : "=r"(v)
                 : "l"(p), "l"(pol));
  }
  __device__ __forceinline__ void load_ro(const __half *p) {
    v = __ldg(reinterpret_cast<const unsigned *>(p));
  }
  __device__ __forceinline__ void load(const __half *p) {
    v = *reinterpret_cast<const unsigned *>(p);
  }
  __device__ __forceinline__ void store(__half *p) const { *reinterpret_cast<unsigned *>(p) = v; }
  __device__ __forceinline__ void to_float(float (&f)[2]) const {
    const float2 t = __half22float2(*reinterpret_cast<const __half2 *>(&v));
    f[0] = t.x;
    f[1] = t.y;
  }
  __device__ __forceinline__ void from_float(const float (&f)[2]) {
    *reinterpret_cast<__half2 *>(&v) = __floats2half2_rn(f[0], f[1]);
  }
};

template <>
struct Vec<1> {
  unsigned short v;
  __device__ __forceinline__ void load_stream(const __half *p, unsigned long long pol) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u16 %0, [%1], %2;"
                 : "=h"(v)
                 : "l"(p), "l"(pol));
  }
  __device__ __forceinline__ void load_ro(const __half *p) {
    v = __ldg(reinterpret_cast<const unsigned short *>(p));
  }
  __device__ __forceinline__ void load(const __half *p) {
    v = *reinterpret_cast<const unsigned short *>(p);
  }
  __device__ __forceinline__ void store(__half *p) const {
    *reinterpret_cast<unsigned short *>(p) = v;
  }
  __device__ __forceinline__ void to_float(float (&f)[1]) const {
    f[0] = __half2float(__ushort_as_half(v));
  }
  __device__ __forceinline__ void from_float(const float (&f)[1]) {
    v = __half_as_ushort(__float2half_rn(f[0]));
  }
};

// h = fp16(a + b) into a; returns the sum of squares of the fp32 sums (two chains, for ILP).
template <int VEC>
__device__ __forceinline__ float add_into(Vec<VEC> &a, const Vec<VEC> &b) {
  float fa[VEC], fb[VEC], s0 = 0.0f, s1 = 0.0f;
  a.to_float(fa);
  b.to_float(fb);
#pragma unroll
  for (int e = 0; e < VEC; ++e) {
    fa[e] += fb[e];
    if (e % 2 == 0)
      s0 = fmaf(fa[e], fa[e], s0);
    else
      s1 = fmaf(fa[e], fa[e], s1);
  }
  a.from_float(fa);
  return s0 + s1;
}

// y = fp16(h16 * rstd * w), in place of h.
template <int VEC>
__device__ __forceinline__ void scale_into(Vec<VEC> &hv, const Vec<VEC> &g, float rstd) {
  float f[VEC], gf[VEC];
  hv.to_float(f);
  g.to_float(gf);
#pragma unroll
  for (int e = 0; e < VEC; ++e) f[e] = f[e] * rstd * gf[e];
  hv.from_float(f);
}

// ---------------------------------------------------------------- block-wide pieces
// Programmatic dependent launch (sm_90): let the next kernel in the stream launch now, then wait
// until the previous one has finished and its writes are visible. Both are no-ops in a launch
// made without the attribute; nothing global may be touched before this.
__device__ __forceinline__ void pdl_enter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the NW warps of the block, the same bits in every thread (one fixed order). One
// barrier; red[] is written once per launch, so no second barrier is needed.
template <int NW>
__device__ __forceinline__ float block_sum(float v, float *red) {
  v = warp_sum(v);
  if constexpr (NW > 1) {
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = 0.0f;
    if constexpr (NW % 4 == 0) {
      const float4 *r4 = reinterpret_cast<const float4 *>(red);
#pragma unroll
      for (int i = 0; i < NW / 4; ++i) {
        const float4 t = r4[i];
        v += (t.x + t.y) + (t.z + t.w);
      }
    } else {
#pragma unroll
      for (int i = 0; i < NW; ++i) v += red[i];
    }
  }
  return v;
}

// The same for a block of blockDim.x threads (a multiple of 32, at most 1024).
__device__ __forceinline__ float block_sum_dyn(float v, float *red) {
  const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
  v = warp_sum(v);
  if (nw > 1) {
    if (lane == 0) red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = warp_sum(lane < nw ? red[lane] : 0.0f);
  }
  return v;
}

// ---------------------------------------------------------------- v1: the row in registers
// One CTA of T threads per row; thread t owns the 16-byte vectors c = t + j T, j < VPT.
template <int VPT, int T>
__global__ void __launch_bounds__(T)
    add_rms_reg(const __half *__restrict__ x, const __half *__restrict__ res,
                const __half *__restrict__ w, __half *__restrict__ y, __half *__restrict__ h,
                int hidden, float inv_hidden, float eps) {
  constexpr int NW = T / 32;
  __shared__ __align__(16) float red[NW];
  const size_t base = (size_t)blockIdx.x * hidden;
  const unsigned long long pol = evict_first_policy();
  pdl_enter();

  Vec<8> a[VPT], b[VPT];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = threadIdx.x + j * T;
    if (c * 8 < hidden) {
      a[j].load_stream(x + base + c * 8, pol);
      b[j].load_stream(res + base + c * 8, pol);
    }
  }
  // One partial per vector: independent chains, summed in a fixed order.
  float part[VPT];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = threadIdx.x + j * T;
    part[j] = 0.0f;
    if (c * 8 < hidden) {
      part[j] = add_into(a[j], b[j]);
      a[j].store(h + base + c * 8);
    }
  }
  // w before the reduction, so its latency runs alongside the shuffles and the barrier. Not
  // with the row: holding it from the start costs 4 VPT registers (64 instead of 48 at hidden
  // 4096, 8 CTAs per SM instead of 10) and measured 1-2% slower at hidden 4096 on the H200.
  Vec<8> g[VPT];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = threadIdx.x + j * T;
    if (c * 8 < hidden) g[j].load_ro(w + c * 8);
  }
  float ss = 0.0f;
#pragma unroll
  for (int j = 0; j < VPT; ++j) ss += part[j];
  const float rstd = rsqrtf(block_sum<NW>(ss, red) * inv_hidden + eps);

#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    const int c = threadIdx.x + j * T;
    if (c * 8 < hidden) {
      scale_into(a[j], g[j], rstd);
      a[j].store(y + base + c * 8);
    }
  }
}

// ---------------------------------------------------------------- the looped fallback
// One CTA of blockDim.x threads (at most kLoopThreads) per row; accesses of VEC values, n =
// hidden / VEC of them. Each step of a thread covers the accesses c0 + k T, k < 4, every one
// behind its own bounds check: written so, ptxas keeps all eight loads of a step in flight (a
// plain unrolled body with a remainder loop got them issued two at a time). Pass 1 stores h;
// pass 2 reads the thread's own h back (its stores are visible to its later loads) and writes y.
constexpr int kLoopThreads = 512;

template <int VEC>
__global__ void __launch_bounds__(kLoopThreads, 2)
    add_rms_loop(const __half *__restrict__ x, const __half *__restrict__ res,
                 const __half *__restrict__ w, __half *__restrict__ y, __half *__restrict__ h,
                 int hidden, float inv_hidden, float eps) {
  __shared__ float red[32];
  const size_t base = (size_t)blockIdx.x * hidden;
  // Unsigned: c0 + 4 T stays exact even for n near INT_MAX.
  const unsigned n = (unsigned)hidden / VEC, T = blockDim.x;
  const unsigned long long pol = evict_first_policy();
  pdl_enter();

  float ss = 0.0f;
  for (unsigned c0 = threadIdx.x; c0 < n; c0 += 4 * T) {
    Vec<VEC> a[4], b[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned c = c0 + k * T;
      if (c < n) {
        a[k].load_stream(x + base + (size_t)c * VEC, pol);
        b[k].load_stream(res + base + (size_t)c * VEC, pol);
      }
    }
    float p[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned c = c0 + k * T;
      p[k] = 0.0f;
      if (c < n) {
        p[k] = add_into(a[k], b[k]);
        a[k].store(h + base + (size_t)c * VEC);
      }
    }
    ss += (p[0] + p[1]) + (p[2] + p[3]);
  }
  const float rstd = rsqrtf(block_sum_dyn(ss, red) * inv_hidden + eps);

  for (unsigned c0 = threadIdx.x; c0 < n; c0 += 4 * T) {
    Vec<VEC> hv[4], g[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned c = c0 + k * T;
      if (c < n) {
        hv[k].load(h + base + (size_t)c * VEC);
        g[k].load_ro(w + (size_t)c * VEC);
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned c = c0 + k * T;
      if (c < n) {
        scale_into(hv[k], g[k], rstd);
        hv[k].store(y + base + (size_t)c * VEC);
      }
    }
  }
}

// ---------------------------------------------------------------- launch
struct Args {
  const __half *x, *res, *w;
  __half *y, *h;
  int rows, hidden;
  float eps;
};

// One CTA per row. On compute capability >= 9.0 with programmatic stream serialization, so the
// kernel's griddepcontrol pair takes effect; below, an ordinary launch of the same kernel.
template <typename Kernel>
cudaError_t launch(Kernel kernel, int threads, const Args &a, cudaStream_t s) {
  cudaLaunchConfig_t lc = {};
  lc.gridDim = dim3((unsigned)a.rows, 1, 1);
  lc.blockDim = dim3((unsigned)threads, 1, 1);
  lc.dynamicSmemBytes = 0;
  lc.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  lc.attrs = attr;
  lc.numAttrs = rl_cc9_or_newer() ? 1 : 0;
  return cudaLaunchKernelEx(&lc, kernel, a.x, a.res, a.w, a.y, a.h, a.hidden,
                            1.0f / (float)a.hidden, a.eps);
}

template <int VPT, int T>
cudaError_t launch_reg(const Args &a, cudaStream_t s) {
  return launch(add_rms_reg<VPT, T>, T, a, s);
}

// The register path covers up to this many 16-byte vectors per row (hidden 32768).
constexpr int kRegMaxVectors = 4 * 1024;

// The smallest bucket whose T VPT vectors cover the row; nv = hidden / 8 <= kRegMaxVectors.
cudaError_t launch_v1_reg(int nv, const Args &a, cudaStream_t s) {
  if (nv <= 32) return launch_reg<1, 32>(a, s);
  if (nv <= 64) return launch_reg<2, 32>(a, s);
  if (nv <= 96) return launch_reg<3, 32>(a, s);
  if (nv <= 128) return launch_reg<4, 32>(a, s);
  if (nv <= 192) return launch_reg<3, 64>(a, s);
  if (nv <= 256) return launch_reg<4, 64>(a, s);
  if (nv <= 384) return launch_reg<3, 128>(a, s);
  if (nv <= 512) return launch_reg<4, 128>(a, s);
  if (nv <= 768) return launch_reg<3, 256>(a, s);
  if (nv <= 1024) return launch_reg<4, 256>(a, s);
  if (nv <= 1536) return launch_reg<3, 512>(a, s);
  if (nv <= 2048) return launch_reg<4, 512>(a, s);
  if (nv <= 3072) return launch_reg<3, 1024>(a, s);
  return launch_reg<4, kRegMaxVectors / 4>(a, s);
}

// About four accesses per thread per row (one step), 32 to kLoopThreads threads: longer rows
// take more steps. Two CTAs fit an SM at the largest size, so one's reduction overlaps the
// other's loads.
template <int VEC>
cudaError_t launch_loop(const Args &a, cudaStream_t s) {
  const long long n = a.hidden / VEC;
  const long long warps = std::min<long long>(rl_ceil_div(n, 32 * 4), kLoopThreads / 32);
  return launch(add_rms_loop<VEC>, 32 * (int)warps, a, s);
}

bool aligned(const void *p, uintptr_t bytes) { return (uintptr_t)p % bytes == 0; }

constexpr int kVariants = 1;
}  // namespace

extern "C" int rl_add_rmsnorm(int variant, const void *x, const void *res, const void *w, void *y,
                              void *h, int rows, int hidden, float eps, void *stream) {
  RL_REQUIRE(variant >= 1 && variant <= kVariants && x != nullptr && res != nullptr &&
             w != nullptr && y != nullptr && h != nullptr && rows >= 1 && hidden >= 1 &&
             eps > 0.0f && std::isfinite(eps));
  const size_t nb = (size_t)rows * (size_t)hidden * sizeof(__half);
  const size_t wb = (size_t)hidden * sizeof(__half);
  RL_REQUIRE(!rl_overlap(y, nb, x, nb) && !rl_overlap(y, nb, res, nb) &&
             !rl_overlap(y, nb, w, wb) && !rl_overlap(y, nb, h, nb) && !rl_overlap(h, nb, x, nb) &&
             !rl_overlap(h, nb, res, nb) && !rl_overlap(h, nb, w, wb));
  const Args a = {static_cast<const __half *>(x), static_cast<const __half *>(res),
                  static_cast<const __half *>(w), static_cast<__half *>(y),
                  static_cast<__half *>(h), rows, hidden, eps};
  cudaStream_t s = rl_stream(stream);

  const bool all16 = aligned(x, 16) && aligned(res, 16) && aligned(w, 16) && aligned(y, 16) &&
                     aligned(h, 16);
  const bool all4 = aligned(x, 4) && aligned(res, 4) && aligned(w, 4) && aligned(y, 4) &&
                    aligned(h, 4);
  cudaError_t err;
  if (hidden % 8 == 0 && all16)
    err = hidden / 8 <= kRegMaxVectors ? launch_v1_reg(hidden / 8, a, s) : launch_loop<8>(a, s);
  else if (hidden % 2 == 0 && all4)
    err = launch_loop<2>(a, s);
  else
    err = launch_loop<1>(a, s);
  // Read (and clear) the launch error either way, so a refused launch is not left behind to be
  // reported by the next, unrelated one.
  const int last = rl_launch_status();
  return err != cudaSuccess ? (int)err : last;
}

extern "C" int rl_add_rmsnorm_variant_count(void) { return kVariants; }

extern "C" const char *rl_add_rmsnorm_variant_name(int variant) {
  switch (variant) {
    case 1:
      return "v1 row in registers, 16-byte vectors, one CTA per row (block size chosen by "
             "hidden), PDL on sm_90";
    default: return nullptr;
  }
}
