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
// per output is the FMAs and the loads of the staged values it reads. The
// coefficients are not compiled in (an update would mean a recompile): they are a
// __grid_constant__ kernel parameter, and an update is just the next launch's parameter block,
// sample-exact as before.
//
// Where the FMAs read the coefficients from (gmp_jit_shape): straight from the constant bank
// while the parameter block is small, or, above gmp_tuning::jit_shared_above bytes, the first
// jit_constant_first from the constant bank and the rest from a copy in shared memory that each
// block makes once. The constant bank serves a c[][] operand at
// full rate only from its small immediate-constant cache; every warp walks the whole coefficient
// set once per output pair, so a set of a few KiB misses there on most reads (Nsight Compute on
// the 500-coefficient GMP: a third of the stall cycles were immediate-constant misses, and the
// uniform-register loads cost another fifth of the issue slots). From shared memory two complex
// coefficients come in one 16-byte load that V outputs share.
//
// Layout: blocks of 256 threads walk tiles of T = 8 * 256 outputs (grid-stride; gmp_build, the
// defaults of gmp_jit_shape, whose threads and outputs both the source and the launch read); a
// tile's T + H inputs and their |x| are staged in shared memory, which bounds H
// (gmp_jit_max_history()). Each thread then computes V adjacent outputs
// at a time (V = 2 in production, gmp_jit_shape_for(); 1 and 4 are built for the
// benchmark that chose it) with the generated straight-line code: the V Horner chains of an entry
// run side by side, and each staged value the V outputs read is loaded once, as an aligned pair.
// The outputs a thread takes in turn are a loop, not unrolled: the code stays one model long
// (V x FMAs x 16 bytes).
//
// NVRTC is loaded with dlopen when the first engine asks for it, so the library does not depend
// on it: without it (or when the parameter block would pass the 32 KiB kernel-parameter limit,
// or H is too deep for the static tile) the engine runs the interpreted kernel.
#include "cuda_common.cuh"
#include "gmp_launch.h"
#include "gmp_tuning.h"
#include <dlfcn.h>
#include <complex>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

// Kernel parameters: 32764 bytes from CUDA 12.1 / sm_70.
constexpr size_t MAX_PARAM_BYTES = 32000;
// Static shared memory of one block.
constexpr size_t MAX_STATIC_SMEM = gmp_jit_static_smem;

// The NVRTC entry points used, resolved from the shared library.
struct nvrtc_api {
    using prog = void*;
    int (*create)(prog*,
                  const char*,
                  const char*,
                  int,
                  const char* const*,
                  const char* const*) = nullptr;
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
        for (const char* name : { "libnvrtc.so.13",
                                  "libnvrtc.so.12",
                                  "libnvrtc.so",
                                  "/usr/local/cuda/lib64/libnvrtc.so" })
            if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
                break;
        if (!h)
            return a;
        auto sym = [&](auto& f, const char* n) {
            f = reinterpret_cast<std::decay_t<decltype(f)>>(dlsym(h, n));
        };
        sym(a.create, "nvrtcCreateProgram");
        sym(a.compile, "nvrtcCompileProgram");
        sym(a.log_size, "nvrtcGetProgramLogSize");
        sym(a.log, "nvrtcGetProgramLog");
        sym(a.cubin_size, "nvrtcGetCUBINSize");
        sym(a.cubin, "nvrtcGetCUBIN");
        sym(a.destroy, "nvrtcDestroyProgram");
        a.ok = a.create && a.compile && a.log_size && a.log && a.cubin_size && a.cubin &&
               a.destroy;
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

} // namespace

size_t gmp_jit_shared_bytes(const gmp_blob& b, const gmp_jit_shape& shape)
{
    const size_t tile = size_t(shape.threads * shape.outputs + b.H + 2) *
                        (sizeof(float2) + sizeof(float));
    return tile + (shape.shared ? 16 * size_t(b.nc / 2 + 1) : 0);
}

std::string gmp_jit_source(const gmp_blob& b, const gmp_jit_shape& shape)
{
    const int V = shape.V;
    if (V != 1 && V != 2 && V != 4)
        throw std::invalid_argument(
            "gmp_jit_source: outputs per thread must be 1, 2 or 4");
    // T = threads x outputs is then a multiple of V: the tile is whole V-output steps.
    if (shape.threads <= 0 || shape.threads % 32 != 0 || shape.outputs <= 0)
        throw std::invalid_argument("gmp_jit_source: the block must be whole warps and "
                                    "each thread take at least one output");
    const view v{ b };
    // Outputs o0 .. o0+V-1 of a thread are adjacent, so a sample or envelope value read by one
    // output at lag k is the one its neighbour reads at lag k+1: each value of the window is
    // loaded once, as an aligned pair (float4 of two samples, float2 of two envelopes) where V is
    // even. o0 = H + V*q, so the pair starting at o0 - k is aligned when H - k is even.
    const bool pairs = V % 2 == 0;
    auto start_of = [&](int k) {
        return pairs && (b.H - k) % 2 != 0 ? k + 1 : k;
    }; // lag k's pair
    // The register holding the sample (x) or envelope value at o0 - a (a pair's first where V is even).
    auto name_of = [](bool x, int a) {
        return std::string(x ? "X" : "E") + (a < 0 ? "m" : "") +
               std::to_string(std::abs(a));
    };
    std::set<std::string> loaded;
    auto need = [&](std::ostringstream& o, bool x, int k) {
        // Loads the value at o0 - k (k may go to -(V-1)) into a register, once.
        const int a = start_of(k); // the pair holding o0 - k starts at o0 - a
        const std::string name = name_of(x, a);
        if (!loaded.insert(name).second)
            return;
        if (!pairs)
            o << "    const " << (x ? "float2 " : "float ") << name << " = "
              << (x ? "xs" : "es") << "[o0 - (" << a << ")];\n";
        else
            o << "    const " << (x ? "float4 " : "float2 ") << name
              << " = *reinterpret_cast<const " << (x ? "float4" : "float2") << "*>(&"
              << (x ? "xs" : "es") << "[o0 - (" << a << ")]);\n";
    };
    // The register expression of the sample (x) or envelope at o0 + j - lag, j the output.
    auto at = [&](bool x, int j, int lag) {
        const int k = lag - j;
        const int a = start_of(k);
        const std::string name = name_of(x, a);
        if (!pairs)
            return name;
        const bool second = a != k; // o0 - k = o0 - a + 1
        if (x)
            return second ? "make_float2(" + name + ".z, " + name + ".w)"
                          : "make_float2(" + name + ".x, " + name + ".y)";
        return name + (second ? ".y" : ".x");
    };
    // Coefficient `k`'s real (im = false) or imaginary part: a constant-bank operand, or a lane of
    // the 16-byte pair Q<k/2> that the entry loaded from shared memory.
    auto coef = [&](int k, bool im) {
        if (!shape.shared || k < shape.constant_count)
            return "C.c[" + std::to_string(k) + "]." + (im ? "y" : "x");
        return "Q" + std::to_string(k / 2) + "." +
               (k % 2 ? (im ? "w" : "z") : (im ? "y" : "x"));
    };
    std::ostringstream s;
    s << "struct gmp_coefs { float cr, ci; float2 lc[" << std::max(1, b.nl)
      << "]; float2 c[" << std::max(1, b.nc) << "]; };\n"
      << "extern \"C\" __global__ void __launch_bounds__(" << shape.threads
      << ") gmp_jit(const float2* __restrict__ x, "
      << "float2* __restrict__ y, long long n, const __grid_constant__ gmp_coefs C)\n{\n"
      << "  constexpr int NT = " << shape.threads << ", S = " << shape.outputs
      << ", T = NT * S, H = " << b.H << ", V = " << V
      << ";\n"
      // +2: the aligned pair holding the last output's newest value may reach one place past T + H
      // (loaded, never used).
      << "  __shared__ __align__(16) float2 xs[T + H + 2];\n  __shared__ __align__(16) "
         "float es[T + H + 2];\n"
      << "  const bool y16 = (reinterpret_cast<unsigned long long>(y) & 15) == 0;\n";
    if (shape.shared)
        // Visible to the whole block after the tile loop's first barrier.
        s << "  __shared__ __align__(16) float4 cs[" << b.nc / 2 + 1 << "];\n"
          << "  for (int i = threadIdx.x; i < " << b.nc
          << "; i += NT) reinterpret_cast<float2*>(cs)[i] = C.c[i];\n";
    s << "  for (long long base = (long long)blockIdx.x * T; base < n; base += (long "
         "long)gridDim.x * T) {\n"
      << "    __syncthreads();\n"
      << "    const long long avail = n - base + H;\n"
      << "    for (int i = threadIdx.x; i < T + H; i += NT) {\n"
      << "      const float2 u = i < avail ? __ldg(x + base + i) : make_float2(0.f, "
         "0.f);\n"
      << "      xs[i] = u;\n      es[i] = sqrtf(fmaf(u.x, u.x, u.y * u.y));\n    }\n"
      << "    __syncthreads();\n"
      << "#pragma unroll 1\n"
      << "    for (int q = threadIdx.x; q < T / V; q += NT) {\n"
      << "      const int o0 = H + V * q;\n";
    if (shape.shared)
        // An offset the compiler cannot see through: without it the coefficient loads, being
        // loop-invariant, are hoisted out of the loop and held in (spilled) registers.
        s << "      int zo = 0;\n      asm volatile(\"\" : \"+r\"(zo));\n";
    std::ostringstream body;
    for (int j = 0; j < V; j++)
        body << "    float ar" << j << " = C.cr, ai" << j << " = C.ci;\n";
    for (int l = 0, first = 0; l < b.nl; first = v.lag_end(l), l++) {
        // This lag's window values, loaded at loop scope so the later lags that share them reuse them.
        for (int i = first; i < v.lag_end(l); i++)
            for (int j = 0; j < V; j++)
                need(body, false, v.entry(i)[0] - j);
        for (int j = 0; j < V; j++)
            need(body, true, v.lag_s(l) - j);
        body << "    {\n";
        for (int j = 0; j < V; j++)
            body << "      float gr" << j << " = C.lc[" << l << "].x, gi" << j
                 << " = C.lc[" << l << "].y;\n";
        for (int i = first; i < v.lag_end(l); i++) {
            const int* E = v.entry(i); // e, t, off
            const int t = E[1], off = E[2];
            body << "      {\n";
            if (shape.shared)
                for (int q = std::max(off, shape.constant_count) / 2;
                     q <= (off + t + 1) / 2;
                     q++)
                    body << "        const float4 Q" << q << " = cs[zo + " << q << "];\n";
            // V Horner chains side by side (each output's FMAs in the same order as V = 1).
            for (int j = 0; j < V; j++)
                body << "        const float a" << j << " = " << at(false, j, E[0])
                     << ";\n"
                     << "        float hr" << j << " = fmaf(" << coef(off + t + 1, false)
                     << ", a" << j << ", " << coef(off + t, false) << "), hi" << j
                     << " = fmaf(" << coef(off + t + 1, true) << ", a" << j << ", "
                     << coef(off + t, true) << ");\n";
            for (int k = t - 1; k >= 0; k--)
                for (int j = 0; j < V; j++)
                    body << "        hr" << j << " = fmaf(hr" << j << ", a" << j << ", "
                         << coef(off + k, false) << "); hi" << j << " = fmaf(hi" << j
                         << ", a" << j << ", " << coef(off + k, true) << ");\n";
            for (int j = 0; j < V; j++)
                body << "        gr" << j << " = fmaf(hr" << j << ", a" << j << ", gr"
                     << j << "); gi" << j << " = fmaf(hi" << j << ", a" << j << ", gi"
                     << j << ");\n";
            body << "      }\n";
        }
        for (int j = 0; j < V; j++)
            body << "      { const float2 u = " << at(true, j, v.lag_s(l)) << ";\n"
                 << "        ar" << j << " = fmaf(u.x, gr" << j << ", fmaf(-u.y, gi" << j
                 << ", ar" << j << ")); ai" << j << " = fmaf(u.x, gi" << j
                 << ", fmaf(u.y, gr" << j << ", ai" << j << ")); }\n";
        body << "    }\n";
    }
    s << body.str() << "      const long long i = base + (long long)V * q;\n";
    if (V == 1)
        s << "      if (i < n) y[i] = make_float2(ar0, ai0);\n";
    else {
        s << "      if (i + V <= n && y16) {\n";
        for (int j = 0; j < V; j += 2)
            s << "        *reinterpret_cast<float4*>(y + i + " << j
              << ") = make_float4(ar" << j << ", ai" << j << ", ar" << j + 1 << ", ai"
              << j + 1 << ");\n";
        s << "      } else {\n";
        for (int j = 0; j < V; j++)
            s << "        if (i + " << j << " < n) y[i + " << j << "] = make_float2(ar"
              << j << ", ai" << j << ");\n";
        s << "      }\n";
    }
    s << "    }\n  }\n}\n";
    return s.str();
}

size_t gmp_jit_param_bytes(const gmp_blob& b)
{
    return 8 + 8 * size_t(std::max(1, b.nl) + std::max(1, b.nc));
}

bool gmp_jit_available() { return nvrtc().ok; }

bool gmp_jit_preferred(const gmp_blob& b, const gmp_tuning& t)
{
    // Policy (H200, 2^24 samples, docs/performance.md, "GMP kernels ... shared coefficients"):
    // the compiled kernel wins on every measured model, whose entries have 2 to 9 coefficients
    // (0.100 vs 0.130 ms at 30 coefficients, 0.196 vs 0.269 at 95, 0.757 vs 0.976 on the
    // 500-coefficient GMP with entries of 9 and 5, 0.93 vs 1.44 on mp:K=5,M=100). Longer entries
    // are not measured, and there the interpreted kernel stays, as it needs no run-time
    // compilation.
    const view v{ b };
    for (int i = 0; i < b.ne; i++)
        if (v.entry(i)[1] + 2 > t.longest_compiled_entry)
            return false;
    return true;
}

int gmp_jit_waves(const gmp_tuning& t, const gmp_jit_shape& shape)
{
    return shape.shared ? t.jit_shared_waves : t.jit_waves;
}

gmp_jit_shape gmp_jit_shape_for(const gmp_blob& b, const gmp_tuning& t)
{
    // Two adjacent outputs per thread load each window value once for both and run two Horner
    // chains side by side: 0.107 / 0.207 / 1.16 ms against one output's 0.116 / 0.232 / 1.32 and
    // four outputs' 0.114 / 0.220 / 1.26 (30, 95 coefficients, mp:K=5,M=100; four outputs need
    // up to 106 registers and twice the code, which costs more than the loads it saves).
    gmp_jit_shape s;
    s.V = t.jit_vector;
    s.shared = gmp_jit_param_bytes(b) > size_t(t.jit_shared_above);
    if (s.shared && gmp_jit_shared_bytes(b, s) > MAX_STATIC_SMEM)
        s.shared = false;
    if (s.shared)
        s.constant_count = t.jit_constant_first;
    return s;
}

const std::vector<char>*
gmp_jit_cubin(const gmp_blob& b, int cc, const gmp_jit_shape& shape, std::string* why_not)
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
    if (b.H > gmp_jit_max_history(shape.threads, shape.outputs))
        return no("the history is deeper than the compiled kernel's tile");
    if (gmp_jit_shared_bytes(b, shape) > MAX_STATIC_SMEM)
        return no("the coefficients do not fit in shared memory beside the tile");
    const std::string src = gmp_jit_source(b, shape);
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

gmp_jit_kernel compile_gmp_jit(const gmp_blob& b,
                               int device,
                               const gmp_jit_shape& shape,
                               std::string* why_not)
{
    device_guard guard(device);
    const std::vector<char>* cubin =
        gmp_jit_cubin(b, compute_capability(device), shape, why_not);
    if (!cubin)
        return {};
    auto no = [&](const std::string& w) {
        cudaGetLastError(); // the failed call's error is reported here, not by the next check
        if (why_not)
            *why_not = w;
        return gmp_jit_kernel{};
    };
    cudaLibrary_t lib = nullptr;
    if (cudaLibraryLoadData(
            &lib, cubin->data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess)
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
    k.threads = shape.threads;
    k.tile = shape.threads * shape.outputs;
    // A launch of no samples proves the handle launches on this driver before any stream relies
    // on it; any failure leaves the interpreted kernel in charge.
    std::vector<char> params;
    gmp_jit_params(b, params);
    const float2* x = nullptr;
    float2* y = nullptr;
    long long zero = 0;
    void* args[] = { &x, &y, &zero, params.data() };
    int per_sm = 0;
    stream
        probe; // its own stream: the other engines' work on the device is not waited for
    if (cudaLaunchKernel(k.fn, dim3(1), dim3(k.threads), args, 0, probe.get()) !=
            cudaSuccess ||
        cudaStreamSynchronize(probe.get()) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.fn, k.threads, 0) !=
            cudaSuccess) {
        const std::string err = cudaGetErrorString(cudaGetLastError());
        release_gmp_jit(k);
        return no("the compiled kernel does not launch: " + err);
    }
    k.max_blocks = gmp_jit_waves(gmp_tuning_for(compute_capability(device)), shape) *
                   std::max(1, per_sm) *
                   device_attribute(cudaDevAttrMultiProcessorCount, device);
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
    std::memcpy(out.data() + 8 + 8 * size_t(std::max(1, b.nl)),
                b.words.data() + 4 * (b.nl + b.ne),
                8 * size_t(b.nc));
}

void launch_gmp_jit(const gmp_jit_kernel& k,
                    const std::vector<char>& params,
                    const dpd_io& io)
{
    if (io.n == 0)
        return;
    const float2* x = io.x;
    float2* y = io.y;
    long long nn = (long long)io.n;
    const int grid = capped_grid(nn, k.tile, k.max_blocks);
    void* args[] = { &x, &y, &nn, const_cast<char*>(params.data()) };
    GPUINTERP_CUDA_CHECK(
        cudaLaunchKernel(k.fn, dim3(grid), dim3(k.threads), args, 0, io.st));
    GPUINTERP_CUDA_CHECK_LAUNCH(io.st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
