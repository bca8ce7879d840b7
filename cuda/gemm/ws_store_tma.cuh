// The warp-specialized kernel's store through TMA (HGEMM v14, hgemm_14_tma_store.cuh): a
// consumer warpgroup applies the family's functor to its accumulators where they are (in
// registers, apply1 per element), rounds them to fp16, writes them with stmatrix into its own
// staging area of shared memory (128-byte swizzled boxes of 64 rows x 64 columns), and one of
// its threads hands the boxes to the TMA unit (cp.async.bulk.tensor, global <- shared), which
// writes them to C while the warpgroup goes on to its next tile's wgmmas. Against v12's store
// (eight passes, each parking fp32 in shared memory behind a named barrier, then 16-byte
// global stores by every thread) the warpgroup spends one barrier and 16-32 stmatrix per
// tile, and the copy to C overlaps the next main loop. TMA clips the boxes at M and N, so the
// edges need no predicates but the functor's: one that reads an operand per element (a
// residual) is applied inside C only.
#pragma once
#include "gemm/elem.cuh"
#include "gemm/epilogue.cuh"
#include "gemm/ws_col_operand_early.cuh"
#include "gemm/ws_staged_operand.cuh"
#include "gemm/ws_staging.cuh"
#include "tma.cuh"

namespace rlg {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Four 8x8 fp16 matrices from a warp's registers into shared memory: lane l gives the address
// of row l % 8 of matrix l / 8; register i of a lane holds its two columns of matrix i.
__device__ __forceinline__ void stmatrix_x4(unsigned addr, unsigned r0, unsigned r1, unsigned r2,
                                            unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
// Two results rounded to T (fp16 or bf16) in one 32-bit register.
template <class T>
__device__ __forceinline__ unsigned pack_pair(float lo, float hi) {
  const typename Elem<T>::Pair h = Elem<T>::from_floats(lo, hi);
  return *reinterpret_cast<const unsigned *>(&h);
}
// The writes this thread made to shared memory, visible to the TMA unit (the async proxy).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// One box of shared memory to C at (column c0, row c1) of the map; committed by the caller.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int c0,
                                             int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
          reinterpret_cast<unsigned long long>(map)),
      "r"(smem_addr(src)), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Until the committed stores have read their shared memory (READ) or completed.
template <bool READ>
__device__ __forceinline__ void tma_store_wait_all() {
  if constexpr (READ)
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Named barrier of both consumer warpgroups (256 threads; 1 and 2 are each one's own).
constexpr int kWsConsumersBar = 3;

// Part `part` of a warpgroup's staged boxes (its stmatrix writes done) to C[row0 .., col0 +
// part x kStoreCols ..] by its thread t = 0, once every thread's writes are visible to the TMA
// unit.
template <class Cfg>
__device__ __forceinline__ void ws_hand_part_to_tma(unsigned char *stage_p, const CUtensorMap *cmap,
                                                    int M, int N, int row0, int col0, int part,
                                                    int bar_id, int t) {
  fence_proxy_async_shared();
  asm volatile("bar.sync %0, 128;" ::"r"(bar_id) : "memory");
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < Cfg::kStoreCols / 64; ++b) {
      const int c = col0 + part * Cfg::kStoreCols + 64 * b;
      if (row0 < M && c < N) tma_store_2d(cmap, stage_p + b * 8192, c, row0);
    }
    tma_store_commit();
  }
}

// One consumer warpgroup's 64 x BN results (d: the m64nBN accumulator layout, d[4j + q] at row
// 16 warp + lane / 4 + 8 (q / 2), column 8j + 2 (lane % 4) + (q % 2)) through the functor to
// C[row0 .., col0 ..] (elements of type T) by TMA, Cfg::kStoreCols columns at a time (all BN,
// or v16's halves). stage: this warpgroup's kStoreCols / 64 boxes of 8 KB (1024-aligned),
// free once its previous stores have read it: thread 0 of the warpgroup waits for that, and
// the named barrier bar_id tells the others (v16: also between its two halves). The stmatrix
// addresses follow the 128-byte swizzle the map was made with (16-byte chunk c of row r at
// c ^ (r % 8)), so each 8-row matrix store touches 8 distinct bank groups. A functor with a
// staged operand (StagesOperand) finds it in the staging at those same addresses (ldmatrix).
// v21 (Cfg::kHalfInRing): the second half goes to `second`, this warpgroup's part of the ring
// stage both warpgroups' last wgmmas read, once the other is past them too. A functor whose
// column operand is loaded at the tile's start (ColOperandEarly) finds it in col_ops.
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_store_tma(float (&d)[Cfg::kAcc], unsigned char *stage,
                                             const CUtensorMap *cmap, int M, int N, int row0,
                                             int col0, int bar_id, const Epi &epi,
                                             [[maybe_unused]] unsigned char *second = nullptr,
                                             [[maybe_unused]] const unsigned *col_ops = nullptr) {
  static_assert(!Cfg::kHalfInRing || !StagesOperand<Epi>::value,
                "v21: a staged operand would need its second half in the ring stage too");
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int r_lo = 16 * warp + lane / 4;                      // this lane's rows: r_lo, r_lo + 8
  const int mrow = 16 * warp + lane % 8 + 8 * ((lane / 8) % 2);  // the row whose address it gives
  constexpr int kGroups = Cfg::kStoreCols / 8;                // 8-column groups per part
#pragma unroll
  for (int part = 0; part < Cfg::BN / Cfg::kStoreCols; ++part) {
    unsigned char *const stage_p = Cfg::kHalfInRing && part == 1 ? second : stage;
    // A staged operand (ws_staged_operand.cuh): this thread's copies landed; the barrier
    // makes every thread's visible to the warpgroup.
    if constexpr (StagesOperand<Epi>::value) cp_async_wait<0>();
    if (Cfg::kHalfInRing && part == 1) {
      asm volatile("bar.sync %0, 256;" ::"n"(kWsConsumersBar) : "memory");
    } else {
      if (t == 0) tma_store_wait_all<true>();
      asm volatile("bar.sync %0, 128;" ::"r"(bar_id) : "memory");
    }
#pragma unroll
    for (int j = part * kGroups; j < (part + 1) * kGroups; j += 2) {
      [[maybe_unused]] float staged[2][4];  // a staged operand at this thread's elements
      if constexpr (StagesOperand<Epi>::value) {
        // At the addresses this thread's stmatrix writes (below).
        const int cg = j - part * kGroups + (lane / 8) / 2;
        const unsigned at = smem_addr(stage_p) + ws_staging_offset(cg, mrow);
        unsigned r[4];
        ldmatrix_x4(at, r[0], r[1], r[2], r[3]);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float2 f =
              Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&r[i]));
          staged[i / 2][2 * (i % 2)] = f.x;
          staged[i / 2][2 * (i % 2) + 1] = f.y;
        }
      }
      float v[2][4];  // [group j, j + 1][q]
#pragma unroll
      for (int g = 0; g < 2; ++g) {
        const int col = col0 + 8 * (j + g) + 2 * (lane % 4);
        float op0 = 0.0f, op1 = 0.0f;
        if constexpr (ColOperandEarly<Epi>::value) {
          // Loaded at the tile's start (ws_col_operand_early.cuh; 0 past N).
          const unsigned raw = col_ops[j + g];
          const float2 b =
              Elem<T>::to_float2(*reinterpret_cast<const typename Elem<T>::Pair *>(&raw));
          op0 = epi.prep(b.x);
          op1 = epi.prep(b.y);
        } else if constexpr (Epi::kColOperand) {
          if (col < N) {  // N % 8 == 0: col + 1 < N too
            const float2 b = Elem<T>::to_float2(
                *reinterpret_cast<const typename Elem<T>::Pair *>(epi.col_operand() + col));
            op0 = epi.prep(b.x);
            op1 = epi.prep(b.y);
          }
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int row = row0 + r_lo + 8 * (q / 2), c = col + q % 2;
          const float x = d[4 * (j + g) + q];
          if constexpr (StagesOperand<Epi>::value)
            v[g][q] = epi.apply_staged(x, q % 2 ? op1 : op0, staged[g][q]);
          else if constexpr (Epi::kElemOperand)
            v[g][q] = row < M && c < N ? epi.apply1(x, q % 2 ? op1 : op0, row, c) : x;
          else
            v[g][q] = epi.apply1(x, q % 2 ? op1 : op0, row, c);
        }
      }
      // Matrix i = lane / 8 of this x4: rows +8 for odd i, column group j + i / 2 (of the part).
      const int cg = j - part * kGroups + (lane / 8) / 2;
      const unsigned addr = smem_addr(stage_p) + ws_staging_offset(cg, mrow);
      stmatrix_x4(addr, pack_pair<T>(v[0][0], v[0][1]), pack_pair<T>(v[0][2], v[0][3]),
                  pack_pair<T>(v[1][0], v[1][1]), pack_pair<T>(v[1][2], v[1][3]));
    }
    ws_hand_part_to_tma<Cfg>(stage_p, cmap, M, N, row0, col0, part, bar_id, t);
  }
}
#endif

}  // namespace rlg
