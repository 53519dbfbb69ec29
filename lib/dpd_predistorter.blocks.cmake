# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND block_sources dpd_predistorter_cc_impl.cc)
