// An epilogue operand of one element per output (the residual R of GEMM+bias+residual) staged
// in shared memory for the warp-specialized kernel's TMA store (ws_store_tma.cuh), instead of
// read from global memory per element by the functor. Each consumer warpgroup copies its
// 64 x BN block of the operand with cp.async into its own staging boxes, at the positions its
// results will take there (the 128-byte swizzle of the store's map), halfway through the tile's
// main loop, once its previous tile's stores have read the staging. At the store each thread
// reads its operand values with ldmatrix from the addresses it then writes with stmatrix, adds
// them, and writes the sums in place.
//
// Why: read per element (apply1), R's loads sit in the epilogue's critical path, 4 bytes at a
// time from 8 rows per warp, a few in flight per thread beside the 128 accumulators: v7
// measured 1.34x our plain GEMM at 4096³ (S37), where reading R (32 MB) at the DRAM ceiling
// costs ~7 us of ~190. Staged, the copy runs under the second half of the
// main loop and the store reads shared memory.
#pragma once
#include <type_traits>

#include "gemm/cp_async.cuh"
#include "gemm/elem.cuh"
#include "gemm/ws_staging.cuh"
#include "tma.cuh"

namespace rlg {

// Whether a functor takes its per-element operand from the staging (kStagedOperand: true);
// every other functor reads its operands itself (apply1).
template <class Epi, class = void>
struct StagesOperand : std::false_type {};
template <class Epi>
struct StagesOperand<Epi, std::void_t<decltype(Epi::kStagedOperand)>>
    : std::bool_constant<Epi::kStagedOperand> {};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Four 8x8 16-bit matrices from shared memory into a warp's registers: stmatrix_x4's layout
// (ws_store_tma.cuh), so a thread gets the operand values of exactly its accumulators.
__device__ __forceinline__ void ldmatrix_x4(unsigned addr, unsigned &r0, unsigned &r1,
                                            unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr)
               : "memory");
}

// One consumer warpgroup's copy of the operand's rows [row0, row0 + 64) and columns
// [col0, col0 + BN) into its staging (boxes of 64 x 64 elements, 8 KB, 16-byte chunk c of row
// r at c ^ (r % 8)); outside C the chunks are zero-filled (the store clips them). The caller
// has made sure the staging's previous stores have read it; the store waits for the copy.
// Needs N % 8 == 0, the operand 16-byte aligned and its ld a multiple of 8 (vec16_ok).
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_stage_operand(unsigned char *stage, const Epi &epi, int M,
                                                 int N, int row0, int col0) {
  constexpr int kChunks = Cfg::BN / 8;  // 16-byte chunks per row
  const int t = threadIdx.x % 128;
  const T *src = epi.elem_operand();
#pragma unroll
  for (int i = 0; i < 64 * kChunks / 128; ++i) {
    const int idx = i * 128 + t, r = idx / kChunks, c = idx % kChunks;
    const int row = row0 + r, col = col0 + 8 * c;
    const bool inside = row < M && col < N;
    const T *g = inside ? src + static_cast<size_t>(row) * epi.ld + col : src;
    cp_async16(stage + ws_staging_offset(c, r), g, inside);
  }
  cp_async_commit();
}
#endif

}  // namespace rlg
