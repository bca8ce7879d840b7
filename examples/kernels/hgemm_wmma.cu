// roofline: family = hgemm
// roofline: kernel = hgemm_wmma
// roofline: grid = (cdiv(N, 32), cdiv(M, 32), 1)
// roofline: block = (128, 1, 1)
// roofline: smem = 0
//
// hgemm_wmma.cu: tensor cores through WMMA, the plainest way in.
// C[M x N] = A[M x K] . B[K x N], row-major fp16, fp32 accumulation, fp16 out.
// A block of 4 warps computes a 32x32 tile of C, each warp one 16x16 quarter of it with one
// 16x16x16 WMMA per K step. Per K step of 16 the block copies the 32x16 slice of A and the
// 16x32 slice of B into shared memory element by element, with bounds checks and zeros past
// the edges, so any M, N, K (and 2-byte-aligned pointers) work. The warp's fp32 accumulator
// goes through shared memory so that the fp16 stores can be bounds-checked.
// What to expect: correct everywhere, a small fraction of the tensor-core peak (scalar loads,
// a barrier every 16 of K, no pipelining). Seen on an H200 at 4096^3: ~23 TFLOP/s, where
// cuBLAS does ~600+.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int kTile = 32;    // rows and columns of C per block
constexpr int kStep = 16;    // K per step
constexpr int kPadA = kStep + 8;  // row strides in halves: multiples of 8 (WMMA's rule) that
constexpr int kPadB = kTile + 8;  // keep every fragment's start 32-byte aligned

extern "C" __global__ void hgemm_wmma(const __half* A, const __half* B, __half* C,
                                      int M, int N, int K) {
  __shared__ __align__(32) __half As[kTile][kPadA];
  __shared__ __align__(32) __half Bs[kStep][kPadB];
  __shared__ __align__(32) float Cs[4][16 * 16];

  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 2) * 16, wn = (warp % 2) * 16;  // the warp's quarter of the tile

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);

  const __half zero = __float2half(0.0f);
  for (int k0 = 0; k0 < K; k0 += kStep) {
    for (int i = threadIdx.x; i < kTile * kStep; i += blockDim.x) {
      const int r = i / kStep, c = i % kStep;  // A slice: 32 rows x 16 columns
      const int gm = m0 + r, gk = k0 + c;
      As[r][c] = (gm < M && gk < K) ? A[(size_t)gm * K + gk] : zero;
    }
    for (int i = threadIdx.x; i < kStep * kTile; i += blockDim.x) {
      const int r = i / kTile, c = i % kTile;  // B slice: 16 rows x 32 columns
      const int gk = k0 + r, gn = n0 + c;
      Bs[r][c] = (gk < K && gn < N) ? B[(size_t)gk * N + gn] : zero;
    }
    __syncthreads();
    wmma::load_matrix_sync(a, &As[wm][0], kPadA);
    wmma::load_matrix_sync(b, &Bs[0][wn], kPadB);
    wmma::mma_sync(acc, a, b, acc);
    __syncthreads();  // before the next step overwrites As and Bs
  }

  wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int i = lane; i < 16 * 16; i += 32) {
    const int gm = m0 + wm + i / 16, gn = n0 + wn + i % 16;
    if (gm < M && gn < N) C[(size_t)gm * N + gn] = __float2half_rn(Cs[warp][i]);
  }
}
