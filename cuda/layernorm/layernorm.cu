// LayerNorm forward over rows: the variant table. Each row's launcher runs one step of the
// ladder (cuda/layernorm/layernorm_N_<name>.cuh, whose header says what the step changes and
// what it measured); each falls back to the step it builds on where its shapes end.
#include "layernorm/layernorm.h"
#include "layernorm/layernorm_3_affine_first.cuh"
#include "layernorm/layernorm_5_two_pass.cuh"
#include "layernorm/layernorm_6_pdl.cuh"
#include "variant_table.cuh"

namespace {

struct Variant {
  int id;
  const char *name;
  const char *summary;
  int (*launch)(const __half *, const __half *, const __half *, __half *, int, int, float,
                cudaStream_t);
};

constexpr Variant kVariants[] = {
    {1, "three_passes", "block per row, three passes over global memory", rln::layernorm_v1},
    {2, "registers", "row read once into registers, 16-byte accesses, warp or block per row",
     rln::layernorm_v2},
    {3, "affine_first", "v2 with gamma/beta loaded with the row, before the statistics",
     rln::layernorm_v3},
    {4, "two_rows", "two rows per block, one-pass shifted statistics (hidden 1032..4096), else v2",
     rln::layernorm_v4},
    {5, "two_pass", "v4 with two-pass statistics from the registers (exact), else v2",
     rln::layernorm_v5},
    {6, "pdl",
     "best: v4 with programmatic dependent launch (sm_90: the next launch waits resident)",
     rln::layernorm_v6},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

}  // namespace

extern "C" int rl_layernorm(int variant, const void *x, const void *gamma, const void *beta,
                            void *y, int rows, int hidden, float eps, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && x != nullptr && gamma != nullptr && beta != nullptr &&
             y != nullptr && rows >= 1 && hidden >= 1);
  return v->launch(static_cast<const __half *>(x), static_cast<const __half *>(gamma),
                   static_cast<const __half *>(beta), static_cast<__half *>(y), rows, hidden, eps,
                   rl_stream(stream));
}

extern "C" int rl_layernorm_variant_count(void) { return rl_table::count(kVariants); }

extern "C" const char *rl_layernorm_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_layernorm_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}
