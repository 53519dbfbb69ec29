# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND block_sources resampler_impl.cc table_lookup_impl.cc)
