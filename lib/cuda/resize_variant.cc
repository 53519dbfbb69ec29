/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resize variant override and the record of the last launched variant (test and
// benchmark hooks). Plain C++, compiled in every build, so the CPU test suite links.
#include "bench_hooks.h"
#include "resize_launch.h"
#include <atomic>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {
namespace {
// Test hook state: one override for the whole process, like an environment setting.
std::atomic<int> g_variant_override{ int(resize_variant::automatic) };
std::atomic<int> g_last_variant{ int(resize_variant::automatic) };
} // namespace

void set_resize_variant_override(int variant)
{
    if (variant < -1 || variant >= resize_variant_count)
        throw std::invalid_argument("variant: " + std::to_string(variant) +
                                    " is not a resize kernel variant");
    g_variant_override.store(variant);
}
int resize_variant_override() { return g_variant_override.load(); }
int last_resize_variant() { return g_last_variant.load(); }
void note_resize_variant(int variant) { g_last_variant.store(variant); }
} // namespace gpu

} // namespace gpuinterp
} // namespace gr
