/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/env.h"
#include "../kernel/device_query.h"
#include "cuda_common.cuh"
#include <mutex>
#include <sstream>

namespace gr {
namespace gpuinterp {
namespace gpu {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line)
{
    std::ostringstream os;
    os << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
       << ") in '" << expr << "' at " << file << ":" << line;
    throw cuda_error(os.str());
}

void library_error(
    const char* lib, int status, const char* expr, const char* file, int line)
{
    std::ostringstream os;
    os << lib << " error " << status << " in " << expr << " at " << file << ":" << line;
    throw cuda_error(os.str());
}

bool debug_sync_enabled() { return env::cuda_sync(); }

namespace {
std::mutex g_mutex;
std::string g_last_error;

// cudaGetDeviceCount reports a missing driver as cudaErrorInsufficientDriver ("CUDA driver version is
// insufficient for CUDA runtime version"), the same code as a driver that is too old. The driver
// version tells the two apart: cudaDriverGetVersion gives 0 when no driver is installed.
std::string describe(cudaError_t err)
{
    if (err == cudaErrorNoDevice)
        return "no CUDA device present";
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
        return "no NVIDIA driver found";
    if (err == cudaErrorInsufficientDriver) {
        std::ostringstream os;
        os << "the NVIDIA driver supports CUDA up to " << driver / 1000 << "."
           << driver % 1000 / 10 << ", older than this build's CUDA runtime "
           << runtime / 1000 << "." << runtime % 1000 / 10;
        return os.str();
    }
    return cudaGetErrorString(err);
}
} // namespace

bool built_with_cuda() { return true; }

int device_count()
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    std::lock_guard<std::mutex> lock(g_mutex);
    if (err != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error so later calls start clean
        g_last_error = describe(err);
        return 0;
    }
    g_last_error = n == 0 ? "no CUDA device present" : "";
    return n;
}

std::string device_name(int device)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return prop.name;
}

std::string last_error()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_last_error;
}

int multiprocessor_count(int device)
{
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) !=
        cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
