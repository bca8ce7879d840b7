// What the host models of the warp-specialized kernel's hand-offs share (ws_pingpong.cuh's of
// HGEMM v17's ring, ws_epilogue_warps_model.cuh's of GEMM+bias+GELU v22's epilogue warps): the
// seeded choice of the agent that moves next, and an mbarrier wait modelled by the barrier's
// completed phases.
#pragma once

namespace rlg {

// xorshift32 from a seed: the interleaving a model runs is a function of its seed alone.
struct ModelRng {
  unsigned state;
  explicit ModelRng(unsigned seed) : state(seed * 2654435761u + 12345u) {}
  unsigned operator()(unsigned n) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state % n;
  }
};

// A parity wait passes once the phase of that parity has completed (done: the phases
// completed so far).
inline bool model_wait_passed(int done, unsigned parity) {
  return (static_cast<unsigned>(done) & 1u) != parity;
}

}  // namespace rlg
