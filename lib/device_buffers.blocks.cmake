# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND block_sources cuda_buffer.cc)
