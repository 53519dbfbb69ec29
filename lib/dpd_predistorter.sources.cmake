# SPDX-License-Identifier: GPL-3.0-or-later
# Parallel-Hammerstein digital predistorter (issue 3): kernel front end, CPU and CUDA backends.
# Memory-polynomial families (mp, gmp): model description, program, CPU and CUDA backends.
list(APPEND kernel_sources kernel/dpd_predistorter.cc cpu/dpd_predistorter_cpu.cc
     kernel/dpd_model.cc kernel/gmp_program.cc cpu/gmp_predistorter_cpu.cc)
list(APPEND kernel_cuda_sources cuda/dpd_predistorter.cu cuda/gmp_kernels.cu cuda/gmp_engine.cu)
