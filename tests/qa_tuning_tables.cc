/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The per-architecture tuning tables of the CUDA kernel families (lib/cuda/*_tuning.h): ordered as
// tuning_row() expects, every compute capability finds a row, sm_90 finds its own, and an
// architecture older than every row gets the last (the default); the resampler's tile sizes come
// largest first. Runs without a GPU.
#include "cuda/dpd_capture_tuning.h"
#include "cuda/dpd_gram_tuning.h"
#include "cuda/dpd_ph_tuning.h"
#include "cuda/fir_tuning.h"
#include "cuda/gmp_tuning.h"
#include "cuda/resamp_tuning.h"
#include "cuda/resize_tuning.h"
#include "cuda/table_lookup_tuning.h"
#include "test_util.h"
#include <iterator>

using namespace gr::gpuinterp::gpu;

namespace {

template <typename Row, size_t N>
void check_table(const Row (&table)[N], const Row& (*row_for)(int))
{
    EXPECT_TRUE(tuning_table_ordered(table));
    EXPECT_EQ(row_for(90).sm_min, 90);
    EXPECT_EQ(&row_for(0), &table[N - 1]);
    for (int sm : { 0, 50, 75, 80, 86, 89, 90, 100, 103, 120 }) {
        const Row& r = row_for(sm);
        // The newest row at or below sm, or the default below every row.
        if (sm >= table[N - 1].sm_min)
            EXPECT_LE(r.sm_min, sm) << sm;
        for (const Row& other : table)
            if (other.sm_min <= sm)
                EXPECT_LE(other.sm_min, r.sm_min) << sm;
    }
}

} // namespace

TEST(TuningTables, Fir) { check_table(fir_tuning_table, fir_tuning_for); }
TEST(TuningTables, DpdPh) { check_table(ph_tuning_table, ph_tuning_for); }
TEST(TuningTables, Gmp) { check_table(gmp_tuning_table, gmp_tuning_for); }
TEST(TuningTables, Resize) { check_table(resize_tuning_table, resize_tuning_for); }
TEST(TuningTables, Resamp) { check_table(resamp_tuning_table, resamp_tuning_for); }
TEST(TuningTables, TableLookup)
{
    check_table(table_lookup_tuning_table, table_lookup_tuning_for);
}
TEST(TuningTables, DpdCapture) { check_table(capture_tuning_table, capture_tuning_for); }
TEST(TuningTables, DpdGram) { check_table(gram_tuning_table, gram_tuning_for); }

// The resampler's tiled kernel tries its tile sizes in order and takes the first that fits in
// shared memory, so a row lists them largest first.
TEST(TuningTables, ResampPolyTilesLargestFirst)
{
    for (const resamp_tuning& r : resamp_tuning_table) {
        EXPECT_GT(r.poly_tiles[0], 0) << r.sm_min;
        for (size_t i = 1; i < std::size(r.poly_tiles); i++) {
            EXPECT_GT(r.poly_tiles[i], 0) << r.sm_min;
            EXPECT_LT(r.poly_tiles[i], r.poly_tiles[i - 1]) << r.sm_min;
        }
    }
}

// The build constants the kernels rely on beyond performance.
TEST(TuningTables, BuildConstants)
{
    EXPECT_EQ(fir_build.outputs_per_item % 2, 1); // odd: conflict-free window loads
    EXPECT_EQ(ph_build.smem_r % 2, 1);
    EXPECT_EQ(gmp_build.threads % 32, 0);
    EXPECT_EQ(gmp_build.jit_threads % 32, 0);
    // The compiled mp/gmp kernel's deepest history is what its static tile leaves: (T + H + 2)
    // float2 + float per sample fill the 48 KiB exactly, so T = 256 x 8 leaves H = 2046.
    const int T = gmp_build.jit_threads * gmp_build.jit_outputs;
    const int H = gmp_jit_max_history(gmp_build.jit_threads, gmp_build.jit_outputs);
    EXPECT_EQ((T + H + 2) * 12, 48 * 1024);
    EXPECT_EQ(H, 2046);
    EXPECT_LT(gmp_jit_max_history(256, 16), 0); // T = 4096: the tile alone passes 48 KiB
    EXPECT_EQ(resize_build.vec_bx * resize_build.vec_by % 32, 0);
}
