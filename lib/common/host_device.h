/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_HOST_DEVICE_H
#define INCLUDED_GPUINTERP_HOST_DEVICE_H

//! GPUINTERP_HD: a function that plain C++ and CUDA device code both call (headers shared
//! by the CPU code, the CUDA kernels and the CPU tests that emulate them).
#if defined(__CUDACC__)
#define GPUINTERP_HD __host__ __device__
#else
#define GPUINTERP_HD
#endif

#endif
