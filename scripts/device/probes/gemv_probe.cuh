// What the GEMV probes (gemv_*.cu) share: they include cuda/gemv.cu for its internal kernels,
// then probe_bench.cuh, then this header.
#pragma once
#include <cuda_fp16.h>

#include <cmath>

// Exits with a message unless the TMA slabs can run here (sm_90 and the driver's encoder).
inline void require_tma() {
  if (!tma_capable()) {
    std::fprintf(stderr, "needs compute capability 9.x and a driver with cuTensorMapEncodeTiled\n");
    std::exit(1);
  }
}

// The GEMV probes' buffers: `sets` copies of an n x n fp16 W and of a 64 x n x (64 rows:
// 4 m-tiles), rotated so that each launch finds its W cold (> 3x a 60 MiB L2 in all), and
// one 64 x n y. The values are finite fp16 (0x1111); the probes do not check results.
struct GemvProbeBuffers {
  int n, sets;
  size_t bytes;  // of one W
  std::vector<__half *> W, x;
  __half *y;
  explicit GemvProbeBuffers(int n_) : n(n_), bytes((size_t)n_ * n_ * 2) {
    sets = (int)std::max<size_t>(2, (size_t)(3 * 60 * 1024 * 1024) / bytes + 1);
    W.resize(sets);
    x.resize(sets);
    for (int i = 0; i < sets; ++i) {
      CK(cudaMalloc(&W[i], bytes));
      CK(cudaMemset(W[i], 0x11, bytes));
      CK(cudaMalloc(&x[i], (size_t)64 * n * 2));
      CK(cudaMemset(x[i], 0x11, (size_t)64 * n * 2));
    }
    CK(cudaMalloc(&y, (size_t)64 * n * 2));
  }
};

// The product's read of the weights (rl_read) over the sets W, the floor every GEMV probe
// times beside its kernels. One sink for the probe's lifetime.
inline ProbeCase probe_read_case(const std::vector<__half *> &W, size_t bytes) {
  static float *const sink = [] {
    float *p = nullptr;
    CK(cudaMalloc(&p, rl_read_sink_floats() * sizeof(float)));
    return p;
  }();
  return {"product read (rl_read)", [W, bytes](int i, cudaStream_t st) {
            CK((cudaError_t)rl_read(W[i], bytes, sink, st));
          }};
}

// Random finite fp16 values in [-0.5, 0.5) (a hash of index and seed): the inputs of the
// probes that compare two kernels' y bitwise.
__global__ void probe_fill_random(__half *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = __float2half((float)(h & 0xffff) / 65536.0f - 0.5f);
  }
}

// W[0] and x[0] of buf filled by probe_fill_random (the other sets keep their constant).
inline void probe_fill_first_set(const GemvProbeBuffers &buf) {
  probe_fill_random<<<1024, 256>>>(buf.W[0], (size_t)buf.n * buf.n, 1u);
  probe_fill_random<<<256, 256>>>(buf.x[0], (size_t)64 * buf.n, 2u);
  CK(cudaDeviceSynchronize());
}

// Prints how many of `count` fp16 outputs differ between device buffers a and b (and how many
// of b's are NaN or inf) under `label`; exits unless none.
inline void probe_require_equal(const std::string &label, const __half *a, const __half *b,
                                size_t count) {
  std::vector<unsigned short> h0(count), h1(count);
  CK(cudaMemcpy(h0.data(), a, count * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h1.data(), b, count * 2, cudaMemcpyDeviceToHost));
  size_t diff = 0, nan = 0;
  for (size_t i = 0; i < count; ++i) {
    diff += h0[i] != h1[i];
    nan += (h1[i] & 0x7c00) == 0x7c00;
  }
  std::printf("check %s: %zu of %zu outputs differ, %zu NaN/inf\n", label.c_str(), diff, count,
              nan);
  if (diff != 0 || nan != 0) std::exit(1);
}

// Prints the relative Frobenius error of fp16 outputs b against a (device buffers) and how many
// of b's are NaN or inf; exits unless the error is within `tol` and there are none.
inline void probe_require_close(const std::string &label, const __half *a, const __half *b,
                                size_t count, double tol) {
  std::vector<__half> h0(count), h1(count);
  CK(cudaMemcpy(h0.data(), a, count * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h1.data(), b, count * 2, cudaMemcpyDeviceToHost));
  double num = 0.0, den = 0.0;
  size_t nan = 0;
  for (size_t i = 0; i < count; ++i) {
    const double u = __half2float(h0[i]), v = __half2float(h1[i]);
    nan += !std::isfinite(v);
    num += (u - v) * (u - v);
    den += u * u;
  }
  const double rel = std::sqrt(num / den);
  std::printf("check %s: relative error %.2e over %zu outputs, %zu NaN/inf\n", label.c_str(),
              rel, count, nan);
  if (!(rel <= tol) || nan != 0) std::exit(1);
}

// A candidate of the 32-column slab probes: its launch at 8 and 16 rows (N = K = n).
using ProbeLaunch = void (*)(const __half *, const __half *, __half *, int, int, cudaStream_t);
struct ProbeForm {
  std::string name;
  ProbeLaunch l8, l16;
};

// Every form against rl_gemv `variant` on random data at M = 2, 8, 13, 16: bitwise, or with
// `tol` > 0 within that relative error (forms that sum in another order).
inline void probe_check_forms(int variant, const std::vector<ProbeForm> &forms, const __half *x,
                              const __half *W, int n, double tol = 0.0) {
  __half *y0, *y1;
  const size_t count = (size_t)16 * n;
  CK(cudaMalloc(&y0, count * 2));
  CK(cudaMalloc(&y1, count * 2));
  for (int M : {2, 8, 13, 16}) {
    CK(cudaMemset(y0, 0xff, count * 2));
    CK((cudaError_t)rl_gemv(variant, x, W, y0, nullptr, M, n, n, 0));
    CK(cudaDeviceSynchronize());
    for (const ProbeForm &f : forms) {
      CK(cudaMemset(y1, 0xff, count * 2));
      (M <= 8 ? f.l8 : f.l16)(x, W, y1, M, n, 0);
      CK(cudaDeviceSynchronize());
      const std::string label =
          f.name + " vs rl_gemv v" + std::to_string(variant) + ", M = " + std::to_string(M);
      if (tol > 0.0)
        probe_require_close(label, y0, y1, (size_t)M * n, tol);
      else
        probe_require_equal(label, y0, y1, (size_t)M * n);
    }
  }
  CK(cudaFree(y0));
  CK(cudaFree(y1));
}

// Prints each kernel's static shared memory, registers and local (spilled) bytes.
inline void probe_print_attributes(std::initializer_list<const void *> kernels) {
  for (const void *k : kernels) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, k));
    std::printf("static smem %zu B, %d registers, %zu B local\n", a.sharedSizeBytes, a.numRegs,
                a.localSizeBytes);
  }
}

// Times the forms at each row count of `rows` (`runs16` runs at 16 rows, one elsewhere),
// interleaved with the read and rl_gemv `variant`, over buf's rotating sets.
inline void probe_time_forms(int variant, const std::vector<ProbeForm> &forms,
                             const GemvProbeBuffers &buf, std::initializer_list<int> rows,
                             int runs16) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::vector<__half *> W = buf.W, x = buf.x;
  __half *y = buf.y;
  const int n = buf.n;
  std::printf("%dx%d fp16 W (%.0f MB), %d sets\n", n, n, buf.bytes / 1e6, buf.sets);
  for (int M : rows) {
    std::vector<ProbeCase> cases;
    cases.push_back(probe_read_case(W, buf.bytes));
    cases.push_back({"product gemv v" + std::to_string(variant) + ", M=" + std::to_string(M),
                     [=](int i, cudaStream_t st) {
                       CK((cudaError_t)rl_gemv(variant, x[i], W[i], y, nullptr, M, n, n, st));
                     }});
    for (const ProbeForm &f : forms) {
      const ProbeLaunch l = M <= 8 ? f.l8 : f.l16;
      cases.push_back({f.name + ", M=" + std::to_string(M),
                       [=](int i, cudaStream_t st) { l(x[i], W[i], y, M, n, st); }});
    }
    for (int run = 0; run < (M == 16 ? runs16 : 1); ++run)
      probe_run(cases, buf.sets, (double)buf.bytes, s);
  }
}

// x of MB rows in shared memory for the slab probes that stage it (gemv_n32_end's run 3,
// gemv_n32_mc): rows padded by 16 bytes, so that a lane's 16-byte reads stay conflict-free.
template <int MB>
int mc_smem(int K) {
  return MB * (K + 8) * 2;
}

// One bulk copy multicast to the CTAs of `mask` in the cluster, completing on each one's `bar`
// (the same shared-memory offsets in every CTA).
__device__ __forceinline__ void bulk_load_1d_mc(void *dst, const void *src, unsigned bytes,
                                                unsigned long long *bar, unsigned short mask) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar)), "h"(mask)
      : "memory");
#else
  __trap();  // meant for sm_90a (the probes run their sm_90a code; -arch=sm_90a also emits PTX)
#endif
}
