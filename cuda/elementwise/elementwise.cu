// Elementwise ReLU / GELU: the variant table both operations share. Each step's launcher
// (cuda/elementwise/elementwise_N_<name>.cuh) is a template on the operation's reference form
// (v1) and fast form (v2 on); a row holds it for ReLU and both GELU forms.
#include "elementwise/elementwise.h"
#include "elementwise/elementwise_3_cp_async.cuh"
#include "elementwise/elementwise_4_chunks.cuh"
#include "variant_table.cuh"

namespace {

using rlew::Gelu;
using rlew::GeluErfFast;
using rlew::GeluTanhFast;
using rlew::Relu;

using Launch = int (*)(const __half *, __half *, size_t, cudaStream_t);

struct Variant {
  int id;
  const char *name;
  const char *summary;
  Launch relu, gelu_tanh, gelu_erf;
};

constexpr Variant kVariants[] = {
    {1, "scalar", "scalar grid-stride, GELU from gelu.cuh", rlew::elementwise_v1<Relu, Relu>,
     rlew::elementwise_v1<Gelu<0>, GeluTanhFast>, rlew::elementwise_v1<Gelu<1>, GeluErfFast>},
    {2, "vectors", "16-byte vectors, 4 per thread per step, one resident wave, MUFU GELU",
     rlew::elementwise_v2<Relu, Relu>, rlew::elementwise_v2<Gelu<0>, GeluTanhFast>,
     rlew::elementwise_v2<Gelu<1>, GeluErfFast>},
    {3, "cp_async", "v2 with loads double-buffered through shared memory by cp.async",
     rlew::elementwise_v3<Relu, Relu>, rlew::elementwise_v3<Gelu<0>, GeluTanhFast>,
     rlew::elementwise_v3<Gelu<1>, GeluErfFast>},
    {4, "chunks", "best: copy v3's shape, one block per 2 x 256 vectors, no grid-stride loop",
     rlew::elementwise_v4<Relu, Relu>, rlew::elementwise_v4<Gelu<0>, GeluTanhFast>,
     rlew::elementwise_v4<Gelu<1>, GeluErfFast>},
};
static_assert(rl_table::ids_in_order(kVariants), "variant ids run 1..N in order");

// The row's launcher for one operation, after the checks every variant shares.
int run(int variant, const void *x, void *y, size_t n, Launch Variant::*op, void *stream) {
  const Variant *v = rl_table::find(kVariants, variant);
  RL_REQUIRE(v != nullptr && x != nullptr && y != nullptr && n >= 1);
  return (v->*op)(static_cast<const __half *>(x), static_cast<__half *>(y), n, rl_stream(stream));
}

}  // namespace

extern "C" int rl_relu(int variant, const void *x, void *y, size_t n, void *stream) {
  return run(variant, x, y, n, &Variant::relu, stream);
}

extern "C" int rl_gelu(int variant, const void *x, void *y, size_t n, int gelu_kind,
                       void *stream) {
  RL_REQUIRE(gelu_kind == 0 || gelu_kind == 1);
  return run(variant, x, y, n, gelu_kind == 0 ? &Variant::gelu_tanh : &Variant::gelu_erf, stream);
}

extern "C" int rl_elementwise_variant_count(void) { return rl_table::count(kVariants); }

extern "C" const char *rl_elementwise_variant_name(int variant) {
  return rl_table::name(kVariants, variant);
}

extern "C" const char *rl_elementwise_variant_summary(int variant) {
  return rl_table::summary(kVariants, variant);
}
