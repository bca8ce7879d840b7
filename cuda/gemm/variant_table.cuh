// What the two families' variant tables share: each row names a variant and the launcher
// that says explicitly what it runs; ids are 1..N in order (checked at compile time).
#pragma once
#include "common.cuh"

namespace rlg {

inline bool gemm_args_ok(const void *A, const void *B, const void *C, int M, int N, int K) {
  return A != nullptr && B != nullptr && C != nullptr && M >= 1 && N >= 1 && K >= 1;
}

// Whether a table's ids run 1, 2, ..., N.
template <class Row, int N>
constexpr bool ids_in_order(const Row (&rows)[N]) {
  for (int i = 0; i < N; ++i)
    if (rows[i].id != i + 1) return false;
  return true;
}

// The row of variant v, or null.
template <class Row, int N>
const Row *find_variant(const Row (&rows)[N], int v) {
  return v >= 1 && v <= N ? &rows[v - 1] : nullptr;
}

// Variant v's name and summary (the C API's *_variant_name and *_variant_summary), or null.
template <class Row, int N>
const char *variant_name(const Row (&rows)[N], int v) {
  const Row *row = find_variant(rows, v);
  return row != nullptr ? row->name : nullptr;
}
template <class Row, int N>
const char *variant_summary(const Row (&rows)[N], int v) {
  const Row *row = find_variant(rows, v);
  return row != nullptr ? row->summary : nullptr;
}

}  // namespace rlg
