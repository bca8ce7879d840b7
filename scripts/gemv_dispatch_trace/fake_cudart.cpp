// A stub CUDA runtime for tracing the GEMV's host dispatch on a CPU (run.sh): it records every
// kernel launch (the kernel's name, grid, block, dynamic shared memory, cluster height) and
// answers the device queries from the environment: SMS (SM count, 132), CC (compute
// capability major, 9), OCC (blocks per SM: 1 + hash(kernel) % OCC, 3), CLUSTERS and SPREAD
// (resident clusters: CLUSTERS - hash(kernel) % (SPREAD + 1), 66 and 3), TMA (the tensor-map
// encoder exists, 1). The answers depend on the kernel asked about, so a dispatch that queries
// another kernel shows in the trace.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

std::string g_trace;  // the launches since the harness last cleared it

namespace {

std::map<const void *, std::string> g_names;  // host stub -> mangled kernel name
dim3 g_grid, g_block;
size_t g_smem;
cudaStream_t g_stream;

int env(const char *name, int fallback) {
  const char *v = getenv(name);
  return v != nullptr ? atoi(v) : fallback;
}

// FNV-1a of a kernel's name without the anonymous namespace's per-build tag
// (_GLOBAL__N__<hash>_<len>_gemv_cu_<hash>), so that two builds answer alike.
unsigned hash(std::string s) {
  const size_t a = s.find("_GLOBAL__N__");
  if (a != std::string::npos) s.erase(a, s.find("gemv_cu_", a) + 16 - a);
  unsigned h = 2166136261u;
  for (const char c : s) h = (h ^ (unsigned char)c) * 16777619u;
  return h;
}

std::string name_of(const void *f) {
  const auto it = g_names.find(f);
  return it == g_names.end() ? "?" : it->second;
}

void record(const void *f, dim3 g, dim3 b, size_t smem, unsigned cluster_y) {
  char buf[512];
  snprintf(buf, sizeof buf, " [%s g%u,%u,%u b%u s%zu c%u]", name_of(f).c_str(), g.x, g.y, g.z,
           b.x, smem, cluster_y);
  g_trace += buf;
}

CUresult fake_encode(CUtensorMap *m, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                     CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                     CUtensorMapFloatOOBfill) {
  memset(m, 0, sizeof *m);
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {
void **__cudaRegisterFatBinary(void *) {
  static void *handle;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void **) {}
char __cudaInitModule(void **) { return 0; }
void __cudaUnregisterFatBinary(void **) {}
void __cudaRegisterFunction(void **, const char *host_fun, char *, const char *device_name, int,
                            uint3 *, uint3 *, dim3 *, dim3 *, int *) {
  g_names[host_fun] = device_name;
}
unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t smem, struct CUstream_st *s) {
  g_grid = g, g_block = b, g_smem = smem, g_stream = s;
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *smem, void *s) {
  *g = g_grid, *b = g_block, *smem = g_smem, *static_cast<cudaStream_t *>(s) = g_stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *f) {
  *k = (cudaKernel_t)f;
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **, size_t smem,
                               cudaStream_t) {
  record((const void *)k, g, b, smem, 1);
  return cudaSuccess;
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **) {
  unsigned cy = 1;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == cudaLaunchAttributeClusterDimension) cy = c->attrs[i].val.clusterDim.y;
  record(f, c->gridDim, c->blockDim, c->dynamicSmemBytes, cy);
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
  *v = a == cudaDevAttrMultiProcessorCount      ? env("SMS", 132)
       : a == cudaDevAttrComputeCapabilityMajor ? env("CC", 9)
                                                : 0;
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *f, int, size_t) {
  *n = 1 + (int)(hash(name_of(f)) % (unsigned)env("OCC", 3));
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *f, int b,
                                                                   size_t smem, unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, smem);
}
cudaError_t cudaOccupancyMaxActiveClusters(int *n, const void *f, const cudaLaunchConfig_t *) {
  *n = env("CLUSTERS", 66) - (int)(hash(name_of(f)) % (unsigned)(env("SPREAD", 3) + 1));
  return cudaSuccess;
}
cudaError_t cudaGetDriverEntryPointByVersion(const char *, void **f, unsigned int,
                                             unsigned long long,
                                             cudaDriverEntryPointQueryResult *q) {
  const bool yes = env("TMA", 1) != 0;
  *f = yes ? (void *)fake_encode : nullptr;
  *q = yes ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
}  // extern "C"

// cuda/runtime.cu's helpers, from the same environment.
int rl_sm_count() { return env("SMS", 132); }
bool rl_cc9_or_newer() { return env("CC", 9) >= 9; }
