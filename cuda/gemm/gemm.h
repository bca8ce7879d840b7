/* The GEMM family's public launchers: HGEMM (C = A.B), GEMM + bias + GELU and GEMM + bias +
 * residual, each with its own variant table. bindgen reads this file (build.rs: every
 * cuda/<family>/<family>.h).
 *
 * Conventions as in cuda/kernels.h: device pointers as void*, fp16 data, row-major
 * A[M x K] . B[K x N] = C[M x N], a launcher only enqueues work on `stream` and returns 0 or a
 * cudaError_t (cudaErrorInvalidValue (1) for bad arguments, before anything is launched).
 *
 * bf16: each family's *_bf16 launcher takes the same arguments as its fp16 one, every 16-bit
 * pointer then to bf16 data (IEEE-style bfloat16, Rust half::bf16: A, B, C and the bias and R),
 * fp32 accumulation and epilogue, one rounding to bf16. Only the variants whose
 * *_variant_bf16(v) is 1 have a bf16 form (the best step of each ladder: HGEMM v14, GEMM+bias+
 * GELU v7, GEMM+bias+residual v11; cuda/gemm/bf16_paths.cuh says what it runs where); another
 * variant gives cudaErrorInvalidValue.
 *
 * Workspace: HGEMM v15 (stream-K) and the fused steps on it allocate, on their first launch on
 * a stream, a workspace of ~17 MB for that stream (fp32 partial tiles and their flags, zeroed
 * once; every launch leaves the flags zero), kept for the life of the process; where it cannot
 * be had (a stream being captured into a graph, no memory) they run v14's paths instead.
 *
 * Variants: each family numbers its own from 1 (the plainest) to *_variant_count();
 * *_variant_name(v) is a short name ("pipelined"), *_variant_summary(v) one line on what the
 * step changes; both NULL out of range. The ladder and its figures: the header comment of each
 * step's file, cuda/gemm/hgemm_NN_<name>.cuh and cuda/gemm/gemm_bias_gelu_N_<name>.cuh.
 */
#ifndef ROOFLINE_LAB_GEMM_H
#define ROOFLINE_LAB_GEMM_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- HGEMM on Tensor Cores (hgemm.cu) ---- */
/* C[M x N] = A[M x K] . B[K x N]; fp16 in/out, fp32 accumulation; any M, N, K >= 1. */
int rl_hgemm(int variant, const void *A, const void *B, void *C, int M, int N, int K,
             void *stream);
/* The same in bf16, for the variants with a bf16 form (rl_hgemm_variant_bf16). */
int rl_hgemm_bf16(int variant, const void *A, const void *B, void *C, int M, int N, int K,
                  void *stream);
/* 1 when variant `variant` has a bf16 form, else 0 (also out of range). */
int rl_hgemm_variant_bf16(int variant);
int rl_hgemm_variant_count(void);
const char *rl_hgemm_variant_name(int variant);
const char *rl_hgemm_variant_summary(int variant);

/* ---- GEMM + bias + GELU (gemm_bias_gelu.cu) ---- */
/* Fused: C = gelu(A . B + bias[N]) with bias and GELU applied in registers before the store.
 * gelu_kind: 0 = tanh approximation, 1 = erf (exact). */
int rl_gemm_bias_gelu(int variant, const void *A, const void *B, const void *bias, void *C,
                      int M, int N, int K, int gelu_kind, void *stream);
/* The same in bf16 (bias in bf16 too), for the variants with a bf16 form. */
int rl_gemm_bias_gelu_bf16(int variant, const void *A, const void *B, const void *bias, void *C,
                           int M, int N, int K, int gelu_kind, void *stream);
int rl_gemm_bias_gelu_variant_bf16(int variant);
int rl_gemm_bias_gelu_variant_count(void);
const char *rl_gemm_bias_gelu_variant_name(int variant);
const char *rl_gemm_bias_gelu_variant_summary(int variant);
/* The HGEMM variant whose kernels fused variant `variant` runs with its epilogue (its plain
 * twin, for the unfused pair and the plain GEMM beside it); 0 out of range. */
int rl_gemm_bias_gelu_plain_variant(int variant);

/* ---- GEMM + bias + residual (gemm_residual.cu) ---- */
/* C = A . B + bias[N] + R, R[M x N] row-major like C: the bias, then the residual, added in
 * fp32 before the one rounding to fp16 (a transformer block's output projection and residual
 * connection). R and bias must not overlap C (cudaErrorInvalidValue). */
int rl_gemm_residual(int variant, const void *A, const void *B, const void *bias, const void *R,
                     void *C, int M, int N, int K, void *stream);
/* The same in bf16 (bias and R in bf16 too), for the variants with a bf16 form. */
int rl_gemm_residual_bf16(int variant, const void *A, const void *B, const void *bias,
                          const void *R, void *C, int M, int N, int K, void *stream);
int rl_gemm_residual_variant_bf16(int variant);
int rl_gemm_residual_variant_count(void);
const char *rl_gemm_residual_variant_name(int variant);
const char *rl_gemm_residual_variant_summary(int variant);
/* The HGEMM variant whose kernels variant `variant` runs (its plain twin); 0 out of range. */
int rl_gemm_residual_plain_variant(int variant);

/* ---- the unfused epilogue (bias_gelu_unfused.cu) ---- */
/* Y[M x N] = gelu(X + bias[N]) as its own kernel; X may equal Y. */
int rl_bias_gelu(const void *X, const void *bias, void *Y, int M, int N, int gelu_kind,
                 void *stream);

/* HGEMM v15's Stream-K schedule walked on the host (cuda/gemm/ws_stream_k.cuh, for its CPU
 * tests): `total` cluster tiles of `k_tiles` k-tiles over `clusters` clusters, the first
 * `sk_tiles` cut along K. 0 when its invariants hold, else the number of the first that fails
 * (1 bad arguments, 2 coverage, 3 a contribution not first or twice, 4 an owner's set, 5 a cut
 * tile without its owner). */
int rl_gemm_stream_k_units_check(int total, int clusters, int k_tiles, int sk_tiles);

/* The warp-specialized kernel's tile order (WsSchedule) walked on the host for an M x N output
 * (cuda/gemm/hgemm_19_a_multicast.cuh, for its CPU tests): along_n 1, HGEMM v19's 128x64 pairs
 * side by side along N; 0, v18's 128x256 pairs stacked along M. 0 when every tile of C is taken
 * once and each pair shares its operand; 1 bad arguments, 2 a misaligned tile, 3 a tile past
 * its cluster tile's overhang, 4 a pair not sharing its operand, 5 a tile of C taken 0 or 2+
 * times. */
int rl_gemm_ws_schedule_check(int M, int N, int along_n);

/* HGEMM v27's split-K pair walked on the host (cuda/gemm/hgemm_27_split_k_pair.cuh, for its
 * CPU tests): solo 0, groups of two CTAs along M sharing B (a cluster of 4); 1, groups of one.
 * 0 when every tile of C is taken once by each group, a group's CTAs share B's columns, and the
 * two groups' k-tile ranges are non-empty and cover [0, k_tiles) once; 1 bad arguments, 2 a
 * misaligned tile, 3 a group not sharing B, 4 a tile taken other than once per group, 5 the
 * k-tile ranges. */
int rl_gemm_ws_pair_check(int M, int N, int k_tiles, int solo);

/* HGEMM v17's ring under its pingpong schedule, simulated on the host (cuda/gemm/ws_pingpong.cuh,
 * for its CPU tests): a producer, the TMA unit and two consumer warpgroups taking `tiles` tiles
 * of `k_tiles` k-tiles in turn through `stages` stages, interleaved at random from `seed`;
 * handoff 0 leaves out the warpgroups' hand-off. 0 when every consumer read the k-tile it
 * wanted and no load overwrote a stage in use; 1 bad arguments, 2 a wrong k-tile read, 3 a
 * stage overwritten in use, 4 a deadlock. */
int rl_gemm_pingpong_ring_check(int stages, int tiles, int k_tiles, unsigned seed, int handoff);

/* GEMM+bias+GELU v22's hand-offs between its producer, consumers and epilogue warps,
 * simulated on the host (cuda/gemm/ws_epilogue_warps_model.cuh, for its CPU tests): `tiles`
 * tiles of `k_tiles` k-tiles through `stages` stages, interleaved at random from `seed`;
 * mutation 1-3 breaks one hand-off (1 the held stage one off, 2 no initial free arrival, 3 no
 * wait on free). held_by_consumers 1: v23's (the held half stored and given back by the
 * consumers; mutation 1 does not apply); stagger > 0 (with v23's): v25's last tile, warpgroup
 * 1 starting `stagger` k-tiles after warpgroup 0. 0 when every agent read what it wanted and
 * nothing was overwritten before it was used; 1 bad arguments, 2 a wrong read, 3 a stage
 * overwritten in use, 4 a deadlock, 5 a staging overwritten before its store. */
int rl_gemm_epilogue_warps_check(int stages, int tiles, int k_tiles, unsigned seed, int mutation,
                                 int held_by_consumers, int stagger);

/* The fused epilogue's erf-form GELU evaluated on the host with an exact exp2: the same
 * polynomial the kernels use, for the CPU test of its accuracy. */
float rl_gelu_erf_fast_host(float x);

#ifdef __cplusplus
}
#endif

#endif
