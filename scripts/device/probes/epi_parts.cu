// Development probe (not part of the product): what the fused GEMM+GELU's exposed epilogue
// spends at one wave of 256x128 tiles (2048^3, 1024x4096x4096), by taking its arithmetic apart.
// Every case is GEMM+GELU v22's dispatch and kernels with a functor that differs only in
// apply1, the per-value function (on the parked epilogue, but for plain and strip):
//   plain       the plain GEMM (HGEMM v22: the identity epilogue, no bias);
//   fused       the product's bias + tanh GELU: h = v/2 + b/2, u = h (c0 + c1 h^2),
//               h + h tanh(u) (5 FP32 ops and one MUFU.TANH);
//   no-tanh     the same chain with the tanh replaced by a clamp of u to [-1, 1] (2 ALU ops,
//               no SFU): timing only, not GELU;
//   tanh-only   h, then h + h tanh(h) (2 FP32 ops and the MUFU): timing only;
//   bias-only   h alone (1 FP32 op): timing only;
//   park-only   the parked path with nothing applied (the value itself): timing only;
//   strip       the product's function on the plain GEMM's epilogue path (16-row strips
//               staged per warp, each chunk's bias loaded from global memory): GELU, but
//               not checked here.
// So fused - no-tanh sizes the SFU's part, no-tanh - bias-only the FP32 chain's, bias-only -
// park-only the operand's, park-only - plain the parked path's own, strip - fused the path's
// choice. Outputs are not checked (the timing-only functors are not GELU); each case's launch
// is the product's, so its edges are guarded. Run EP's first runs (run1.txt) had the first
// five cases only.
// Timing: probe_bench.cuh (cold: 4 buffer sets rotated; graph and single launches, cases
// interleaved round by round, medians). Built by scripts/device/probes/build.sh; run by
// scripts/device/epi-parts.sh. Arguments: rounds of the whole set (default 3), then "parts" for
// run PR's cases.
#include <array>
#include <cstdlib>
#include <string>

#include "../../../cuda/gemm_gelu.cu"
#include "probe_gemm_sets.cuh"

namespace {

using Fused = EpiBiasGelu<0, true>;

// A timing-only variant of the fused functor: each hides Fused::apply1 for the kernels, which
// call apply1 on the functor's own type.
struct NoTanh : Fused {
  __device__ __forceinline__ float apply1(float v, float op) const {
    const float h = fmaf(v, 0.5f, op);
    const float u = h * fmaf(0.285419265090401f, h * h, 1.5957691216057308f);
    return fmaf(h, fminf(fmaxf(u, -1.0f), 1.0f), h);
  }
};
struct TanhOnly : Fused {
  __device__ __forceinline__ float apply1(float v, float op) const {
    const float h = fmaf(v, 0.5f, op);
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(h));
    return fmaf(h, t, h);
  }
};
struct BiasOnly : Fused {
  __device__ __forceinline__ float apply1(float v, float op) const { return fmaf(v, 0.5f, op); }
};
struct ParkOnly : Fused {  // the parked path with nothing applied (the operand unused)
  __device__ __forceinline__ float apply1(float v, float) const { return v; }
};
// The product's function on the plain GEMM's path instead of the parked one: each warp stages
// 16-row strips (the kernel takes that path for a functor without a column operand) and each
// chunk loads its 8 bias values from global memory (Fused::apply).
struct Strip : Fused {
  static constexpr bool kColOperand = false;
};

// Run PP (twenty-second session): the product's function with the warp tile parked in 2 or 4
// row parts, each part's chunks emitted before the next is parked (Epi::kParkParts), so that
// one part's global stores drain while the next is parked; and the parked path alone in 2
// parts. Run PR (second argument "parts"): the parts as one rolled loop (Epi::kParkRolled: one
// copy of the chunk code, where PP's form has one per part), with the tanh and the erf form.
template <class Base, int P, bool ROLLED = false>
struct InParts : Base {
  static constexpr int kParkParts = P;
  static constexpr bool kParkRolled = ROLLED;
};
using FusedErf = EpiBiasGelu<1, true>;  // GEMM+GELU v22's erf form

constexpr int kSets = 4;

template <class Epi>
ProbeCase fused_case(const char *name, int m, int n, int k, half *const *a, half *const *b,
                     half *const *c, const half *bias) {
  return {name, [=](int set, cudaStream_t s) {
            Epi e{};
            e.bias = bias;
            CK(static_cast<cudaError_t>(
                rlg::launch_variant_v14_on(22, a[set], b[set], c[set], m, n, k, e, s)));
          }};
}

// The parts forms' C against GEMM+GELU v22's, bitwise (the same values, stored in another
// order), for both GELU forms at shape m x n x k on random inputs; exits on a difference.
void check_parts(int m, int n, int k, cudaStream_t st) {
  half *a, *b, *bias, *c0, *c1;
  CK(cudaMalloc(&a, (size_t)m * k * 2));
  CK(cudaMalloc(&b, (size_t)k * n * 2));
  CK(cudaMalloc(&bias, (size_t)n * 2));
  CK(cudaMalloc(&c0, (size_t)m * n * 2));
  CK(cudaMalloc(&c1, (size_t)m * n * 2));
  CK(static_cast<cudaError_t>(rl_fill_uniform_f16(a, (size_t)m * k, 3, -1.f, 1.f, st)));
  CK(static_cast<cudaError_t>(rl_fill_uniform_f16(b, (size_t)k * n, 5, -1.f, 1.f, st)));
  CK(static_cast<cudaError_t>(rl_fill_uniform_f16(bias, n, 9, -1.f, 1.f, st)));
  const auto run = [&](auto e, half *c) {
    e.bias = bias;
    CK(cudaMemsetAsync(c, 0xff, (size_t)m * n * 2, st));  // poisoned: NaN
    CK(static_cast<cudaError_t>(rlg::launch_variant_v14_on(22, a, b, c, m, n, k, e, st)));
  };
  std::vector<unsigned short> h0((size_t)m * n), h1((size_t)m * n);
  const auto fetch = [&](const half *c, std::vector<unsigned short> &h) {
    CK(cudaMemcpyAsync(h.data(), c, h.size() * 2, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
  };
  const auto compare = [&](const char *what) {
    size_t diff = 0, nan = 0;
    for (size_t i = 0; i < h0.size(); ++i) {
      diff += h0[i] != h1[i];
      nan += (h1[i] & 0x7c00) == 0x7c00;
    }
    std::printf("check %dx%dx%d, %s vs GEMM+GELU v22: %zu of %zu differ, %zu NaN/inf\n", m, n, k,
                what, diff, h0.size(), nan);
    if (diff != 0 || nan != 0) std::exit(1);
  };
  run(Fused{}, c0);
  fetch(c0, h0);
  run(InParts<Fused, 2>{}, c1), fetch(c1, h1), compare("tanh, 2 parts");
  run(InParts<Fused, 4>{}, c1), fetch(c1, h1), compare("tanh, 4 parts");
  run(InParts<Fused, 2, true>{}, c1), fetch(c1, h1), compare("tanh, 2 parts rolled");
  run(InParts<Fused, 4, true>{}, c1), fetch(c1, h1), compare("tanh, 4 parts rolled");
  run(FusedErf{}, c0);
  fetch(c0, h0);
  run(InParts<FusedErf, 4>{}, c1), fetch(c1, h1), compare("erf, 4 parts");
  run(InParts<FusedErf, 4, true>{}, c1), fetch(c1, h1), compare("erf, 4 parts rolled");
  for (half *q : {a, b, bias, c0, c1}) CK(cudaFree(q));
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const bool parts = argc > 2 && std::string(argv[2]) == "parts";  // run PR's cases
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  for (const auto &sh : {std::array<int, 3>{2048, 2048, 2048}, std::array<int, 3>{2000, 1928, 72},
                         std::array<int, 3>{1024, 4096, 4096}})
    check_parts(sh[0], sh[1], sh[2], st);
  const int shapes[][3] = {{2048, 2048, 2048}, {1024, 4096, 4096}};
  for (const auto &sh : shapes) {
    const int m = sh[0], n = sh[1], k = sh[2];
    const GemmSets<kSets> sets(m, n, k, st);
    half *const *a = sets.a, *const *b = sets.b, *const *c = sets.c;
    half *bias;
    CK(cudaMalloc(&bias, (size_t)n * 2));
    CK(static_cast<cudaError_t>(rl_fill_uniform_f16(bias, n, 7, -1.f, 1.f, st)));
    CK(cudaStreamSynchronize(st));
    std::vector<ProbeCase> ep_cases = {
        {"plain (HGEMM v22)",
         [=](int set, cudaStream_t s) {
           CK(static_cast<cudaError_t>(rlg::launch_variant_v14_on(
               22, a[set], b[set], c[set], m, n, k, rlg::EpiIdentity{}, s)));
         }},
        fused_case<Fused>("fused (GEMM+GELU v22)", m, n, k, a, b, c, bias),
        fused_case<NoTanh>("no-tanh (timing only)", m, n, k, a, b, c, bias),
        fused_case<TanhOnly>("tanh-only (timing only)", m, n, k, a, b, c, bias),
        fused_case<BiasOnly>("bias-only (timing only)", m, n, k, a, b, c, bias),
        fused_case<ParkOnly>("park-only (timing only)", m, n, k, a, b, c, bias),
        fused_case<Strip>("fused on 16-row strips", m, n, k, a, b, c, bias),
        fused_case<InParts<Fused, 2>>("fused, parked in 2 parts", m, n, k, a, b, c, bias),
        fused_case<InParts<Fused, 4>>("fused, parked in 4 parts", m, n, k, a, b, c, bias),
        fused_case<InParts<ParkOnly, 2>>("park-only in 2 parts (timing only)", m, n, k, a, b, c,
                                         bias),
    };
    std::vector<ProbeCase> pc_cases = {
        ep_cases[0],
        fused_case<Fused>("tanh: v22 (whole tile)", m, n, k, a, b, c, bias),
        fused_case<InParts<Fused, 4>>("tanh: 4 parts (v23)", m, n, k, a, b, c, bias),
        fused_case<InParts<Fused, 4, true>>("tanh: 4 parts rolled", m, n, k, a, b, c, bias),
        fused_case<InParts<Fused, 2, true>>("tanh: 2 parts rolled", m, n, k, a, b, c, bias),
        fused_case<FusedErf>("erf: v22 (whole tile)", m, n, k, a, b, c, bias),
        fused_case<InParts<FusedErf, 4>>("erf: 4 parts", m, n, k, a, b, c, bias),
        fused_case<InParts<FusedErf, 4, true>>("erf: 4 parts rolled", m, n, k, a, b, c, bias),
    };
    const std::vector<ProbeCase> &cases = parts ? pc_cases : ep_cases;
    const double bytes = 2.0 * ((double)m * k + (double)k * n + (double)m * n);
    for (int r = 0; r < rounds; ++r) {
      std::printf("== %dx%dx%d, set %d\n", m, n, k, r + 1);
      probe_run(cases, kSets, bytes, st);
    }
    CK(cudaFree(bias));
  }
  CK(cudaStreamDestroy(st));
  return 0;
}
