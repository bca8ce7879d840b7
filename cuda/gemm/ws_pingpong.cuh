// The pingpong schedule of the warp-specialized kernel (HGEMM v17, hgemm_17_pingpong.cuh): its
// bookkeeping, and a host model of its ring that checks it (rl_gemm_pingpong_ring_check).
//
// The cluster's tiles go to its two consumer warpgroups in turn (tile number `turn` of the
// cluster to warpgroup turn % 2); the producer loads every tile's k-tiles in that order, so a
// warpgroup moves its ring position (stage, phase) past the other's tiles without waiting.
// mbarrier waits are by phase parity, which tells a phase from the one before it but not from
// the one two before: a warpgroup that skipped a tile could find a stage's full barrier two
// phases behind the one it wants and take the other tile's bytes for its own. So each
// warpgroup arrives on its hand-off barrier once it has waited for the last stage of its tile,
// and the other waits for that before its next tile's first stage; a stage's previous phase
// has then always been waited for (it is the tile before's), and its barrier is at most one
// phase behind.
#pragma once

#include <vector>

#include "gemm/ws_ring_model.cuh"

namespace rlg {

// The ring position moved past n k-tiles of S stages.
__host__ __device__ __forceinline__ void ws_ring_advance(int &s, int &phase, int n, int S) {
  const int next = s + n;
  phase ^= (next / S) & 1;
  s = next % S;
}

// The parity of the hand-off phase warpgroup cw waits for before its own tile number `mine`
// (0, 1, ...; not the cluster's first tile): the other's tile before it is the other's tile
// number mine - 1 (warpgroup 0) or mine (warpgroup 1).
__host__ __device__ __forceinline__ unsigned ws_pp_handoff_parity(int cw, int mine) {
  return static_cast<unsigned>(cw == 0 ? mine - 1 : mine) & 1u;
}

// The ring of one CTA under v17's schedule, simulated on the host: a producer loading `tiles`
// tiles of k_tiles k-tiles into `stages` stages, the TMA unit landing its loads in any order,
// and two consumer warpgroups taking the tiles in turn, each waiting, releasing and handing
// off as the kernel does (ws_ring_advance, ws_pp_handoff_parity), interleaved by a seeded
// random choice at every step. mbarriers are modelled by their completed phases, a wait by
// its parity. handoff 0 leaves the hand-off out (the CPU test shows that this fails). 0: every
// consumer read the k-tile it wanted and no load landed in a stage still being read; 1 bad
// arguments; 2 a consumer took another k-tile's bytes; 3 a load overwrote a stage in use;
// 4 no agent can move (a deadlock).
inline int ws_pp_ring_check(int stages, int tiles, int k_tiles, unsigned seed, bool handoff) {
  if (stages < 2 || stages > 16 || tiles < 1 || k_tiles < 1 ||
      static_cast<long long>(tiles) * k_tiles > 100000)
    return 1;
  const int S = stages, total = tiles * k_tiles;
  std::vector<int> full_done(S, 0), empty_done(S, 0), data(S, -1), in_use(S, 0);
  std::vector<int> pending;  // stages whose load is in flight (one at most per stage)
  std::vector<int> pending_label;
  int hand_done[2] = {0, 0};
  ModelRng next_rand(seed);
  const auto passed = model_wait_passed;

  struct Producer {
    int i = 0, s = 0, phase = 0;
    bool first = true;
  } prod;
  struct Consumer {
    int pc = 0, t = 0, turn = 0, mine = 0, kt = 0, s = 0, phase = 0, prev = -1;
    unsigned par = 0;
  } cons[2];

  for (long long steps = 0; steps < 100LL * total + 10000; ++steps) {
    const bool prod_live = prod.i < total;
    const bool cons_live[2] = {cons[0].pc != 6, cons[1].pc != 6};
    if (!prod_live && !cons_live[0] && !cons_live[1]) return 0;
    // What each agent can do now (a blocked wait cannot move).
    bool can[4] = {false, false, false, !pending.empty()};
    if (prod_live) can[0] = prod.first || passed(empty_done[prod.s], prod.phase ^ 1);
    for (int w = 0; w < 2; ++w) {
      const Consumer &c = cons[w];
      if (c.pc == 1)
        can[1 + w] = passed(hand_done[1 - w], c.par);
      else if (c.pc == 3)
        can[1 + w] = passed(full_done[c.s], static_cast<unsigned>(c.phase));
      else
        can[1 + w] = c.pc != 6;
    }
    if (!can[0] && !can[1] && !can[2] && !can[3]) return 4;
    int a;
    do a = static_cast<int>(next_rand(4));
    while (!can[a]);
    if (a == 3) {  // the TMA unit lands one load in flight, any of them
      const int j = static_cast<int>(next_rand(static_cast<unsigned>(pending.size())));
      const int st = pending[j];
      if (in_use[st]) return 3;
      data[st] = pending_label[j];
      ++full_done[st];
      pending.erase(pending.begin() + j);
      pending_label.erase(pending_label.begin() + j);
    } else if (a == 0) {  // the producer issues its next k-tile's load
      pending.push_back(prod.s);
      pending_label.push_back(prod.i);
      ++prod.i;
      if (++prod.s == S) {
        prod.s = 0;
        prod.phase ^= 1;
        prod.first = false;
      }
    } else {
      const int w = a - 1;
      Consumer &c = cons[w];
      switch (c.pc) {
        case 0:  // the cluster's next tile
          if (c.t == tiles) {
            c.pc = 6;
            break;
          }
          if (c.turn % 2 != w) {
            ws_ring_advance(c.s, c.phase, k_tiles, S);
            ++c.turn;
            ++c.t;
            break;
          }
          if (c.turn > 0 && handoff) {
            c.par = ws_pp_handoff_parity(w, c.mine);
            c.pc = 1;
          } else {
            c.pc = 2;
          }
          ++c.turn;
          break;
        case 1:  // the hand-off has passed
          c.pc = 2;
          break;
        case 2:
          ++c.mine;
          c.kt = 0;
          c.prev = -1;
          c.pc = 3;
          break;
        case 3:  // the stage's full wait has passed: its bytes are read
          if (data[c.s] != c.t * k_tiles + c.kt) return 2;
          in_use[c.s] = 1;
          if (handoff && c.kt == k_tiles - 1) ++hand_done[w];
          c.pc = 4;
          break;
        case 4:  // the previous k-tile's wgmmas done: its stage released
          if (c.prev >= 0) {
            in_use[c.prev] = 0;
            ++empty_done[c.prev];
          }
          c.prev = c.s;
          ws_ring_advance(c.s, c.phase, 1, S);
          c.pc = ++c.kt < k_tiles ? 3 : 5;
          break;
        case 5:  // the tile's last stage released, its epilogue
          in_use[c.prev] = 0;
          ++empty_done[c.prev];
          ++c.t;
          c.pc = 0;
          break;
        default:
          break;
      }
    }
  }
  return 4;  // still moving after every step allowed: treat as stuck
}

}  // namespace rlg
