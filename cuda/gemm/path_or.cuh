// How a step of the GEMM ladder adds a path to the step before it: `path(&launched)` launches
// only where it suits the shape; where it did not, `previous()` runs.
#pragma once

namespace rlg {

template <class Path, class Previous>
int path_or(Path path, Previous previous) {
  bool launched = false;
  const int st = path(&launched);
  return launched ? st : previous();
}

}  // namespace rlg
