// GEMM+bias+GELU v22's hand-offs (ws_epilogue_warps.cuh) simulated on the host, for its CPU
// test: one CTA's producer, the TMA unit, two consumer warpgroups and the epilogue warps
// taking `tiles` tiles of k_tiles k-tiles through `stages` stages (the 256-wide tile: the
// second half of each tile staged in the stage of its last k-tile), interleaved by a seeded
// random choice at every step. mbarriers are modelled by completed phases, the named barriers
// (staged[w], free[w], the consumers' pair, v25's stagger) by counts. The epilogue warps find
// the held stage with the kernel's own ws_epi_tile_held.
// v23 (held_by_consumers): each consumer warpgroup finishes and stores its own second half
// and releases the held stage in its next tile's first k-tile (the CTA's last: at its end);
// the epilogue warps take the first halves only. v25 (stagger > 0, with v23's): on the CTA's
// last tile, warpgroup 1 starts once warpgroup 0 has released its k-tile `stagger` - 1
// (ws_stagger_last.cuh), where the tile has more than `stagger` k-tiles.
#pragma once
#include <vector>

#include "gemm/ws_epilogue_warps.cuh"
#include "gemm/ws_ring_model.cuh"

namespace rlg {

// mutation 0: as the kernel; 1: the epilogue warps take the stage after the held one (v22
// only); 2: no initial free[] arrival; 3: the consumers do not wait on free[]. Returns 0 when
// every agent read what it wanted and nothing was overwritten before it was used; 1 bad
// arguments; 2 a wrong tile or k-tile read; 3 a load landed in a stage still read or holding a
// staged half; 4 no agent can move (a deadlock); 5 a staging overwritten before the epilogue
// warps stored it.
inline int ws_epi_model_check(int stages, int tiles, int k_tiles, unsigned seed, int mutation,
                              bool held_by_consumers = false, int stagger = 0) {
  if (stages < 2 || stages > 16 || tiles < 1 || k_tiles < 1 || mutation < 0 || mutation > 3 ||
      (held_by_consumers && mutation == 1) || stagger < 0 || (stagger > 0 && !held_by_consumers) ||
      static_cast<long long>(tiles) * k_tiles > 100000)
    return 1;
  const int S = stages, total = tiles * k_tiles;
  // A stage's empty barrier takes one arrival per consumer warpgroup a phase (the kernel's
  // kReleasers per CTA, scaled down); the epilogue warps arrive for both.
  std::vector<int> full_done(S, 0), empty_done(S, 0), empty_count(S, 0), data(S, -1);
  std::vector<int> in_use(S, 0), half_tile(S, -1);  // half_tile: the tile staged in the stage
  std::vector<int> halves(S, 0);  // v23: the consumers' halves staged in the stage, not yet read
  int stagger_arrived = 0;        // v25: warpgroup 0's arrival on the stagger barrier
  std::vector<int> pending, pending_label, pair_at(tiles, 0);
  int staging[2] = {-1, -1}, staged[2] = {0, 0}, freed[2] = {0, 0};
  ModelRng next_rand(seed);
  const auto passed = model_wait_passed;
  auto arrive_empty = [&](int st) {
    if (++empty_count[st] == 2) {
      empty_count[st] = 0;
      ++empty_done[st];
    }
  };
  struct Producer {
    int i = 0, s = 0, phase = 0;
    bool first = true;
  } prod;
  struct Consumer {
    int pc = 0, t = 0, kt = 0, s = 0, phase = 0, prev = -1, held = -1;
  } cons[2];
  struct Epilogue {
    int pc = 0, t = 0, s = 0, held = -1;
  } epi;
  if (mutation != 2) freed[0] = freed[1] = 1;

  for (long long steps = 0; steps < 200LL * total + 10000; ++steps) {
    const bool live[5] = {prod.i < total, cons[0].pc != 9, cons[1].pc != 9, epi.pc != 9,
                          !pending.empty()};
    if (!live[0] && !live[1] && !live[2] && !live[3] && !live[4]) return 0;
    bool can[5] = {false, false, false, false, live[4]};
    if (live[0]) can[0] = prod.first || passed(empty_done[prod.s], prod.phase ^ 1);
    for (int w = 0; w < 2; ++w) {
      const Consumer &c = cons[w];
      if (c.pc == 1)
        can[1 + w] = passed(full_done[c.s], static_cast<unsigned>(c.phase));
      else if (c.pc == 4)
        can[1 + w] = mutation == 3 || freed[w] > 0;
      else if (c.pc == 6)
        can[1 + w] = pair_at[c.t] == 2;
      else if (c.pc == 10)
        can[1 + w] = stagger_arrived > 0;
      else
        can[1 + w] = c.pc != 9;
    }
    if (epi.pc == 1)
      can[3] = staged[0] > 0 && staged[1] > 0;
    else
      can[3] = epi.pc != 9;
    if (!can[0] && !can[1] && !can[2] && !can[3] && !can[4]) return 4;
    int a;
    do a = static_cast<int>(next_rand(5));
    while (!can[a]);
    if (a == 4) {  // the TMA unit lands one load in flight
      const int j = static_cast<int>(next_rand(static_cast<unsigned>(pending.size())));
      const int st = pending[j];
      if (in_use[st] || half_tile[st] >= 0 || halves[st] > 0) return 3;
      data[st] = pending_label[j];
      ++full_done[st];
      pending.erase(pending.begin() + j);
      pending_label.erase(pending_label.begin() + j);
    } else if (a == 0) {  // the producer issues its next load
      pending.push_back(prod.s);
      pending_label.push_back(prod.i++);
      if (++prod.s == S) {
        prod.s = 0;
        prod.phase ^= 1;
        prod.first = false;
      }
    } else if (a == 3) {  // the epilogue warps
      switch (epi.pc) {
        case 0:  // the next tile, but the CTA's last (its consumers store it)
          if (epi.t + 1 >= tiles) {
            epi.pc = 9;
            break;
          }
          epi.held = ws_epi_tile_held(epi.s, k_tiles, S);
          if (mutation == 1) epi.held = (epi.held + 1) % S;
          epi.pc = 1;
          break;
        case 1:  // both warpgroups' staged[] passed: post, and the stores issued
          --staged[0];
          --staged[1];
          if (staging[0] != epi.t || staging[1] != epi.t ||
              (!held_by_consumers && half_tile[epi.held] != epi.t))
            return 2;
          epi.pc = held_by_consumers ? 3 : 2;  // v23: the held stage is the consumers' to give
          break;
        case 2:  // the stores have read the held half: the stage back to the producer
          half_tile[epi.held] = -1;
          arrive_empty(epi.held);
          arrive_empty(epi.held);
          epi.pc = 3;
          break;
        case 3:  // ... and the staging: free[] for both warpgroups
          staging[0] = staging[1] = -1;
          ++freed[0];
          ++freed[1];
          ++epi.t;
          epi.pc = 0;
          break;
        default:
          break;
      }
    } else {
      const int w = a - 1;
      Consumer &c = cons[w];
      const bool last = c.t == tiles - 1;
      switch (c.pc) {
        case 0:  // the next tile
          if (c.t == tiles) {
            c.pc = 9;
            break;
          }
          c.kt = 0;
          c.prev = -1;
          // v25: warpgroup 1 waits on the stagger barrier on the last tile.
          c.pc = stagger > 0 && w == 1 && last && k_tiles > stagger ? 10 : 1;
          break;
        case 10:  // the stagger barrier passed
          --stagger_arrived;
          c.pc = 1;
          break;
        case 1:  // the stage's full wait passed: its bytes are read
          if (data[c.s] != c.t * k_tiles + c.kt) return 2;
          ++in_use[c.s];
          c.pc = 2;
          break;
        case 2:  // the previous k-tile's wgmmas done: its stage released
          if (c.prev >= 0) {
            --in_use[c.prev];
            arrive_empty(c.prev);
          }
          if (held_by_consumers && c.kt == 0 && c.held >= 0) {  // v23: its store has read it
            --halves[c.held];
            arrive_empty(c.held);
            c.held = -1;
          }
          if (stagger > 0 && w == 0 && last && k_tiles > stagger && c.kt == stagger)
            ++stagger_arrived;  // v25: its first `stagger` k-tiles are done
          c.prev = c.s;
          if (++c.s == S) {
            c.s = 0;
            c.phase ^= 1;
          }
          c.pc = ++c.kt < k_tiles ? 1 : 3;
          break;
        case 3:  // the tile's last wgmmas done; its stage held for the second half
          --in_use[c.prev];
          c.pc = 4;
          break;
        case 4:  // free[w] passed (or not waited for: mutation 3): the first half staged
          if (mutation != 3) --freed[w];
          if (!last) {
            if (staging[w] >= 0) return 5;
            staging[w] = c.t;
          }
          c.pc = 5;
          break;
        case 5:  // the pair's barrier before the held stage
          ++pair_at[c.t];
          c.pc = 6;
          break;
        case 6:  // both past their last wgmmas: the second half into the held stage
          if (in_use[c.prev]) return 3;
          if (held_by_consumers)
            ++halves[c.prev];
          else if (!last)
            half_tile[c.prev] = c.t;
          c.pc = 7;
          break;
        case 7:  // staged[w] (or, the last tile, stored here and the stage released)
          if (last) {
            if (held_by_consumers) --halves[c.prev];  // v23: given back at the CTA's end (v32)
            arrive_empty(c.prev);
          } else {
            if (held_by_consumers) c.held = c.prev;  // v23: given back in its next tile's first
            ++staged[w];
          }
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
