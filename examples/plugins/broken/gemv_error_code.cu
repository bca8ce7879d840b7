// broken/gemv_error_code.cu: a GEMV plugin whose launcher refuses every call with
// cudaErrorInvalidValue (1), as a launcher does for arguments it cannot take. The tool names
// the code ("invalid argument (cudaError 1)") and the plugin, exits 3, and keeps the records
// measured before it (tests/cli_user_plugin.rs).
//
//   nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -o libbroken_gemv_error_code.so gemv_error_code.cu
#include <cuda_runtime.h>

extern "C" int rl_gemv(int variant, const void* x, const void* W, void* y, void* workspace,
                       int M, int N, int K, void* stream) {
  (void)variant, (void)x, (void)W, (void)y, (void)workspace, (void)M, (void)N, (void)K,
      (void)stream;
  return cudaErrorInvalidValue;
}
