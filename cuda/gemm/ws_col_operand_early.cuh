// A column operand (the bias) read into registers when the warp-specialized kernel's consumer
// starts a tile, not at its store (ws_store_tma.cuh), for functors that ask for it
// (kColOperandEarly: true). Each thread holds the pair of operand values of each 8-column
// group its accumulators cover: BN / 8 32-bit registers (32 at the 256-wide tile), of the 232
// a consumer thread has.
//
// Why: read at the store, the operand's loads sit behind the store's barriers and stmatrix
// writes (asm with "memory" clobbers, which no load moves across), so each part of the store
// (two at the 256-wide tile) waits one L2 round trip for its 16 loads before its first GELU.
// Issued at the tile's start, they land under the main loop.
#pragma once
#include <type_traits>

#include "gemm/elem.cuh"

namespace rlg {

// Whether a functor's column operand is loaded at the tile's start (kColOperandEarly: true).
template <class Epi, class = void>
struct ColOperandEarly : std::false_type {};
template <class Epi>
struct ColOperandEarly<Epi, std::void_t<decltype(Epi::kColOperandEarly)>>
    : std::bool_constant<Epi::kColOperand && Epi::kColOperandEarly> {};

// Registers for a tile's column operand: BN / 8 pairs, or one unused where the functor reads
// its operand at the store.
template <class Cfg, class Epi>
constexpr int col_operand_regs() {
  return ColOperandEarly<Epi>::value ? Cfg::BN / 8 : 1;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Pair g of this lane: columns col0 + 8 g + 2 (lane % 4) and the next (m64nBN's accumulator
// layout; 0 past N, where the store writes nothing: N % 8 == 0, so a pair is wholly in or out).
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void ws_load_col_operand(const Epi &epi, int col0, int N, int lane,
                                                    unsigned (&ops)[col_operand_regs<Cfg, Epi>()]) {
  if constexpr (ColOperandEarly<Epi>::value) {
    const T *src = epi.col_operand();
#pragma unroll
    for (int g = 0; g < Cfg::BN / 8; ++g) {
      const int col = col0 + 8 * g + 2 * (lane % 4);
      ops[g] = col < N ? __ldg(reinterpret_cast<const unsigned *>(src + col)) : 0u;
    }
  }
}
#endif

}  // namespace rlg
