/* The C interface's conventions, and the launchers of the runtime helpers, the buffer fills and
 * the peak loops; each kernel family declares its own in cuda/<family>/<family>.h. bindgen reads
 * this file and those.
 *
 * Conventions (every launcher follows them):
 *  - Device pointers are passed as void*; fp16 data is IEEE binary16 (Rust half::f16); the GEMM
 *    family's *_bf16 launchers take bfloat16 (Rust half::bf16) instead (cuda/gemm/gemm.h).
 *  - Matrices are row-major: A[M x K] . B[K x N] = C[M x N] (torch's A @ B).
 *  - `stream` is a CUstream / cudaStream_t (the same handle) owned by the caller.
 *  - A launcher only enqueues work: no allocation, no synchronization, so it can be
 *    captured into a CUDA graph. It returns 0 (cudaSuccess) or a cudaError_t: bad
 *    arguments give cudaErrorInvalidValue (1) before anything is launched, and a failed
 *    launch gives what cudaGetLastError() reported right after it.
 *  - `variant` numbers start at 1 (v1 is the plainest); *_variant_count() tells how many
 *    exist and *_variant_name() describes one (NULL when out of range); families with a
 *    variant table (cuda/variant_table.cuh) also give *_variant_summary().
 */
#ifndef ROOFLINE_LAB_KERNELS_H
#define ROOFLINE_LAB_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- runtime helpers (runtime.cu) ---- */
const char *rl_error_string(int code);
/* CUDA runtime version the kernels were built against (e.g. 13000). */
int rl_runtime_version(void);
/* Driver's CUDA version, or a negative cudaError_t. */
int rl_driver_version(void);
/* Error after the last launch on this thread, clearing it (cudaGetLastError). */
int rl_last_error(void);
/* A deliberately faulting kernel (writes through a bad pointer): tests the fault path. */
int rl_inject_fault(void *stream);

/* ---- the blocking kernel of `kernel` timing (blocking.cu) ---- */
/* `count` ints of mapped, zeroed host memory: *host for the CPU, *device for kernels. */
int rl_host_flags_alloc(int **host, int **device, int count);
int rl_host_flags_free(int *host);
/* One thread spins until *release != 0 (device pointer of a host flag) or limit_ns pass on
 * the GPU's clock; then sets *timed_out = 1. Work enqueued behind it waits in the stream. */
int rl_block_stream(const int *release, int *timed_out, unsigned long long limit_ns,
                    void *stream);

/* ---- the profiler marker of --counters (marker.cu) ---- */
/* Launches an empty kernel named roofline_profiler_marker (1 block, 1 thread): the probe
 * child's mark where each case's kernels begin in Nsight Compute's rows. */
int rl_profiler_marker(void *stream);

/* ---- buffer fills (fill.cu) ---- */
/* p[i] = uniform in [lo, hi) from a counter-based hash of (seed, i): the same seed gives the
 * same data on any GPU, and filling GiBs takes milliseconds instead of host seconds. */
int rl_fill_uniform_f16(void *p, size_t n, unsigned long long seed, float lo, float hi,
                        void *stream);
/* The same for bf16 (for the cuBLAS bf16 ceiling). */
int rl_fill_uniform_bf16(void *p, size_t n, unsigned long long seed, float lo, float hi,
                         void *stream);
/* p[i] = bits (e.g. a NaN pattern to poison an output before a run). */
int rl_fill_bits_u16(void *p, size_t n, unsigned short bits, void *stream);

/* ---- peak kernels for the measured ceilings (peak.cu; copy and reads: cuda/copy/) ---- */
/* Register-only peak loops. Each writes one value per thread of its last block into sink
 * (so the compiler keeps the work); returns the FLOPs it performs through *flops. */
int rl_peak_ffma(float *sink, int iters, double *flops, void *stream);
int rl_peak_hfma2(float *sink, int iters, double *flops, void *stream);
int rl_peak_wmma(float *sink, int iters, double *flops, void *stream);
size_t rl_peak_sink_floats(void);

/* The families: cuda/copy/copy.h (copy and the read kernels of the ceilings), cuda/gemm/gemm.h
 * (HGEMM, GEMM + bias + GELU), cuda/gemv/gemv.h, cuda/elementwise/elementwise.h (ReLU, GELU),
 * cuda/layernorm/layernorm.h, cuda/add_rmsnorm/add_rmsnorm.h. */

#ifdef __cplusplus
}
#endif

#endif
