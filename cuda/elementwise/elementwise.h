/* Elementwise ReLU / GELU over n fp16 values: the public launchers and their shared variant
 * table (bindgen reads this file). Conventions as in cuda/kernels.h.
 *
 * y = relu(x) / gelu(x); any n >= 1 (tails handled); x may equal y. gelu_kind: 0 = tanh
 * approximation, 1 = erf. Variants 1..rl_elementwise_variant_count(), one file each
 * (cuda/elementwise/elementwise_N_<name>.cuh: what the step changes and what it measured);
 * *_name(v) is a short name, *_summary(v) one line; both NULL out of range.
 */
#ifndef ROOFLINE_LAB_ELEMENTWISE_H
#define ROOFLINE_LAB_ELEMENTWISE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int rl_relu(int variant, const void *x, void *y, size_t n, void *stream);
int rl_gelu(int variant, const void *x, void *y, size_t n, int gelu_kind, void *stream);
int rl_elementwise_variant_count(void);
const char *rl_elementwise_variant_name(int variant);
const char *rl_elementwise_variant_summary(int variant);

#ifdef __cplusplus
}
#endif

#endif
