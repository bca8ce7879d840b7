/* Copy and read kernels behind the measured bandwidth ceilings: the public launchers and the
 * copy's variant table (bindgen reads this file). Conventions as in cuda/kernels.h.
 */
#ifndef ROOFLINE_LAB_COPY_H
#define ROOFLINE_LAB_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst = src over `bytes` bytes: the variant's 16-byte copy of the aligned words, then a byte
 * copy of the rest (all of it when a pointer is not 16-byte aligned). Variants
 * 1..rl_copy_variant_count(), one file each (cuda/copy/copy_N_<name>.cuh); *_name(v) is a short
 * name, *_summary(v) one line; both NULL out of range. */
int rl_copy(int variant, const void *src, void *dst, size_t bytes, void *stream);
int rl_copy_variant_count(void);
const char *rl_copy_variant_name(int variant);
const char *rl_copy_variant_summary(int variant);

/* ---- read kernels (read.cu) ---- */
/* Reads `bytes` once and writes one float per block into sink (sized by rl_read_sink_floats). */
int rl_read(const void *src, size_t bytes, float *sink, void *stream);
size_t rl_read_sink_floats(void);
/* Every block reads all `bytes` of src `passes` times (an L2-resident working set; bytes a
 * multiple of 16 KiB); the total read is returned through *bytes_read. */
int rl_read_repeat(const void *src, size_t bytes, int passes, float *sink, double *bytes_read,
                   void *stream);
/* Does nothing: the launch-latency floor. */
int rl_empty(void *stream);

#ifdef __cplusplus
}
#endif

#endif
