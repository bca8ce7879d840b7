// The GEMM family's two 16-bit element types, and all that differs between them: fp16 (half,
// every path of every step) and bf16 (__nv_bfloat16: the warp-specialized kernel of HGEMM v12,
// v9's 128x64 wgmma tile and v1's WMMA kernel, the paths gemm/bf16_paths.cuh runs). Both are 2
// bytes, so tiles, rings, swizzles, descriptors and 16-byte chunks are the same bytes; what the
// element type changes is the conversions to and from fp32 (here), the wgmma instruction's input
// type (wgmma.cuh) and the TMA tensor map's data type (Elem<T>::kTma). The fp16 forms of the
// templates that take T are the code they were before T (the same conversions, the same asm).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rlg {

using bf16 = __nv_bfloat16;

template <class T>
struct Elem;

template <>
struct Elem<half> {
  using Pair = __half2;
  static constexpr CUtensorMapDataType kTma = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  static __device__ __forceinline__ float to_float(half h) { return __half2float(h); }
  static __device__ __forceinline__ half from_float(float f) { return __float2half_rn(f); }
  static __device__ __forceinline__ float2 to_float2(Pair p) { return __half22float2(p); }
  static __device__ __forceinline__ Pair from_floats(float a, float b) {
    return __floats2half2_rn(a, b);
  }
};

template <>
struct Elem<bf16> {
  using Pair = __nv_bfloat162;
  static constexpr CUtensorMapDataType kTma = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  static __device__ __forceinline__ float to_float(bf16 h) { return __bfloat162float(h); }
  static __device__ __forceinline__ bf16 from_float(float f) { return __float2bfloat16_rn(f); }
  static __device__ __forceinline__ float2 to_float2(Pair p) { return __bfloat1622float2(p); }
  static __device__ __forceinline__ Pair from_floats(float a, float b) {
    return __floats2bfloat162_rn(a, b);
  }
};

}  // namespace rlg
