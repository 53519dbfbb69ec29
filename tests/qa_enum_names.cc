/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The one enum <-> string table (lib/common/enum_names.h) behind every option: names round-trip,
// aliases parse, and an unknown name throws std::invalid_argument naming the parameter and listing
// the names (aliases left out).
#include "common/enum_names.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gtest/gtest.h>
#include <functional>

using namespace gr::gpuinterp;
using gpuinterp_test::invalid_argument_message;

namespace {
enum class color { red, green, blue };
constexpr enum_name<color> colors[] = { { color::red, "red" },
                                        { color::green, "green" },
                                        { color::blue, "blue" },
                                        { color::red, "r" } };

} // namespace

TEST(EnumNames, TableParsesNamesAndAliasesAndListsNamesOnError)
{
    EXPECT_EQ(enum_from_string("color", "green", colors), color::green);
    EXPECT_EQ(enum_from_string("color", "r", colors), color::red);
    EXPECT_EQ(enum_to_string(color::red, colors), "red"); // the first name, not the alias
    EXPECT_EQ(invalid_argument_message([] { enum_from_string("color", "Red", colors); }),
              "color: unknown value 'Red' (expected 'red', 'green' or 'blue')");
    constexpr enum_name<color> one[] = { { color::red, "red" } };
    EXPECT_EQ(invalid_argument_message([&] { enum_from_string("c", "x", one); }),
              "c: unknown value 'x' (expected 'red')");
}

TEST(EnumNames, EveryOptionRoundTrips)
{
    for (auto b : { backend::automatic, backend::cpu, backend::cuda })
        EXPECT_EQ(backend_from_string(to_string(b)), b);
    EXPECT_EQ(backend_from_string("auto"), backend::automatic);
    EXPECT_EQ(invalid_argument_message([] { backend_from_string("gpu"); }),
              "backend: unknown value 'gpu' (expected 'automatic', 'cpu' or 'cuda')");

    using namespace gr::gpuinterp::kernel;
    for (auto m : { resamp_method::nearest,
                    resamp_method::linear,
                    resamp_method::texture,
                    resamp_method::cubic,
                    resamp_method::polyphase })
        EXPECT_EQ(method_from_string(to_string(m)), m);
    EXPECT_EQ(invalid_argument_message([] {
                  method_from_string("sinc");
              }).rfind("method: unknown value 'sinc'", 0),
              0u);

    for (auto f : { filter_mode::point, filter_mode::linear })
        EXPECT_EQ(filter_from_string(to_string(f)), f);
    for (auto a : { texemu::address::clamp, texemu::address::border })
        EXPECT_EQ(address_from_string(to_string(a)), a);
    for (auto p : { lookup_precision::exact, lookup_precision::texture })
        EXPECT_EQ(precision_from_string(to_string(p)), p);
    EXPECT_EQ(invalid_argument_message([] { address_from_string("wrap"); }),
              "address: unknown value 'wrap' (expected 'clamp' or 'border')");

    for (auto m :
         { resize_method::nearest, resize_method::bilinear, resize_method::bicubic })
        EXPECT_EQ(resize_method_from_string(to_string(m)), m);
    EXPECT_EQ(resize_method_from_string("linear"), resize_method::bilinear);
    EXPECT_EQ(resize_method_from_string("cubic"), resize_method::bicubic);
    for (auto c : { resize_coord::half_pixel,
                    resize_coord::align_corners,
                    resize_coord::asymmetric })
        EXPECT_EQ(resize_coord_from_string(to_string(c)), c);
    for (auto b : { resize_border::replicate,
                    resize_border::reflect,
                    resize_border::reflect_101,
                    resize_border::constant })
        EXPECT_EQ(resize_border_from_string(to_string(b)), b);
    EXPECT_EQ(
        invalid_argument_message([] { resize_border_from_string("wrap"); }),
        "border: unknown value 'wrap' (expected 'replicate', 'reflect', 'reflect_101' or "
        "'constant')");
}
