/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Forwarding header: the host-thread helpers live in lib/common/parallel.h (the CPU engines and the
// CUDA engines' pinned-staging copies both use them). Include that one.
#include "../common/parallel.h"
