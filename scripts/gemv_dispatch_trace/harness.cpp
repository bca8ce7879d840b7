// Runs the GEMV's launchers over a grid of shapes and alignments against the stub runtime
// (fake_cudart.cpp) and prints each call's launches, one line per call (run.sh diffs two
// builds' lines). Arguments: the variants, OLD or OLD=NEW (call OLD, print NEW's number), or
// "count" (print rl_gemv_variant_count()). GEMM=1 also traces the GEMM family's two slab
// launchers (gemv_slabs_api.cuh).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern std::string g_trace;
struct SlabEpi {  // gemv_slabs_api.cuh's layout
  const __half *bias;
  int gelu;
};
extern "C" size_t rl_gemv_workspace_bytes(int, int, int, int);
extern "C" int rl_gemv(int, const void *, const void *, void *, void *, int, int, int, void *);
extern "C" int rl_gemv_variant_count(void);
int rl_gemv_slabs_gemm(const __half *, const __half *, __half *, int, int, int, SlabEpi,
                       cudaStream_t, bool *);
int rl_gemv_tma_slabs_gemm(const __half *, const __half *, __half *, int, int, int, SlabEpi,
                           bool, cudaStream_t, bool *);

int main(int argc, char **argv) {
  const int Ms[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 20, 33, 64};
  const int Ns[] = {8, 64, 520, 1032, 2048, 2056, 2560, 4096, 4100, 4104, 4136, 8192, 8200,
                    16384, 33000};
  const int Ks[] = {1,    8,    16,   32,   64,   100,  136,   777,  1024,
                    1040, 1056, 1088, 4096, 4097, 8192, 32760, 40000};
  const int xoffs[] = {0, 2, 4, 8}, woffs[] = {0, 2};  // bytes past 256-byte aligned bases
  char *const x = (char *)(1ull << 40), *const W = x + (1ull << 36), *const y = W + (1ull << 36);
  char *const ws = y + (1ull << 36), *const bias = ws + (1ull << 36);
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "count") == 0) {
      printf("%d\n", rl_gemv_variant_count());
      continue;
    }
    const int v = atoi(argv[a]);
    const char *eq = strchr(argv[a], '=');
    const int shown = eq != nullptr ? atoi(eq + 1) : v;
    for (const int M : Ms)
      for (const int N : Ns)
        for (const int K : Ks) {
          const size_t bytes = rl_gemv_workspace_bytes(v, M, N, K);
          for (const int xo : xoffs)
            for (const int wo : woffs) {
              g_trace.clear();
              const int rc = rl_gemv(v, x + xo, W + wo, y, bytes ? ws : nullptr, M, N, K, nullptr);
              printf("v%d M%d N%d K%d x%d w%d rc%d%s\n", shown, M, N, K, xo, wo, rc,
                     g_trace.c_str());
            }
        }
  }
  if (getenv("GEMM") == nullptr) return 0;
  const SlabEpi epi = {(const __half *)bias, 1};
  for (const int M : Ms)
    for (const int N : Ns)
      for (const int K : Ks)
        for (const int xo : xoffs)
          for (const int wo : woffs)
            for (const bool stage : {false, true}) {
              const auto *xh = (const __half *)(x + xo), *Wh = (const __half *)(W + wo);
              bool tma = false, reg = false;
              g_trace.clear();
              const int r1 = rl_gemv_tma_slabs_gemm(xh, Wh, (__half *)y, M, N, K, epi, stage,
                                                    nullptr, &tma);
              const std::string t1 = g_trace;
              g_trace.clear();
              const int r2 = rl_gemv_slabs_gemm(xh, Wh, (__half *)y, M, N, K, epi, nullptr, &reg);
              printf("gemm M%d N%d K%d x%d w%d stage%d tma rc%d %d%s | reg rc%d %d%s\n", M, N, K,
                     xo, wo, stage, r1, tma, t1.c_str(), r2, reg, g_trace.c_str());
            }
}
