/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_BACKEND_H
#define INCLUDED_GPUINTERP_KERNEL_BACKEND_H

// The backend layer shared by every kernel and block. No GNU Radio and no CUDA types here:
// the CUDA runtime stays behind lib/cuda, so this header compiles on machines without a toolkit.

#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {

//! Where a kernel runs. `automatic` picks CUDA when a usable device exists, else the CPU.
enum class backend { automatic = 0, cpu = 1, cuda = 2 };

//! Parse "automatic" | "auto" | "cpu" | "cuda" (case-sensitive); throws std::invalid_argument naming `backend`.
backend backend_from_string(const std::string& name);
std::string to_string(backend b);

//! Thrown for every failing CUDA runtime call or kernel launch; carries expression, file and line.
class cuda_error : public std::runtime_error
{
public:
    explicit cuda_error(const std::string& what) : std::runtime_error(what) {}
};

//! True when this build contains the CUDA backend.
bool built_with_cuda();
//! Number of usable CUDA devices (0 without a driver, a device or a CUDA build). Never throws.
int cuda_device_count();
/*!
 * \brief Why no CUDA device is usable, e.g. "no NVIDIA driver found" or "gr-gpuinterp was built
 * without CUDA"; empty when at least one is. Never throws.
 */
std::string cuda_unavailable_reason();
/*!
 * \brief Name of CUDA device `device`, e.g. "NVIDIA H200".
 * \details Throws std::runtime_error saying why (cuda_unavailable_reason()) when no device is usable,
 * and std::invalid_argument naming `device` when the index is out of range.
 */
std::string cuda_device_name(int device);

//! Outcome of resolving a requested backend against what this machine offers.
struct backend_choice {
    backend selected;   //!< cpu or cuda, never automatic
    std::string reason; //!< why automatic fell back to the CPU; empty otherwise
};

/*!
 * \brief Resolve a requested backend.
 * \details `cpu` always succeeds. `cuda` throws std::runtime_error when the build has no CUDA or no device
 * is usable, and std::invalid_argument (naming `device`) when the index is out of range. `automatic`
 * returns cuda when device `device` is usable, else cpu with a one-line reason for the log, e.g.
 * "no NVIDIA driver found; using the CPU backend".
 * A negative `device` always throws std::invalid_argument.
 * The environment variable GPUINTERP_BACKEND=cpu forces `automatic` onto the CPU (used by tests).
 */
backend_choice select_backend(backend requested, int device);

} // namespace gpuinterp
} // namespace gr

#endif
