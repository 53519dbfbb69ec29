# SPDX-License-Identifier: GPL-3.0-or-later
# What a user or a packager gets besides the library and the Python module: documentation, examples,
# the licence, an uninstall target, and Debian packages built with CPack (scripts/package-deb.sh).
# Included before the subdirectories, so that their install rules land in the right component.
#
# CPack DEB rather than a debian/ directory: the packages come from the same install rules as
# `cmake --install`, so the two routes cannot drift apart, and a package build reuses the build tree
# (and ccache) instead of compiling everything again under dpkg-buildpackage.
#
# Components, split the way Debian ships gr-fosphor and gr-satellites:
#   runtime -> libgnuradio-gpuinterp<LIBVER>  the shared library, named after its SONAME
#   module  -> gr-gpuinterp                   Python module and bindings, GRC blocks, apps, docs, examples
#   devel   -> libgnuradio-gpuinterp-dev      headers, the .so link, CMake package files
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME module)
set(GPUINTERP_DEB_runtime libgnuradio-gpuinterp${LIBVER})
set(GPUINTERP_DEB_module gr-gpuinterp)
set(GPUINTERP_DEB_devel libgnuradio-gpuinterp-dev)

########################################################################
# Documentation, examples, licence
########################################################################
install(FILES README.md MANIFEST.md DESTINATION ${GR_PKG_DOC_DIR})
install(DIRECTORY docs/ DESTINATION ${GR_PKG_DOC_DIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY examples/ DESTINATION ${GR_PKG_DOC_DIR}/examples USE_SOURCE_PERMISSIONS
  FILES_MATCHING PATTERN "*.py" PATTERN "*.grc")
# Debian keeps the licence of each package in /usr/share/doc/<package>/copyright.
foreach(comp runtime module devel)
  install(FILES LICENSE DESTINATION ${GR_DOC_DIR}/${GPUINTERP_DEB_${comp}} RENAME copyright
    COMPONENT ${comp})
endforeach()

########################################################################
# Uninstall: removes what the last `cmake --install` of this tree wrote (install_manifest.txt)
########################################################################
configure_file(${PROJECT_SOURCE_DIR}/cmake/cmake_uninstall.cmake.in
  ${PROJECT_BINARY_DIR}/cmake_uninstall.cmake @ONLY)
add_custom_target(uninstall COMMAND ${CMAKE_COMMAND} -P ${PROJECT_BINARY_DIR}/cmake_uninstall.cmake)

########################################################################
# Debian packages: cpack -G DEB (scripts/package-deb.sh configures, builds and calls it)
########################################################################
# A package build must not rebuild or touch the tree it packs (the tests pack the tree they run from,
# while other tests import from it); `cmake --build` before packing is the script's job. Hence also
# `make install` no longer builds first: build, then install (as scripts/install.sh does).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gr-gpuinterp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "gr-gpuinterp authors <maintainers@users.noreply.a-seed-cf4e6d4d.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU (CUDA) and CPU blocks for interpolation, DPD, resampling, resize")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime module devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/gnuradio")
# Library dependencies (GNU Radio runtime and blocks, VOLK, libgomp, libstdc++) come from
# dpkg-shlibdeps, with the versions this build linked against; shlibs and the ldconfig trigger are
# generated for the library package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
foreach(comp runtime module devel)
  string(TOUPPER ${comp} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME ${GPUINTERP_DEB_${comp}})
endforeach()
# The CUDA runtime is linked statically (CUDA::cudart_static; NVIDIA's EULA lists the static cudart
# as redistributable), so no package depends on CUDA packages, which Debian only has in non-free.
# The NVIDIA driver (libcuda.so.1) is opened at run time when present; without it every block uses
# the CPU backend, hence a suggestion only.
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "GNU Radio blocks for GPU interpolation, DPD, resampling and resize - library
 The shared library of gr-gpuinterp: FIR interpolator, digital predistorter, resampler, table
 lookup and 2D resize blocks with a CUDA backend (CUDA runtime linked statically) and an
 AVX2/OpenMP CPU backend used where no NVIDIA GPU is usable.")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "libcuda1 | nvidia-driver")
set(CPACK_COMPONENT_MODULE_DESCRIPTION "GNU Radio blocks for GPU interpolation, DPD, resampling and resize
 The gr-gpuinterp module for GNU Radio 3.10: Python bindings (from gnuradio import gpuinterp),
 GNU Radio Companion blocks under [GPU Interp], the DPD estimator and PA models, the command line
 tools, documentation and example flowgraphs.")
set(CPACK_COMPONENT_MODULE_DEPENDS runtime)
execute_process(COMMAND ${PYTHON_EXECUTABLE} -c
  "import sys; print('%d.%d' % sys.version_info[:2], '%d.%d' % (sys.version_info[0], sys.version_info[1] + 1))"
  OUTPUT_VARIABLE py_versions OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(py_versions)
list(GET py_versions 0 py_this)
list(GET py_versions 1 py_next)
# The bindings are built for this Python minor version only (cpython-3xx extension module).
set(CPACK_DEBIAN_MODULE_PACKAGE_DEPENDS
  "gnuradio (>= ${Gnuradio_VERSION}), gnuradio (<< 3.11), python3 (>= ${py_this}~), python3 (<< ${py_next}), python3-numpy, python3-scipy")
set(CPACK_DEBIAN_MODULE_PACKAGE_RECOMMENDS "python3-matplotlib")
set(CPACK_COMPONENT_DEVEL_DESCRIPTION "GNU Radio blocks for GPU interpolation, DPD, resampling and resize - development files
 Headers, the libgnuradio-gpuinterp.so link and the CMake package gnuradio-gpuinterp
 (find_package(gnuradio-gpuinterp), target gnuradio::gnuradio-gpuinterp).")
set(CPACK_COMPONENT_DEVEL_DEPENDS runtime)
set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS "gnuradio-dev (>= ${Gnuradio_VERSION})")
include(CPack)
