list(APPEND block_sources resize_2d_impl.cc)
