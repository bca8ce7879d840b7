// What every family's variant table shares: each row names a variant (id, name, summary) and
// the launcher that says explicitly what it runs; ids are 1..N in order (checked at compile
// time by the tables).
#pragma once

namespace rl_table {

// Whether a table's ids run 1, 2, ..., N.
template <class Row, int N>
constexpr bool ids_in_order(const Row (&rows)[N]) {
  for (int i = 0; i < N; ++i)
    if (rows[i].id != i + 1) return false;
  return true;
}

template <class Row, int N>
constexpr int count(const Row (&)[N]) {
  return N;
}

// The row of variant v, or null.
template <class Row, int N>
const Row *find(const Row (&rows)[N], int v) {
  return v >= 1 && v <= N ? &rows[v - 1] : nullptr;
}

// Variant v's name and summary (the C API's *_variant_name and *_variant_summary), or null.
template <class Row, int N>
const char *name(const Row (&rows)[N], int v) {
  const Row *row = find(rows, v);
  return row != nullptr ? row->name : nullptr;
}
template <class Row, int N>
const char *summary(const Row (&rows)[N], int v) {
  const Row *row = find(rows, v);
  return row != nullptr ? row->summary : nullptr;
}

// Variant v's plain twin (the GEMM family's epilogue tables: the HGEMM variant it runs), or 0.
template <class Row, int N>
int plain_twin(const Row (&rows)[N], int v) {
  const Row *row = find(rows, v);
  return row != nullptr ? row->plain_twin : 0;
}

// Whether variant v has a bf16 form (the GEMM family's tables: a non-null `bf16` launcher in
// its row): 1 or 0, 0 out of range.
template <class Row, int N>
int has_bf16(const Row (&rows)[N], int v) {
  const Row *row = find(rows, v);
  return row != nullptr && row->bf16 != nullptr ? 1 : 0;
}

}  // namespace rl_table
