/* Fused residual add + RMSNorm (add_rmsnorm.cu): the public C launchers of the family.
 *
 * The conventions are kernels.h's: device pointers as void*, fp16 = IEEE binary16, `stream`
 * a cudaStream_t owned by the caller; a launcher only enqueues work (graph-capturable) and
 * returns 0 or a cudaError_t, cudaErrorInvalidValue (1) for bad arguments before anything is
 * launched; variants are numbered from 1.
 */
#ifndef ROOFLINE_LAB_ADD_RMSNORM_H
#define ROOFLINE_LAB_ADD_RMSNORM_H

#ifdef __cplusplus
extern "C" {
#endif

/* For each of `rows` rows of `hidden` fp16 values (any rows, hidden >= 1):
 *   h[r, :] = fp16(x[r, :] + res[r, :])                           (the sum taken in fp32)
 *   y[r, :] = fp16(h[r, :] * rsqrt(mean_j(s[r, j]^2) + eps) * w[:])
 * where s is the fp32 sum before rounding (fp32 statistics) and w holds `hidden` values.
 * x, res and w are read only; y and h are written. Neither y nor h may overlap x, res, w or
 * each other (in-place use is not supported): such calls, null pointers, rows or hidden < 1,
 * eps not finite and > 0, or a variant out of range return cudaErrorInvalidValue. */
int rl_add_rmsnorm(int variant, const void *x, const void *res, const void *w, void *y, void *h,
                   int rows, int hidden, float eps, void *stream);
int rl_add_rmsnorm_variant_count(void);
/* A one-line description of `variant`; NULL when out of range. */
const char *rl_add_rmsnorm_variant_name(int variant);

#ifdef __cplusplus
}
#endif

#endif
