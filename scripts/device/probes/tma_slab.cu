// Development probe (not part of the product): can the Tensor Memory Accelerator stream a
// GEMV slab (a 128-byte column strip of a row-major fp16 matrix, rows N * 2 bytes apart) at
// the plain read's pace, with the bytes in flight held in shared memory instead of registers?
// One 288-thread CTA per 64-column strip (split along the rows 2 ways when the strips are
// fewer than half the SMs, as the GEMV slabs): warp 8 produces, warps 0..7 consume.
// A ring of D stages of 128 rows x 128 B (16 KB); per stage a "full" mbarrier (the producer's
// expect_tx plus the copies' complete_tx) and an "empty" one (one arrive per consumer warp).
// - bulk1d: one cp.async.bulk of 128 B per row (the 32 producer lanes issue 4 each), rows
//   at a 144-byte pitch in shared memory;
// - tensor2d: one cp.async.bulk.tensor.2d per stage (a 64 x 128 box of a tensor map).
// Consumers read their 16 rows as the GEMV lanes would (lane (g, t): rows 4t..4t+3, chunk g)
// and fold them. Timing as read_shapes.cu: cold (sets > 2x L2), graph of 40 and single
// launches, medians; the plain read beside it. Built by scripts/device/probes/build.sh.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>

#include "probe_bench.cuh"
#include "tma.cuh"

namespace {

constexpr int kConsumers = 8, kThreads = (kConsumers + 1) * 32, kStageRows = 128;

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

template <int D, bool TENSOR>
__global__ void __launch_bounds__(kThreads, 1)
    tma_slab(const __grid_constant__ CUtensorMap map, const __half *W, int rows, int cols,
             int splits, float *sink) {
  constexpr int PITCH = TENSOR ? 128 : 144, STAGE = kStageRows * PITCH;
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ unsigned long long full[D], empty[D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int strip = blockIdx.x / splits, part = blockIdx.x % splits;
  const int r0 = rows / kStageRows * part / splits * kStageRows;
  const int r1 = rows / kStageRows * (part + 1) / splits * kStageRows;
  const int stages = (r1 - r0) / kStageRows;
  if (threadIdx.x == 0) {
    for (int i = 0; i < D; ++i) {
      mbar_init(&full[i], 1);
      mbar_init(&empty[i], kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == kConsumers) {  // producer
    for (int s = 0; s < stages; ++s) {
      const int slot = s % D;
      if (s >= D) mbar_wait(&empty[slot], ((s / D) - 1) & 1);
      unsigned char *dst = smem + slot * STAGE;
      const int row0 = r0 + s * kStageRows;
      if constexpr (TENSOR) {
        if (lane == 0) {
          mbar_expect_tx(&full[slot], kStageRows * 128);
          tma_load_2d(dst, &map, strip * 64, row0, &full[slot]);
        }
      } else {
        if (lane == 0) mbar_expect_tx(&full[slot], kStageRows * 128);
        __syncwarp();
        for (int r = lane; r < kStageRows; r += 32)
          bulk_load_1d(dst + r * PITCH, W + (size_t)(row0 + r) * cols + strip * 64, 128,
                       &full[slot]);
      }
    }
    return;
  }
  const int g = lane >> 2, t = lane & 3;
  unsigned acc = 0;
  for (int s = 0; s < stages; ++s) {
    const int slot = s % D;
    mbar_wait(&full[slot], (s / D) & 1);
    const unsigned char *src = smem + slot * STAGE + (warp * 16 + 4 * t) * PITCH + g * 16;
#pragma unroll
    for (int j = 0; j < 4; ++j) acc ^= fold(*reinterpret_cast<const uint4 *>(src + j * PITCH));
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[slot]);
  }
  if (acc == 0x12345678u) sink[blockIdx.x] = 1.0f;
}

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                      &q));
  if (fn == nullptr || q != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not available\n");
    std::exit(1);
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

CUtensorMap make_map(const void *W, int rows, int cols) {
  static const auto fn = encode_fn();
  CUtensorMap m;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  const cuuint32_t box[2] = {64, kStageRows}, estr[2] = {1, 1};
  const CUresult r = fn(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void *>(W), dims,
                        strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
    std::exit(1);
  }
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = (size_t)n * n * 2;
  const int sets = (int)std::max<size_t>(2, (size_t)(3 * 60 * 1024 * 1024) / bytes + 1);
  std::vector<__half *> buf(sets);
  std::vector<CUtensorMap> maps(sets);
  for (int i = 0; i < sets; ++i) {
    CK(cudaMalloc(&buf[i], bytes));
    CK(cudaMemset(buf[i], 1, bytes));
    maps[i] = make_map(buf[i], n, n);
  }
  float *sink;
  CK(cudaMalloc(&sink, 4096 * sizeof(float)));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int strips = n / 64, split = strips >= sms / 2 + 1 ? 1 : 2, grid = strips * split;

  std::vector<ProbeCase> cases;
  cases.push_back({"plain read (grid-stride, 8x256 thr/SM)", [=](int i, cudaStream_t st) {
                     probe_read<<<sms * 8, 256, 0, st>>>((const uint4 *)buf[i], bytes / 16, sink);
                   }});
#define TMA(D, T)                                                                              \
  {                                                                                            \
    constexpr int smem = D * kStageRows * (T ? 128 : 144);                                     \
    CK(cudaFuncSetAttribute(tma_slab<D, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); \
    cases.push_back({std::string(T ? "tensor2d" : "bulk1d") + " D=" #D " (" +                 \
                         std::to_string(D * 16) + " KB in flight/SM), " +                      \
                         std::to_string(grid) + " CTAs",                                       \
                     [=, &maps](int i, cudaStream_t st) {                                      \
                       tma_slab<D, T><<<grid, kThreads, smem, st>>>(maps[i], buf[i], n, n,     \
                                                                    split, sink);              \
                     }});                                                                      \
  }
  TMA(2, false) TMA(4, false) TMA(6, false) TMA(4, true) TMA(6, true) TMA(10, true)

  std::printf("%dx%d fp16 (%.0f MB), %d sets, %d SMs\n", n, n, bytes / 1e6, sets, sms);
  probe_run(cases, sets, (double)bytes, s);
  return 0;
}
