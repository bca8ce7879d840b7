// Hopper's warpgroup MMA (wgmma) on operands in shared memory, for the GEMM family's wgmma
// tiles (v9: 128x64 over all of K at mid M; v10: 64x64 with K split over a cluster at 17..64
// rows; v12: the persistent warp-specialized kernel's m64n256 / m64n128 shapes). All feed their
// rings by TMA with the 128-byte swizzle, so a stage is rows of 128 bytes in 1024-byte swizzle
// atoms, which these descriptors describe. sm_90a only: the host runs the wgmma tiles where
// wgmma_capable() says so, else the WMMA paths.
#pragma once
#include <type_traits>

#include "gemm/cluster.cuh"
#include "gemm/elem.cuh"
#include "tma.cuh"
#include "tma_host.cuh"

namespace rlg {

// The k-tile of every wgmma tile: 64 (one row of 128 bytes of fp16 or bf16 per swizzle row).
constexpr int kWgmmaKTile = 64;

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A shared-memory matrix descriptor of a 128-byte-swizzled operand: start address, leading
// and stride byte offsets (16-byte units), layout type 1 (128B swizzle) in bits 62-63.
__device__ __forceinline__ unsigned long long wg_desc(const void *p, unsigned lbo, unsigned sbo) {
  const unsigned long long a = smem_addr(p);
  return ((a & 0x3FFFF) >> 4) | (static_cast<unsigned long long>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<unsigned long long>((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
// The descriptor of the operand `off16` x 16 bytes after desc's (v20): a 32-bit add to the low
// word, the high word kept. The caller guarantees the moved address stays in the shared window
// (below 256 KB), so the 14-bit address field does not carry.
__device__ __forceinline__ unsigned long long wg_desc_moved(unsigned long long desc,
                                                            unsigned off16) {
  return (desc & 0xFFFFFFFF00000000ull) | (static_cast<unsigned>(desc) + off16);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps the compiler from touching the accumulators across a wgmma wait.
template <int R>
__device__ __forceinline__ void wg_hold(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The wgmma wrappers below are templates on the input element type T: half gives the
// instruction's .f16.f16 form (the asm text it always had), bf16 its .bf16.bf16 form. Both take
// the same descriptors, layouts and transposes (imm-trans-a/b exist for exactly these two
// types), so nothing else in a kernel changes with T. The asm text must be a literal: each
// wrapper spells its instruction once in a macro taking the type's PTX name.
#define RL_WGMMA_64x64x16(TY)                                                                     \
  asm volatile(                                                                                   \
      "{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"                                                \
      " wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " "                                \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "    \
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, "  \
      "1;\n}\n"                                                                                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),       \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),   \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),             \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),             \
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])              \
      : "l"(da), "l"(db)                                                                          \
      : "memory")
// d += A (64 x 16, K-major) . B (16 x 64, N-major: trans-b 1), fp32 accumulate.
template <class T = half>
__device__ __forceinline__ void wgmma_64x64x16(float (&d)[32], unsigned long long da,
                                               unsigned long long db) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bf16>, "fp16 or bf16 inputs");
  if constexpr (std::is_same_v<T, half>)
    RL_WGMMA_64x64x16("f16");
  else
    RL_WGMMA_64x64x16("bf16");
}
#undef RL_WGMMA_64x64x16
// One k-tile of 64 on 64 rows: four k-steps (32 bytes along A's 128-byte-swizzled rows, 16
// rows of B's) issued as one committed wgmma group.
template <class T = half>
__device__ __forceinline__ void wgmma_ktile_64x64(float (&d)[32], const unsigned char *a,
                                                  const unsigned char *b) {
  wg_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
    wgmma_64x64x16<T>(d, wg_desc(a + kk * 32, 16, 1024), wg_desc(b + kk * 2048, 1024, 1024));
  wg_commit();
}
// The wide shapes of the warp-specialized kernel (v12): one m64 row block against 128 or 256
// columns of B per instruction, so B is read from shared memory once per 64 rows. Their
// accumulator operands: the registers %0..%63 (and %64..%127) of the asm, bound to d[0..63]
// (and d[64..127]).
#define RL_WG_REGS_0_63                                                                           \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"                                        \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"                              \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"                              \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define RL_WG_REGS_64_95                                                                          \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"                              \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
#define RL_WG_REGS_64_127                                                                         \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"                              \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"                              \
  "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"                  \
  "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
#define RL_WG_ACC8(I)                                                                             \
  "+f"(d[I]), "+f"(d[I + 1]), "+f"(d[I + 2]), "+f"(d[I + 3]), "+f"(d[I + 4]),                     \
      "+f"(d[I + 5]), "+f"(d[I + 6]), "+f"(d[I + 7])
#define RL_WG_ACC32(I) RL_WG_ACC8(I), RL_WG_ACC8(I + 8), RL_WG_ACC8(I + 16), RL_WG_ACC8(I + 24)
#define RL_WG_ACC64(I) RL_WG_ACC32(I), RL_WG_ACC32(I + 32)
#define RL_WGMMA_64x128x16(TY)                                                                    \
  asm volatile(                                                                                   \
      "{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"                                                \
      " wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" RL_WG_REGS_0_63               \
      "}, %64, %65, p, 1, 1, 0, 1;\n}\n"                                                          \
      : RL_WG_ACC64(0)                                                                            \
      : "l"(da), "l"(db)                                                                          \
      : "memory")
#define RL_WGMMA_64x192x16(TY)                                                                    \
  asm volatile(                                                                                   \
      "{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"                                                \
      " wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY " {" RL_WG_REGS_0_63               \
      "," RL_WG_REGS_64_95 "}, %96, %97, p, 1, 1, 0, 1;\n}\n"                                      \
      : RL_WG_ACC64(0), RL_WG_ACC32(64)                                                           \
      : "l"(da), "l"(db)                                                                          \
      : "memory")
#define RL_WGMMA_64x256x16(TY)                                                                    \
  asm volatile(                                                                                   \
      "{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"                                                \
      " wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" RL_WG_REGS_0_63               \
      "," RL_WG_REGS_64_127 "}, %128, %129, p, 1, 1, 0, 1;\n}\n"                                  \
      : RL_WG_ACC64(0), RL_WG_ACC64(64)                                                           \
      : "l"(da), "l"(db)                                                                          \
      : "memory")
// d += A (64 x 16, K-major) . B (16 x N, N-major: trans-b 1), fp32 accumulate, N = 128, 192 or
// 256 (192: v13's tile for widths where 256 leaves a wave short); T: the inputs' type (half:
// .f16, bf16: .bf16).
// d[4j + q] is row 16 warp + lane / 4 (+8 for q >= 2), column 8j + 2 (lane % 4) + (q & 1).
template <class T = half>
__device__ __forceinline__ void wgmma_64x128x16(float (&d)[64], unsigned long long da,
                                                unsigned long long db) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bf16>, "fp16 or bf16 inputs");
  if constexpr (std::is_same_v<T, half>)
    RL_WGMMA_64x128x16("f16");
  else
    RL_WGMMA_64x128x16("bf16");
}
template <class T = half>
__device__ __forceinline__ void wgmma_64x192x16(float (&d)[96], unsigned long long da,
                                                unsigned long long db) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bf16>, "fp16 or bf16 inputs");
  if constexpr (std::is_same_v<T, half>)
    RL_WGMMA_64x192x16("f16");
  else
    RL_WGMMA_64x192x16("bf16");
}
template <class T = half>
__device__ __forceinline__ void wgmma_64x256x16(float (&d)[128], unsigned long long da,
                                                unsigned long long db) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, bf16>, "fp16 or bf16 inputs");
  if constexpr (std::is_same_v<T, half>)
    RL_WGMMA_64x256x16("f16");
  else
    RL_WGMMA_64x256x16("bf16");
}
#undef RL_WGMMA_64x256x16
#undef RL_WGMMA_64x192x16
#undef RL_WGMMA_64x128x16
#undef RL_WG_ACC64
#undef RL_WG_ACC32
#undef RL_WG_ACC8
#undef RL_WG_REGS_64_127
#undef RL_WG_REGS_64_95
#undef RL_WG_REGS_0_63
#endif

// Whether this build carries the kernel's sm_90a code (build.rs defines RL_SM90A when the
// target list has 90a) and the device and driver can run it.
inline bool wgmma_capable() {
#if defined(RL_SM90A)
  return device_is_sm90() && rl_tma::tensor_map_encoder() != nullptr;
#else
  return false;
#endif
}

}  // namespace rlg
