// The WMMA tiles' epilogues for a functor with a column operand (the fused bias+GELU): applied
// to the accumulators in registers (apply_in_registers), or on the warp's tile parked in the
// pipeline's shared memory where it fits (epilogue_parked), one row part at a time where the
// functor asks for parts (kParkParts).
#pragma once
#include "gemm/epilogue.cuh"

namespace rlg {


// Register epilogue: acc = epi(acc, operand of its column) for this warp's tile (columns from
// col0), whose WN columns of the operand start at ops. WMMA leaves which (row, col) a fragment
// element holds unspecified, so the warp learns it: a 16x16 tile whose entries are their own
// column index, loaded into an accumulator fragment, gives each element's column. Not its row
// (apply1 gets -1), and values outside C are applied too: a functor with an element operand
// takes the per-strip epilogue instead. `stage` is the warp's free 16 x kLdc floats (the
// epilogue's staging area); it is free again on return.
template <class Cfg, class Epi>
__device__ __forceinline__ void apply_in_registers(const Epi &epi,
                                                   FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                   const half *ops, float *stage, int col0) {
  static_assert(!Epi::kElemOperand, "an element operand needs each element's row");
  const int lane = threadIdx.x % 32;
  for (int e = lane; e < 256; e += 32) stage[(e / 16) * Cfg::kLdc + e % 16] = float(e % 16);
  __syncwarp();
  FragC cols;
  wmma::load_matrix_sync(cols, stage, Cfg::kLdc, wmma::mem_row_major);
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Cfg::kFragsN; ++j) {
    float op[FragC::num_elements];
#pragma unroll
    for (int e = 0; e < FragC::num_elements; ++e)
      op[e] = epi.prep(__half2float(ops[j * 16 + static_cast<int>(cols.x[e])]));
#pragma unroll
    for (int i = 0; i < Cfg::kFragsM; ++i)
#pragma unroll
      for (int e = 0; e < FragC::num_elements; ++e)
        acc[i][j].x[e] = epi.apply1(acc[i][j].x[e], op[e], -1,
                                    col0 + j * 16 + static_cast<int>(cols.x[e]));
  }
}

// The functor with the operand of one lane's 8 columns, prepared once, applied to each chunk (a
// functor of its own, without a column operand, so that emit_chunk takes it).
template <class Epi>
struct EpiPrepared {
  static constexpr bool kColOperand = false, kElemOperand = Epi::kElemOperand;
  const Epi &epi;
  float op[8];
  template <bool VEC>
  __device__ __forceinline__ void apply(float (&v)[8], const float (&)[8], int row, int col0,
                                        int N) const {
    epi.template apply<VEC>(v, op, row, col0, N);
  }
};

// How many row parts a functor's parked epilogue parks at a time (Epi::kParkParts; 1 without).
template <class Epi, class = void>
struct ParkParts {
  static constexpr int value = 1;
};
template <class Epi>
struct ParkParts<Epi, std::void_t<decltype(Epi::kParkParts)>> {
  static constexpr int value = Epi::kParkParts;
};

// Parks fragment rows I0 .. I1 - 1 of a warp's accumulators in fp32 at `park` (kLdc floats a row).
template <class Cfg, int I0, int I1>
__device__ __forceinline__ void park_fragments(float *park,
                                               FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN]) {
#pragma unroll
  for (int i = I0; i < I1; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kFragsN; ++j)
      wmma::store_matrix_sync(park + i * 16 * Cfg::kLdc + j * 16, acc[i][j], Cfg::kLdc,
                              wmma::mem_row_major);
}

// G of a lane's parked chunks from q0 (chunk q: lane + 32 q of the warp tile, rows 32 /
// kChunksPerRow a q) of a warp tile wholly inside C, through the prepared functor f and out to
// C: no guard per chunk, so that ptxas may interleave the chains of the G chunks (a guard per
// chunk made it finish one before the next).
template <class Cfg, int G, class Epi>
__device__ __forceinline__ void emit_parked_batch(const EpiPrepared<Epi> &f, const float *park,
                                                  int lane, int c, int q0, half *C, int N,
                                                  int row0, int col0) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  float v[G][8];  // G chunks in flight: loads, then all 8 G chains, then the stores
#pragma unroll
  for (int g = 0; g < G; ++g)
    load_staged8<Cfg>(park, (lane + 32 * (q0 + g)) / kChunksPerRow, c, chunk_swap(), v[g]);
#pragma unroll
  for (int g = 0; g < G; ++g)
    f.epi.template apply<true>(v[g], f.op, row0 + (lane + 32 * (q0 + g)) / kChunksPerRow,
                               col0 + c, N);
#pragma unroll
  for (int g = 0; g < G; ++g)
    store8(C + static_cast<size_t>(row0 + (lane + 32 * (q0 + g)) / kChunksPerRow) * N + col0 + c,
           v[g]);
}

// Chunks per batch: 4 where the count allows.
template <int Q>
constexpr int parked_batch() {
  return Q % 4 == 0 ? 4 : Q % 2 == 0 ? 2 : 1;
}

// A lane's parked chunks Q0 .. Q1 - 1 of a warp tile wholly inside C, a batch at a time.
template <class Cfg, int Q0, int Q1, class Epi>
__device__ __forceinline__ void emit_parked_chunks(const EpiPrepared<Epi> &f, const float *park,
                                                   int lane, int c, half *C, int N, int row0,
                                                   int col0) {
  constexpr int G = parked_batch<Q1 - Q0>();
  // One batch of code, run (Q1 - Q0) / G times: unrolled, a functor of ~14 instructions per
  // value made a straight line of ~2k instructions that every CTA runs once, with no reuse
  // from the instruction caches (GEMM+GELU old v20; docs/perf-log.md).
#pragma unroll 1
  for (int q0 = Q0; q0 < Q1; q0 += G)
    emit_parked_batch<Cfg, G>(f, park, lane, c, q0, C, N, row0, col0);
}

// Parts P0 .. P - 1 of a warp tile inside C parked and emitted one after another: part p's
// global stores drain while part p + 1 is parked (the whole-tile form, P = 1, parks every
// fragment before its first store).
template <class Cfg, int P, int P0, class Epi>
__device__ __forceinline__ void emit_parked_parts(const EpiPrepared<Epi> &f, float *park,
                                                  FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                  int lane, int c, half *C, int N, int row0,
                                                  int col0) {
  constexpr int FP = Cfg::kFragsM / P, QP = Cfg::WM * (Cfg::WN / 8) / 32 / P;
  static_assert(Cfg::kFragsM % P == 0, "whole fragment rows per part");
  park_fragments<Cfg, P0 * FP, (P0 + 1) * FP>(park, acc);
  __syncwarp();
  emit_parked_chunks<Cfg, P0 * QP, (P0 + 1) * QP>(f, park, lane, c, C, N, row0, col0);
  if constexpr (P0 + 1 < P)
    emit_parked_parts<Cfg, P, P0 + 1>(f, park, acc, lane, c, C, N, row0, col0);
}


// Parked epilogue for a functor with a column operand (the fused bias+GELU), where the pipeline
// smem holds every warp's whole WM x WN tile (kParkBytes): the warp first parks all its
// accumulators in fp32, then applies the functor chunk by chunk on the way out, with the
// accumulators' ~128 registers free for the chains of 4 chunks at a time (applied in registers, at
// ~254 registers, ptxas has little room to overlap them). At 2048^3, where one wave of tiles leaves
// the epilogue exposed, fused / plain came to 1.033-1.035 (E2; the register form: 1.036 in report
// H, a per-strip form 1.038-1.042 in E1; docs/perf-log.md); of the ~1.5 us over the plain GEMM
// there, the tanh costs nothing measurable, the FP32 chain ~0.6 us and this path's park and reload
// ~1 us, the bias nothing (probe epi_parts, run EP). A lane's chunks all have the same 8 columns
// (32 lanes cover whole rows), so its operand is read and prepared once. `park` is the warp's WM x
// kLdc floats. Epi::kParkParts (GEMM+GELU v3 on: 4 for the tanh form; 1 without it): a warp tile
// inside C is parked in that many row parts, each emitted before the next is parked: 0.3-0.9 us off
// fused at 2048³ (run PP).
template <class Cfg, class Epi>
__device__ __forceinline__ void epilogue_parked(const Epi &epi, float *park,
                                                FragC (&acc)[Cfg::kFragsM][Cfg::kFragsN],
                                                const half *ops, half *C, int M, int N,
                                                int row0, int col0) {
  constexpr int kChunksPerRow = Cfg::WN / 8;
  constexpr int kChunks = Cfg::WM * kChunksPerRow;
  static_assert(32 % kChunksPerRow == 0, "a lane's chunks share their 8 columns");
  constexpr int P = ParkParts<Epi>::value;  // whole fragment rows per part, else one part
  const int lane = threadIdx.x % 32, c = (lane % kChunksPerRow) * 8;
  const bool whole = row0 + Cfg::WM <= M && col0 + Cfg::WN <= N;
  if constexpr (P > 1 && Cfg::kFragsM % P == 0) {
    if (whole) {
      EpiPrepared<Epi> f{epi, {}};
#pragma unroll
      for (int q = 0; q < 8; ++q) f.op[q] = epi.prep(__half2float(ops[c + q]));
      emit_parked_parts<Cfg, P, 0>(f, park, acc, lane, c, C, N, row0, col0);
      return;
    }
  }
  park_fragments<Cfg, 0, Cfg::kFragsM>(park, acc);
  __syncwarp();
  EpiPrepared<Epi> f{epi, {}};
#pragma unroll
  for (int q = 0; q < 8; ++q) f.op[q] = epi.prep(__half2float(ops[c + q]));
  if (whole) {
    emit_parked_chunks<Cfg, 0, kChunks / 32>(f, park, lane, c, C, N, row0, col0);
  } else {
#pragma unroll
    for (int chunk = lane; chunk < kChunks; chunk += 32)
      emit_chunk<Cfg, true>(park, chunk / kChunksPerRow, c, chunk_swap(), C, M, N, row0, col0,
                            f);
  }
}

}  // namespace rlg
