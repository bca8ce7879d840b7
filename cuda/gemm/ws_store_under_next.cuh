// HGEMM v24's store (hgemm_24_epilogue_under_next.cuh): a consumer warpgroup's results leave
// its accumulators as soon as its tile's last wgmma is done, rounded to T two to a register
// (ws_pack_results), so that the accumulators can take the next tile's first k-tiles; the
// functor, the stmatrix into the staging and the TMA store then run from the packed registers
// (ws_store_tma_packed) while those wgmmas do, instead of before them.
//
// The functor therefore sees each result rounded to T once before it (a fused bias + GELU
// applies to the fp16 / bf16 value of A.B, where v22's applies to the fp32 one): one more
// rounding of the pre-activation, about one unit in the last place of T at most; the plain
// GEMM's results are the same bits as v22's.
#pragma once
#include <type_traits>

#include "gemm/ws_store_tma.cuh"

namespace rlg {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// d (the m64nBN accumulator layout: d[4j + q]) rounded to T, pairs (q, q + 1) in one register:
// p[2j + q / 2] holds d[4j + q] and d[4j + q + 1] for q = 0, 2.
template <class T, int A>
__device__ __forceinline__ void ws_pack_results(const float (&d)[A], unsigned (&p)[A / 2]) {
#pragma unroll
  for (int i = 0; i < A / 2; ++i) p[i] = pack_pair<T>(d[2 * i], d[2 * i + 1]);
}

// ws_store_tma's store (v16's halves where Cfg stages them; no staged operand, no half in the
// ring) from packed results. The identity writes the packed registers as they are. The column
// operand's load is ws_store_tma's, written out again: as a shared helper taking the operands
// by reference it changed the SASS of 73 measured kernels (S43).
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_store_tma_packed(const unsigned (&p)[Cfg::kAcc / 2],
                                                    unsigned char *stage, const CUtensorMap *cmap,
                                                    int M, int N, int row0, int col0, int bar_id,
                                                    const Epi &epi) {
  static_assert(!StagesOperand<Epi>::value && !Epi::kElemOperand && !Cfg::kHalfInRing,
                "v24: a functor of the column operand at most, v16's staging");
  constexpr bool kAsIs = std::is_same_v<Epi, EpiIdentity>;
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int r_lo = 16 * warp + lane / 4;
  const int mrow = 16 * warp + lane % 8 + 8 * ((lane / 8) % 2);
  constexpr int kGroups = Cfg::kStoreCols / 8;
#pragma unroll
  for (int part = 0; part < Cfg::BN / Cfg::kStoreCols; ++part) {
    if (t == 0) tma_store_wait_all<true>();  // the staging's last stores have read it
    asm volatile("bar.sync %0, 128;" ::"r"(bar_id) : "memory");
#pragma unroll
    for (int j = part * kGroups; j < (part + 1) * kGroups; j += 2) {
      unsigned out[4];  // groups j, j + 1, rows r_lo and r_lo + 8: stmatrix's four matrices
      if constexpr (kAsIs) {
#pragma unroll
        for (int i = 0; i < 4; ++i) out[i] = p[2 * j + i];
      } else {
#pragma unroll
        for (int g = 0; g < 2; ++g) {
          const int col = col0 + 8 * (j + g) + 2 * (lane % 4);
          float op0 = 0.0f, op1 = 0.0f;
          if constexpr (Epi::kColOperand) {
            if (col < N) {  // N % 8 == 0: col + 1 < N too
              const float2 b = Elem<T>::to_float2(
                  *reinterpret_cast<const typename Elem<T>::Pair *>(epi.col_operand() + col));
              op0 = epi.prep(b.x);
              op1 = epi.prep(b.y);
            }
          }
#pragma unroll
          for (int h = 0; h < 2; ++h) {  // rows r_lo, r_lo + 8
            const unsigned raw = p[2 * (j + g) + h];
            const float2 x =
                Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&raw));
            const int row = row0 + r_lo + 8 * h;
            out[2 * g + h] = pack_pair<T>(epi.apply1(x.x, op0, row, col),
                                          epi.apply1(x.y, op1, row, col + 1));
          }
        }
      }
      const int cg = j - part * kGroups + (lane / 8) / 2;
      stmatrix_x4(smem_addr(stage) + ws_staging_offset(cg, mrow), out[0], out[1], out[2], out[3]);
    }
    ws_hand_part_to_tma<Cfg>(stage, cmap, M, N, row0, col0, part, bar_id, t);
  }
}
#endif

}  // namespace rlg
