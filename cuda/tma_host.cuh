// Host side of the TMA paths (GEMV's TMA slabs, HGEMM's wgmma tile): the driver's tensor-map
// encoder and a small cache of encoded maps.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <mutex>

namespace rl_tma {

// cuTensorMapEncodeTiled from the driver the runtime loaded (no link to libcuda); null when
// this driver has none.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      f = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A row-major matrix of 2-byte elements (rows x cols) as a 2-D tensor map with (box_cols x
// box_rows) boxes, 128-byte swizzle, zero fill outside; `type` names the elements (fp16 unless
// given; the GEMM family's bf16 paths pass CU_TENSOR_MAP_DATA_TYPE_BFLOAT16). Encoding is host
// work inside a timed launch, so the maps of the last few (pointer, shape, box, type) are kept:
// a benchmark that rotates over buffer sets encodes each once. False if the driver has no
// encoder or rejects the map.
inline bool tensor_map(CUtensorMap *out, const void *ptr, int rows, int cols, int box_cols,
                       int box_rows,
                       CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16) {
  struct Entry {
    const void *ptr;
    int rows, cols, box_cols, box_rows;
    CUtensorMapDataType type;
    CUtensorMap map;
  };
  constexpr int kEntries = 32;
  static std::mutex mu;
  static Entry cache[kEntries];
  static int used = 0, next = 0;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < used; ++i) {
    const Entry &e = cache[i];
    if (e.ptr == ptr && e.rows == rows && e.cols == cols && e.box_cols == box_cols &&
        e.box_rows == box_rows && e.type == type) {
      *out = e.map;
      return true;
    }
  }
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows}, estr[2] = {1, 1};
  CUtensorMap m;
  if (encode(&m, type, 2, const_cast<void *>(ptr), dims, strides, box,
             estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  Entry &e = cache[next];
  e = Entry{ptr, rows, cols, box_cols, box_rows, type, m};
  next = (next + 1) % kEntries;
  if (used < kEntries) ++used;
  *out = m;
  return true;
}

}  // namespace rl_tma
