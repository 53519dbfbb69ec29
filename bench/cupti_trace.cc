/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cupti_trace.h"
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#ifdef GPUINTERP_HAVE_CUPTI
#include <cupti.h>
#endif

namespace gpuinterp_bench {

std::string cupti_trace_path(const std::string& row)
{
    const char* dir = std::getenv("GPUINTERP_CUPTI_TRACE");
    if (!dir || !*dir)
        return {};
    return std::string(dir) + "/" + row + ".csv";
}

#ifdef GPUINTERP_HAVE_CUPTI
namespace {

std::mutex g_lock;
std::vector<std::string> g_rows; // CSV lines, appended as CUPTI hands buffers back

void check(CUptiResult r, const char* what)
{
    if (r != CUPTI_SUCCESS) {
        const char* s = nullptr;
        cuptiGetResultString(r, &s);
        throw std::runtime_error(std::string(what) + ": " + (s ? s : "CUPTI error"));
    }
}

void CUPTIAPI buffer_requested(uint8_t** buf, size_t* size, size_t* max_records)
{
    constexpr size_t bytes = size_t(8) << 20;
    *buf = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
    *size = bytes;
    *max_records = 0;
}

const char* copy_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "h2d";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "d2h";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "d2d";
    default:
        return "other";
    }
}

// kind,start_ns,end_ns,stream,thread,bytes,detail,correlation,name
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid)
{
    std::vector<std::string> rows;
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
        std::ostringstream o;
        switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
            o << "kernel," << k->start << ',' << k->end << ',' << k->streamId << ",,"
              << ',' << k->gridX * k->gridY * k->gridZ << ',' << k->correlationId << ','
              << (k->name ? k->name : "?");
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
            o << "memcpy," << m->start << ',' << m->end << ',' << m->streamId << ",,"
              << m->bytes << ',' << copy_kind(m->copyKind) << ',' << m->correlationId
              << ',';
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
            o << "memset," << m->start << ',' << m->end << ',' << m->streamId << ",,"
              << m->bytes << ",," << m->correlationId << ',';
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
            auto* a = reinterpret_cast<CUpti_ActivityAPI*>(rec);
            const char* name = nullptr;
            cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
            o << "api," << a->start << ',' << a->end << ",," << a->threadId << ",,,"
              << a->correlationId << ',' << (name ? name : "?");
            break;
        }
        default:
            continue;
        }
        rows.push_back(o.str());
    }
    std::free(buf);
    std::lock_guard<std::mutex> g(g_lock);
    g_rows.insert(g_rows.end(), rows.begin(), rows.end());
}

constexpr CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_RUNTIME };

} // namespace

cupti_trace::cupti_trace(std::string path) : d_path(std::move(path))
{
    if (d_path.empty())
        return;
    {
        std::lock_guard<std::mutex> g(g_lock);
        g_rows.clear();
    }
    check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
          "cuptiActivityRegisterCallbacks");
    for (auto k : kinds)
        check(cuptiActivityEnable(k), "cuptiActivityEnable");
}

cupti_trace::~cupti_trace()
{
    if (d_path.empty())
        return;
    for (auto k : kinds)
        cuptiActivityDisable(k);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::ofstream f(d_path);
    f << "kind,start_ns,end_ns,stream,thread,bytes,detail,correlation,name\n";
    std::lock_guard<std::mutex> g(g_lock);
    for (const auto& r : g_rows)
        f << r << '\n';
    g_rows.clear();
}

#else

cupti_trace::cupti_trace(std::string path) : d_path(std::move(path)) {}
cupti_trace::~cupti_trace() = default;

#endif

} // namespace gpuinterp_bench
