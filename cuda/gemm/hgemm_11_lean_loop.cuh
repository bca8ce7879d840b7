// HGEMM v11 "lean_loop" (best): v10, with the whole-tile shapes that v6's choice puts on the
// 256x128 tile (M, N, K multiples of 256, 128 and 256 on the 16-byte path, no split) on a lean
// main loop: the k-tile loop unrolled over the 4-stage ring, so every stage index is a
// constant, and no copy carries a bounds predicate or a source select. The same MMAs in the
// same order as v5's loop (C bit for bit the same), with none of its per-step integer work.
// The 128x256 tile keeps v5's loop: on the lean one ptxas spilled 520 bytes at 255 registers.
//
// Measured on the H200 (docs/perf-log.md, HGEMM old v26 and v27; VC, v10 and this interleaved,
// one launch, cold): 389 / 408 / 364 TFLOP/s at 4096³ / 8192³ / 2048³ against v10's 367 / 383 /
// 347 (+5.9% / +6.4% / +4.8%; predicted +5% from probe SL, where the loop went from 87.5 to
// 70.4 instructions per warp and k-step and the tensor pipe from 73% to 77% active). Report
// AF: 74.9% / 61.1% / 60.7% of cuBLAS at 2048³ / 4096³ / 8192³ (354 / 383 / 389 against
// 472 / 626 / 641 TFLOP/s).
#pragma once
#include "gemm/hgemm_10_wgmma_few_rows.cuh"

namespace rlg {

// run_pipelined for a block tile wholly inside A, B and C with whole rings of k-tiles (M % BM, N %
// BN, K % (BK x STAGES) == 0; 16-byte path; BM x K and BK x N < 2^31 elements: the copy strides are
// ints), including the prologue and the zeroed accumulators. The same MMAs in the same order as
// run_pipelined (C bit for bit the same), with none of its per-step integer work: the k-tile loop
// is unrolled over the ring, so every stage index is a constant, and no copy carries a bounds
// predicate or a source select. At 4096³ that took the loop from 87.5 to 70.4 instructions per warp
// and k-step (32 of them HMMA) and the tensor pipe from 73% to 77% active: +5-6% (probe
// square_lean, runs NS and SL; docs/perf-log.md). The hazards are run_pipelined's. Past the last
// k-tile nothing is copied but the (empty) groups are still committed, so every wait counts the
// same groups; the last step's fragments come from a stage that holds an older k-tile and are never
// used. OPAQUE_LAST (the fused family's form, GEMM+bias+GELU v4): the last k-step's stage offset
// also gets a zero the compiler cannot fold (kt0 >> 30; kt0 < 2^30), which moves ptxas off the
// register layout where the fused kernel (255 registers) rebuilt each copy pass's 64-bit source in
// one of two pairs an LDGSTS had not yet read: in its SASS the median distance from a copy to the
// rewrite of its source pair goes from 13 to 37 instructions (the plain loop's 38; the loop 1055 ->
// 1094 instructions), with no spill (scripts/sass_copy_war.py, in git at 877c669). On the plain
// kernel the same zero spills 440 bytes, so the plain GEMM keeps the loop without it.
template <class Cfg, bool OPAQUE_LAST>
__device__ __forceinline__ void run_lean(half *smem, const half *A, const half *B, int N, int K,
                                         const TilePos<Cfg> &at,
                                         FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
  constexpr int S = Cfg::kStages, KS = Cfg::BK / 16;
  static_assert(Cfg::kAsync && KS == 4, "the lean loop's copy and barrier steps assume BK 64");
  // A: BK / 8 threads per row of 16-byte chunks, kARows rows a pass, kAI passes; B likewise.
  constexpr int kAT = Cfg::BK / 8, kARows = Cfg::kThreads / kAT, kAI = Cfg::BM / kARows;
  constexpr int kBT = Cfg::BN / 8, kBRows = Cfg::kThreads / kBT, kBI = Cfg::BK / kBRows;
  static_assert(kAI * kARows == Cfg::BM && kBI * kBRows == Cfg::BK, "whole passes");
  constexpr unsigned kStageBytes = Cfg::kStageHalves * 2;
  const int t = threadIdx.x, k_tiles = K / Cfg::BK;
  const half *ga = A + static_cast<size_t>(at.tm * Cfg::BM + t / kAT) * K + (t % kAT) * 8;
  const half *gb = B + static_cast<size_t>(t / kBT) * N + at.tn * Cfg::BN + (t % kBT) * 8;
  const int a_pass = kARows * K, b_pass = kBRows * N;
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned sa = sbase + ((t / kAT) * Cfg::kLda + (t % kAT) * 8) * 2;
  const unsigned sb = sbase + (Cfg::kAHalves + (t / kBT) * Cfg::kLdb + (t % kBT) * 8) * 2;
  const auto copy_a = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kAI; ++i)
      cp_async16_whole(sa + stage * kStageBytes + i * kARows * Cfg::kLda * 2, ga + i * a_pass);
  };
  const auto copy_b = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kBI; ++i)
      cp_async16_whole(sb + stage * kStageBytes + i * kBRows * Cfg::kLdb * 2, gb + i * b_pass);
  };

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    copy_a(s);
    copy_b(s);
    ga += Cfg::BK;
    gb += static_cast<size_t>(Cfg::BK) * N;
    cp_async_commit();
  }
  zero<Cfg>(acc);
  cp_async_wait<S - 2>();
  __syncthreads();
  FragA a[2][Cfg::kFragsM];
  FragB b[2][Cfg::kFragsN];
  load_frags<Cfg>(smem, at.wm, at.wn, 0, a[0], b[0]);
  for (int kt0 = 0; kt0 < k_tiles; kt0 += S) {
#pragma unroll
    for (int st = 0; st < S; ++st) {  // k-tile kt0 + st sits in stage st
      const bool refill = kt0 + st + S - 1 < k_tiles;
      const int wr = (st + S - 1) % S;
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        // The stage's offset is made opaque once per use: with every offset a constant the
        // compiler hoists all 32 fragment addresses (4 stages x 8 LDSM) out of the loop and
        // spills them (ptxas: 384 bytes), which the rolled ring does not. Opaque to NVVM only:
        // ptxas sees through the empty asm, and hoisted them anyway (and spilled) once a
        // removed trial's copies (the first old v27) left it more free registers; a
        // loop-variant zero stopped it there (perf log).
        int rd = (ks == KS - 1 ? (st + 1) % S : st) * Cfg::kStageHalves;
        asm volatile("" : "+r"(rd));
        if (OPAQUE_LAST && ks == KS - 1) rd += kt0 >> 30;
        load_frags<Cfg>(smem + rd, at.wm, at.wn, ks == KS - 1 ? 0 : (ks + 1) * 16,
                        a[(ks + 1) % 2], b[(ks + 1) % 2]);
        if (ks == 0 && refill) copy_a(wr);
        if (ks == 1) {
          if (refill) copy_b(wr);
          ga += Cfg::BK;
          gb += static_cast<size_t>(Cfg::BK) * N;
          cp_async_commit();  // empty past the end: the group count stays uniform
        }
        mma_frags<Cfg>(a[ks % 2], b[ks % 2], acc);
        if (ks == KS - 2) {
          cp_async_wait<S - 2>();
          __syncthreads();
        }
      }
    }
  }
}

// Whether run_lean's loop (whole tiles, whole rings of k-tiles, int copy strides) takes a
// shape on the 16-byte path with Cfg.
template <class Cfg>
bool lean_fits(int M, int N, int K) {
  return M % Cfg::BM == 0 && N % Cfg::BN == 0 && K % (Cfg::BK * Cfg::kStages) == 0 &&
         static_cast<long long>(Cfg::BM) * K < (1LL << 31) &&
         static_cast<long long>(Cfg::BK) * N < (1LL << 31);
}

// LOOP: kLoopLean (the plain GEMM) or kLoopLeanOpaqueLast (the fused family's form, see
// run_lean). The lean loop runs exactly where v10 would run v5's loop on the 256x128 tile
// (no path for small M, no split) and the shape is whole tiles; everything else is v10.
template <int LOOP, class Epi>
int launch_lean_loop(const half *A, const half *B, half *C, int M, int N, int K, const Epi &epi,
                     cudaStream_t stream) {
  static_assert(LOOP == kLoopLean || LOOP == kLoopLeanOpaqueLast, "a lean loop form");
  if (vec16_ok(A, B, C, N, K, epi) && lean_fits<CfgTall>(M, N, K) &&
      choose_tile(M, N) == TileChoice::kTall && choose_split<Epi>(M, N, K) == SplitChoice::kNone)
    return launch_pipelined_path<CfgTall, Epi, LOOP>(A, B, C, M, N, K, epi, stream);
  return launch_wgmma_few_rows(A, B, C, M, N, K, epi, stream);
}

}  // namespace rlg
