/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/env.h"
#include "cuda_common.cuh"
#include "device_query.h"
#include <sstream>

namespace gr {
namespace gpuinterp {
namespace gpu {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line)
{
    std::ostringstream os;
    os << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in '"
       << expr << "' at " << file << ":" << line;
    throw cuda_error(os.str());
}

bool debug_sync_enabled()
{
    return env::cuda_sync();
}

namespace {
std::string g_last_error = "";
}

bool built_with_cuda() { return true; }

int device_count()
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error so later calls start clean
        g_last_error = cudaGetErrorString(err);
        return 0;
    }
    if (n == 0)
        g_last_error = "no CUDA device present";
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

std::string last_error() { return g_last_error; }

int multiprocessor_count(int device)
{
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
