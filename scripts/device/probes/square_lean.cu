// Development probe (not part of the product): does the square HGEMM's main loop lose its
// tensor-pipe time to integer work? Nsight Compute (NS, twenty-fifth session) put the tensor
// pipe at 73% active at 4096³ with 87.5 instructions per warp and k-step of which 32 are HMMA,
// 8 LDSM and ~40 integer (ring indices, per-chunk bounds predicates, address math), and most
// stall samples on "wait" (fixed-latency dependencies) with two warps per scheduler.
// `lean` is the product's kernel at the squares (v7's loop on the 256x128 tile, 8 warps of
// 64x64, 4 stages of BK 64, the same fragment double buffer, copy placement, barriers and
// epilogue) with the k-tile loop unrolled over the ring (every stage index a constant) and no
// bounds predicates (whole tiles only: M % 256, N % 128, K % (64 * 4) == 0). Its C must equal
// the product's bit for bit (the same MMAs in the same order). Timing: probe_bench.cuh, the
// product's "best" and lean interleaved, cold (4 buffer sets). Built by
// scripts/device/probes/build.sh; run by scripts/device/square-lean.sh. Argument: rounds.
#include <array>
#include <cstdlib>
#include <vector>

#include "../../../cuda/hgemm_kernels.cuh"
#include "probe_gemm_sets.cuh"

namespace {

using Cfg = rlg::TileCfg<256, 128, 64, 64, 64, 4, true, 16, 1>;  // the product's square tile

__device__ __forceinline__ void copy16(unsigned dst, const half *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__global__ void __launch_bounds__(Cfg::kThreads, 1)
    lean_kernel(const half *__restrict__ A, const half *__restrict__ B, half *__restrict__ C,
                int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  constexpr int S = Cfg::kStages, KS = Cfg::BK / 16;
  // A: 8 threads per 64-wide row, 32 rows per pass, 8 passes; B: 16 per row, 16 rows, 4 passes.
  constexpr int kAT = Cfg::BK / 8, kARows = Cfg::kThreads / kAT, kAI = Cfg::BM / kARows;
  constexpr int kBT = Cfg::BN / 8, kBRows = Cfg::kThreads / kBT, kBI = Cfg::BK / kBRows;
  constexpr unsigned kStageBytes = Cfg::kStageHalves * 2;
  half *smem = reinterpret_cast<half *>(smem_raw);
  const rlg::TilePos<Cfg> at(blockIdx.x, M, N);
  const int t = threadIdx.x, k_tiles = K / Cfg::BK;
  const half *ga = A + static_cast<size_t>(at.tm * Cfg::BM + t / kAT) * K + (t % kAT) * 8;
  const half *gb = B + static_cast<size_t>(t / kBT) * N + at.tn * Cfg::BN + (t % kBT) * 8;
  const int a_pass = kARows * K, b_pass = kBRows * N;  // elements; < 2^31 at the probe's sizes
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned sa = sbase + ((t / kAT) * Cfg::kLda + (t % kAT) * 8) * 2;
  const unsigned sb = sbase + (Cfg::kAHalves + (t / kBT) * Cfg::kLdb + (t % kBT) * 8) * 2;
  const auto copy_a = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kAI; ++i)
      copy16(sa + stage * kStageBytes + i * kARows * Cfg::kLda * 2, ga + i * a_pass);
  };
  const auto copy_b = [&](int stage) {
#pragma unroll
    for (int i = 0; i < kBI; ++i)
      copy16(sb + stage * kStageBytes + i * kBRows * Cfg::kLdb * 2, gb + i * b_pass);
  };

#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    copy_a(s);
    copy_b(s);
    ga += Cfg::BK;
    gb += static_cast<size_t>(Cfg::BK) * N;
    rlg::cp_async_commit();
  }
  rlg::FragC acc[Cfg::kFragsM][Cfg::kFragsN];
  rlg::zero<Cfg>(acc);
  rlg::cp_async_wait<S - 2>();
  __syncthreads();
  rlg::FragA a[2][Cfg::kFragsM];
  rlg::FragB b[2][Cfg::kFragsN];
  rlg::load_frags<Cfg>(smem, at.wm, at.wn, 0, a[0], b[0]);
  for (int kt0 = 0; kt0 < k_tiles; kt0 += S) {
#pragma unroll
    for (int st = 0; st < S; ++st) {  // k-tile kt0 + st sits in stage st
      const bool refill = kt0 + st + S - 1 < k_tiles;
      const int wr = (st + S - 1) % S;
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        // The stage's offset is made opaque once per use: with every offset a constant the
        // compiler hoists all 32 fragment addresses (4 stages x 8 LDSM) out of the loop and
        // spills them (ptxas: 384 bytes), which the product's rolled ring does not.
        int rd = (ks == KS - 1 ? (st + 1) % S : st) * Cfg::kStageHalves;
        asm volatile("" : "+r"(rd));
        rlg::load_frags<Cfg>(smem + rd, at.wm, at.wn,
                             ks == KS - 1 ? 0 : (ks + 1) * 16, a[(ks + 1) % 2], b[(ks + 1) % 2]);
        if (ks == 0 && refill) copy_a(wr);
        if (ks == 1) {
          if (refill) copy_b(wr);
          ga += Cfg::BK;
          gb += static_cast<size_t>(Cfg::BK) * N;
          rlg::cp_async_commit();  // empty past the end: the group count stays uniform
        }
        rlg::mma_frags<Cfg>(a[ks % 2], b[ks % 2], acc);
        if (ks == KS - 2) {
          rlg::cp_async_wait<S - 2>();
          __syncthreads();
        }
      }
    }
  }
  rlg::cp_async_wait<0>();
  __syncthreads();
  float *stage = reinterpret_cast<float *>(smem_raw) + (t / 32) * 16 * Cfg::kLdc;
  rlg::epilogue<Cfg, true>(stage, acc, C, M, N, at.tm * Cfg::BM + at.wm * Cfg::WM,
                           at.tn * Cfg::BN + at.wn * Cfg::WN, rlg::EpiIdentity{});
}

void launch_lean(const half *A, const half *B, half *C, int M, int N, int K, cudaStream_t s) {
  const int tiles = (M / Cfg::BM) * (N / Cfg::BN);
  lean_kernel<<<tiles, Cfg::kThreads, Cfg::kSmemBytes, s>>>(A, B, C, M, N, K);
  CK(cudaGetLastError());
}

constexpr int kSets = 4;

// lean's C against the product's ("best", variant 25), bitwise; exits on a difference.
void check(int m, int n, int k, half *a, half *b, half *c0, half *c1, cudaStream_t st) {
  CK(cudaMemsetAsync(c0, 0xff, (size_t)m * n * 2, st));  // poisoned: NaN
  CK(cudaMemsetAsync(c1, 0xff, (size_t)m * n * 2, st));
  CK(static_cast<cudaError_t>(rl_hgemm(25, a, b, c0, m, n, k, st)));
  launch_lean(a, b, c1, m, n, k, st);
  std::vector<unsigned short> h0((size_t)m * n), h1((size_t)m * n);
  CK(cudaMemcpyAsync(h0.data(), c0, h0.size() * 2, cudaMemcpyDeviceToHost, st));
  CK(cudaMemcpyAsync(h1.data(), c1, h1.size() * 2, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  size_t diff = 0, nan = 0;
  for (size_t i = 0; i < h0.size(); ++i) {
    diff += h0[i] != h1[i];
    nan += (h1[i] & 0x7c00) == 0x7c00;
  }
  std::printf("check %dx%dx%d, lean vs HGEMM v25: %zu of %zu differ, %zu NaN/inf\n", m, n, k,
              diff, h0.size(), nan);
  if (diff != 0 || nan != 0) std::exit(1);
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  CK(cudaFuncSetAttribute(lean_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          Cfg::kSmemBytes));
  for (const auto &sh : {std::array<int, 3>{4096, 4096, 4096}, std::array<int, 3>{8192, 8192, 8192},
                         std::array<int, 3>{2048, 2048, 2048}}) {
    const int m = sh[0], n = sh[1], k = sh[2];
    const GemmSets<kSets> sets(m, n, k, st);
    half *const *a = sets.a, *const *b = sets.b, *const *c = sets.c;
    half *c1;
    CK(cudaMalloc(&c1, (size_t)m * n * 2));
    check(m, n, k, a[0], b[0], c[0], c1, st);
    const std::vector<ProbeCase> cases = {
        {"product (HGEMM v25)",
         [=](int set, cudaStream_t s) {
           CK(static_cast<cudaError_t>(rl_hgemm(25, a[set], b[set], c[set], m, n, k, s)));
         }},
        {"lean (ring unrolled, no predicates)",
         [=](int set, cudaStream_t s) { launch_lean(a[set], b[set], c[set], m, n, k, s); }},
    };
    const double flops = 2.0 * m * n * k;
    for (int r = 0; r < rounds; ++r) {
      std::printf("== %dx%dx%d, set %d (last column: TFLOP/s)\n", m, n, k, r + 1);
      probe_run(cases, kSets, flops, st);
    }
    CK(cudaFree(c1));
  }
  CK(cudaStreamDestroy(st));
  return 0;
}
