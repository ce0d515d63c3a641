#===- cmake/IOPolyPackage.cmake - The exported CMake package --------------===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# find_package(IOPoly) gives IOPoly::runtime (the library and header) and,
# when the plugin is built, IOPoly::plugin (an INTERFACE target that adds
# -fplugin=... and links the runtime): <prefix>/lib/cmake/IOPoly. Every path
# in the installed files is relative to the prefix, so it can be moved.
# Included last by the top-level CMakeLists, when every target exists.
#
#===----------------------------------------------------------------------===#
include(CMakePackageConfigHelpers)
set(IOPOLY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/IOPoly)
if(TARGET iopoly_mpi)
  set(IOPOLY_HAVE_MPI_GLUE 1)
else()
  set(IOPOLY_HAVE_MPI_GLUE 0)
endif()
install(EXPORT IOPolyTargets NAMESPACE IOPoly:: DESTINATION ${IOPOLY_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/IOPolyConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/IOPolyConfig.cmake INSTALL_DESTINATION ${IOPOLY_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/IOPolyConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/IOPolyConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/IOPolyConfigVersion.cmake DESTINATION ${IOPOLY_CMAKE_DIR})
