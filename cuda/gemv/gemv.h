/* Decode GEMV / small-M GEMM: the public launcher and its variant table (bindgen reads this
 * file). Conventions as in cuda/kernels.h. Variants 1..rl_gemv_variant_count(), one file each
 * (cuda/gemv/gemv_NN_<name>.cuh: what the step changes and what it measured); *_name(v) is a
 * short name, *_summary(v) one line; both NULL out of range. The GEMM family reaches the
 * GEMV's slab kernels through cuda/gemv/gemv_slabs_api.cuh, not through these.
 */
#ifndef ROOFLINE_LAB_GEMV_H
#define ROOFLINE_LAB_GEMV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[M x N] = x[M x K] . W[K x N], fp16 in/out, fp32 accumulation, any M, N, K >= 1.
 * Some variants need device scratch: rl_gemv_workspace_bytes() says how much (0 = none).
 * The caller zeroes it once after allocating it; every launch leaves it zeroed again, so
 * back-to-back launches and graph replays may share it (launches on one stream only). */
size_t rl_gemv_workspace_bytes(int variant, int M, int N, int K);
int rl_gemv(int variant, const void *x, const void *W, void *y, void *workspace, int M, int N,
            int K, void *stream);
int rl_gemv_variant_count(void);
const char *rl_gemv_variant_name(int variant);
const char *rl_gemv_variant_summary(int variant);

#ifdef __cplusplus
}
#endif

#endif
