/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The mp/gmp kernel compiled at run time for one model structure (NVRTC), the CUDA engine's first
// choice (gmp_kernels.cu is the fallback and the `interpreted` variant).
//
// Why: the interpreted kernel walks the program (lags, entries, coefficients) from shared memory,
// and per entry that costs a header, its envelope loads and loop control besides the FMAs. A
// kernel generated for the structure has every lag, entry and Horner step unrolled, so what is left
// per output is the FMAs, one envelope load per entry and one sample load per lag. The
// coefficients are not compiled in (an update would mean a recompile): they are a
// __grid_constant__ kernel parameter, which the FMAs read straight from the constant bank, and an
// update is just the next launch's parameter block, sample-exact as before.
//
// Layout: blocks of 256 threads walk tiles of T = 8 * 256 outputs (grid-stride); a tile's T + H
// inputs and their |x| are staged in shared memory, then each thread computes its 8 outputs
// (strided by 256) one after the other with the generated straight-line code. Outputs per thread
// are a loop, not unrolled: the code stays one model long (FMAs x 16 bytes).
//
// NVRTC is loaded with dlopen when the first engine asks for it, so the library does not depend
// on it: without it (or when the parameter block would pass the 32 KiB kernel-parameter limit,
// or H is too deep for the static tile) the engine runs the interpreted kernel.
#include "cuda_common.cuh"
#include "gmp_launch.h"
#include <dlfcn.h>
#include <complex>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

constexpr int JIT_NT = 256;      // threads per block
constexpr int JIT_S = 8;         // outputs per thread (a loop)
constexpr int JIT_T = JIT_NT * JIT_S;
constexpr size_t MAX_PARAM_BYTES = 32000; // kernel parameters: 32764 bytes from CUDA 12.1 / sm_70
constexpr int MAX_JIT_H = 1500;  // static shared tile (T + H) * 12 bytes within 48 KiB

// The NVRTC entry points used, resolved from the shared library.
struct nvrtc_api {
    using prog = void*;
    int (*create)(prog*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
    int (*compile)(prog, int, const char* const*) = nullptr;
    int (*log_size)(prog, size_t*) = nullptr;
    int (*log)(prog, char*) = nullptr;
    int (*cubin_size)(prog, size_t*) = nullptr;
    int (*cubin)(prog, char*) = nullptr;
    int (*destroy)(prog*) = nullptr;
    bool ok = false;
};

const nvrtc_api& nvrtc()
{
    static const nvrtc_api api = [] {
        nvrtc_api a;
        void* h = nullptr;
        for (const char* name : { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                  "/usr/local/cuda/lib64/libnvrtc.so" })
            if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                break;
        if (!h)
            return a;
        auto sym = [&](auto& f, const char* n) { f = reinterpret_cast<std::decay_t<decltype(f)>>(dlsym(h, n)); };
        sym(a.create, "nvrtcCreateProgram");
        sym(a.compile, "nvrtcCompileProgram");
        sym(a.log_size, "nvrtcGetProgramLogSize");
        sym(a.log, "nvrtcGetProgramLog");
        sym(a.cubin_size, "nvrtcGetCUBINSize");
        sym(a.cubin, "nvrtcGetCUBIN");
        sym(a.destroy, "nvrtcDestroyProgram");
        a.ok = a.create && a.compile && a.log_size && a.log && a.cubin_size && a.cubin && a.destroy;
        return a;
    }();
    return api;
}

// Words of the flattened program (gmp_launch.h): lags {s, end, c}, entries {e, t, off, 0}.
struct view {
    const gmp_blob& b;
    int lag_s(int l) const { return b.words[4 * l]; }
    int lag_end(int l) const { return b.words[4 * l + 1]; }
    const int* entry(int i) const { return &b.words[4 * (b.nl + i)]; }
};

std::string float_lit(float v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
}

} // namespace

std::string gmp_jit_source(const gmp_blob& b)
{
    const view v{ b };
    std::ostringstream s;
    s << "struct gmp_coefs { float cr, ci; float2 lc[" << std::max(1, b.nl) << "]; float2 c[" << std::max(1, b.nc)
      << "]; };\n"
      << "extern \"C\" __global__ void __launch_bounds__(" << JIT_NT << ") gmp_jit(const float2* __restrict__ x, "
      << "float2* __restrict__ y, long long n, const __grid_constant__ gmp_coefs C)\n{\n"
      << "  constexpr int NT = " << JIT_NT << ", S = " << JIT_S << ", T = NT * S, H = " << b.H << ";\n"
      << "  __shared__ float2 xs[T + H];\n  __shared__ float es[T + H];\n"
      << "  for (long long base = (long long)blockIdx.x * T; base < n; base += (long long)gridDim.x * T) {\n"
      << "    __syncthreads();\n"
      << "    const long long avail = n - base + H;\n"
      << "    for (int i = threadIdx.x; i < T + H; i += NT) {\n"
      << "      const float2 u = i < avail ? __ldg(x + base + i) : make_float2(0.f, 0.f);\n"
      << "      xs[i] = u;\n      es[i] = sqrtf(fmaf(u.x, u.x, u.y * u.y));\n    }\n"
      << "    __syncthreads();\n"
      << "#pragma unroll 1\n"
      << "    for (int r = 0; r < S; r++) {\n"
      << "      const int o = H + threadIdx.x + r * NT;\n"
      << "      float ar = C.cr, ai = C.ci;\n";
    for (int l = 0, first = 0; l < b.nl; first = v.lag_end(l), l++) {
        s << "      { float gr = C.lc[" << l << "].x, gi = C.lc[" << l << "].y;\n";
        for (int i = first; i < v.lag_end(l); i++) {
            const int* E = v.entry(i); // e, t, off
            const int t = E[1], off = E[2];
            s << "        { const float a = es[o - " << E[0] << "];\n"
              << "          float hr = fmaf(C.c[" << off + t + 1 << "].x, a, C.c[" << off + t << "].x), hi = fmaf(C.c["
              << off + t + 1 << "].y, a, C.c[" << off + t << "].y);\n";
            for (int j = t - 1; j >= 0; j--)
                s << "          hr = fmaf(hr, a, C.c[" << off + j << "].x); hi = fmaf(hi, a, C.c[" << off + j
                  << "].y);\n";
            s << "          gr = fmaf(hr, a, gr); gi = fmaf(hi, a, gi); }\n";
        }
        s << "        const float2 u = xs[o - " << v.lag_s(l) << "];\n"
          << "        ar = fmaf(u.x, gr, fmaf(-u.y, gi, ar)); ai = fmaf(u.x, gi, fmaf(u.y, gr, ai)); }\n";
    }
    s << "      const long long i = base + threadIdx.x + r * NT;\n"
      << "      if (i < n) y[i] = make_float2(ar, ai);\n    }\n  }\n}\n";
    return s.str();
}

size_t gmp_jit_param_bytes(const gmp_blob& b) { return 8 + 8 * size_t(std::max(1, b.nl) + std::max(1, b.nc)); }

bool gmp_jit_available() { return nvrtc().ok; }

bool gmp_jit_preferred(const gmp_blob& b)
{
    // Policy (H200, docs/performance.md): one output per thread runs each entry's Horner chain
    // serially, so the compiled kernel wins while entries are short (4 coefficients: 0.113 vs
    // 0.129 ms, 0.243 vs 0.269 ms, 1.32 vs 1.44 ms) and loses to the interpreted kernel's 16
    // side-by-side outputs on long ones (entries of 9 and 5: 1.16 vs 0.97 ms).
    constexpr int longest_compiled_entry = 6;
    const view v{ b };
    for (int i = 0; i < b.ne; i++)
        if (v.entry(i)[1] + 2 > longest_compiled_entry)
            return false;
    return true;
}

const std::vector<char>* gmp_jit_cubin(const gmp_blob& b, int cc, std::string* why_not)
{
    auto no = [&](const std::string& w) -> const std::vector<char>* {
        if (why_not)
            *why_not = w;
        return nullptr;
    };
    if (!nvrtc().ok)
        return no("NVRTC (libnvrtc) not found");
    if (gmp_jit_param_bytes(b) > MAX_PARAM_BYTES)
        return no("the coefficients exceed the kernel-parameter space");
    if (b.H > MAX_JIT_H)
        return no("the history is deeper than the compiled kernel's tile");
    const std::string src = gmp_jit_source(b);
    // One compilation per structure and architecture, shared by every engine of the process (the
    // coefficients are not part of the source). Entries are never removed, so the pointer stays valid.
    static std::mutex m;
    static std::map<std::string, std::vector<char>> cache;
    const std::string key = std::to_string(cc) + "\n" + src;
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(key);
    if (it != cache.end())
        return &it->second;
    const auto& api = nvrtc();
    nvrtc_api::prog p = nullptr;
    if (api.create(&p, src.c_str(), "gmp_jit.cu", 0, nullptr, nullptr) != 0)
        return no("nvrtcCreateProgram failed");
    const std::string arch = "--gpu-architecture=sm_" + std::to_string(cc);
    const char* opts[] = { arch.c_str(), "--std=c++17" };
    const int rc = api.compile(p, 2, opts);
    if (rc != 0) {
        size_t n = 0;
        api.log_size(p, &n);
        std::string log(n, '\0');
        api.log(p, log.data());
        api.destroy(&p);
        return no("NVRTC: " + log.substr(0, 600));
    }
    size_t n = 0;
    api.cubin_size(p, &n);
    std::vector<char> cubin(n);
    api.cubin(p, cubin.data());
    api.destroy(&p);
    return &cache.emplace(key, std::move(cubin)).first->second;
}

gmp_jit_kernel compile_gmp_jit(const gmp_blob& b, int device, std::string* why_not)
{
    device_guard guard(device);
    int major = 0, minor = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    const std::vector<char>* cubin = gmp_jit_cubin(b, major * 10 + minor, why_not);
    if (!cubin)
        return {};
    auto no = [&](const std::string& w) {
        cudaGetLastError(); // the failed call's error is reported here, not by the next check
        if (why_not)
            *why_not = w;
        return gmp_jit_kernel{};
    };
    cudaLibrary_t lib = nullptr;
    if (cudaLibraryLoadData(&lib, cubin->data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess)
        return no("cudaLibraryLoadData failed");
    cudaKernel_t kern = nullptr;
    if (cudaLibraryGetKernel(&kern, lib, "gmp_jit") != cudaSuccess) {
        cudaLibraryUnload(lib);
        return no("cudaLibraryGetKernel failed");
    }
    gmp_jit_kernel k;
    k.lib = lib;
    k.fn = reinterpret_cast<const void*>(kern);
    k.param_bytes = gmp_jit_param_bytes(b);
    // A launch of no samples proves the handle launches on this driver before any stream relies
    // on it; any failure leaves the interpreted kernel in charge.
    std::vector<char> params;
    gmp_jit_params(b, params);
    const float2* x = nullptr;
    float2* y = nullptr;
    long long zero = 0;
    void* args[] = { &x, &y, &zero, params.data() };
    int sms = 1, per_sm = 0;
    stream probe; // its own stream: the other engines' work on the device is not waited for
    if (cudaLaunchKernel(k.fn, dim3(1), dim3(JIT_NT), args, 0, probe.get()) != cudaSuccess ||
        cudaStreamSynchronize(probe.get()) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.fn, JIT_NT, 0) != cudaSuccess) {
        const std::string err = cudaGetErrorString(cudaGetLastError());
        release_gmp_jit(k);
        return no("the compiled kernel does not launch: " + err);
    }
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    k.max_blocks = std::max(1, per_sm) * sms;
    return k;
}

void release_gmp_jit(gmp_jit_kernel& k)
{
    if (k.lib)
        cudaLibraryUnload(static_cast<cudaLibrary_t>(k.lib));
    k = gmp_jit_kernel{};
}

void gmp_jit_params(const gmp_blob& b, std::vector<char>& out)
{
    out.assign(gmp_jit_param_bytes(b), 0);
    std::memcpy(out.data(), &b.cr, sizeof(float));
    std::memcpy(out.data() + 4, &b.ci, sizeof(float));
    for (int l = 0; l < b.nl; l++)
        std::memcpy(out.data() + 8 + 8 * size_t(l), &b.words[4 * l + 2], 8);
    std::memcpy(out.data() + 8 + 8 * size_t(std::max(1, b.nl)), b.words.data() + 4 * (b.nl + b.ne),
                8 * size_t(b.nc));
}

void launch_gmp_jit(const gmp_jit_kernel& k, const std::vector<char>& params, const float2* x, float2* y, size_t n,
                    cudaStream_t st)
{
    if (n == 0)
        return;
    long long nn = (long long)n;
    const int grid = int(std::min<long long>((nn + JIT_T - 1) / JIT_T, k.max_blocks));
    void* args[] = { &x, &y, &nn, const_cast<char*>(params.data()) };
    GPUINTERP_CUDA_CHECK(cudaLaunchKernel(k.fn, dim3(grid), dim3(JIT_NT), args, 0, st));
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
