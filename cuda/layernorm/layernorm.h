/* LayerNorm forward over rows: the public launcher and its variant table (bindgen reads this
 * file). Conventions as in cuda/kernels.h.
 *
 * y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta; fp16 in/out, fp32 statistics,
 * biased variance (torch). Any rows, hidden >= 1. Variants 1..rl_layernorm_variant_count(), one
 * file each (cuda/layernorm/layernorm_N_<name>.cuh: what the step changes and what it
 * measured); *_name(v) is a short name, *_summary(v) one line; both NULL out of range.
 */
#ifndef ROOFLINE_LAB_LAYERNORM_H
#define ROOFLINE_LAB_LAYERNORM_H

#ifdef __cplusplus
extern "C" {
#endif

int rl_layernorm(int variant, const void *x, const void *gamma, const void *beta, void *y,
                 int rows, int hidden, float eps, void *stream);
int rl_layernorm_variant_count(void);
const char *rl_layernorm_variant_name(int variant);
const char *rl_layernorm_variant_summary(int variant);

#ifdef __cplusplus
}
#endif

#endif
