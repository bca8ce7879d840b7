// The layout of the warp-specialized kernel's store staging (v14's TMA store, ws_store_tma.cuh):
// boxes of 64 x 64 16-bit elements (8 KB), rows of 128 bytes, the 16-byte chunk c of row r at
// c ^ (r % 8) within its box (the 128-byte swizzle the store's tensor map was made with). The
// store's stmatrix, the staged operand's copy and its ldmatrix all address it through this.
#pragma once

namespace rlg {

// Byte offset of 16-byte chunk `chunk` (8 elements; chunk / 8 picks the box) of row `row`.
__host__ __device__ __forceinline__ int ws_staging_offset(int chunk, int row) {
  return (chunk / 8) * 8192 + row * 128 + (((chunk % 8) ^ (row % 8)) * 16);
}

}  // namespace rlg
