#===- test/partition/PartitionScenarios.cmake - MPI scenarios -------------===#
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Each program is built three times: plain (the reference run without any
# layer), linked with libiopoly_profile and linked with libiopoly_partition
# (linking is one of the documented ways in; the scripts also try LD_PRELOAD
# in the normal build). run-partition-test.sh drives the scenarios.
#
#===----------------------------------------------------------------------===#
set(IOPOLY_PARTITION_SCENARIOS
  profile_sequences profile_preload apply_identical apply_warm gather_manual mismatch ranks crash_recover
  iopoly_backend)

if(NOT TARGET iopoly_partition OR NOT MPIEXEC_EXECUTABLE)
  # Not a skip: MPI and its launcher are required packages (openmpi-bin).
  foreach(s ${IOPOLY_PARTITION_SCENARIOS})
    add_test(NAME partition.mpi.${s} COMMAND sh -c
      "echo 'FAIL: MPI or mpirun was not found at configure time; install libopenmpi-dev openmpi-bin (scripts/common.sh does) and reconfigure'; exit 1")
    set_tests_properties(partition.mpi.${s} PROPERTIES LABELS "partition;mpi")
  endforeach()
  return()
endif()

set(_bin ${CMAKE_CURRENT_BINARY_DIR})
function(partition_program name)
  cmake_parse_arguments(P "IOPOLY" "" "" ${ARGN})
  foreach(variant plain profile partition)
    set(t ${name}-${variant})
    add_executable(${t} ${name}.c ptest.h)
    if(NOT variant STREQUAL "plain")
      target_link_libraries(${t} PRIVATE iopoly_${variant})
    endif()
    if(P_IOPOLY)
      target_link_libraries(${t} PRIVATE iopoly)
      add_dependencies(${t} iopoly_mpiio)
    endif()
    target_link_libraries(${t} PRIVATE MPI::MPI_C)
    target_compile_options(${t} PRIVATE -Wall -Wextra)
    if(IOPOLY_SANITIZE)
      set_target_properties(${t} PROPERTIES LINKER_LANGUAGE CXX)
    endif()
    set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_bin})
  endforeach()
endfunction()

partition_program(sequences)
partition_program(workload)
partition_program(blocks)
partition_program(backend IOPOLY)
add_executable(profile_check profile_check.cpp)
target_link_libraries(profile_check PRIVATE iopoly_profile_core)
set_target_properties(profile_check PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_bin})

string(REPLACE ";" "," _sanitize "${IOPOLY_SANITIZE}")
set(_env
  PT_BIN=${_bin}
  PT_TOOLS=$<TARGET_FILE_DIR:iopoly-partition>
  PT_LIB=$<TARGET_FILE_DIR:iopoly_partition>
  PT_TMP=${IOPOLY_TEST_TMP}/partition
  PT_MPIEXEC=${MPIEXEC_EXECUTABLE}
  PT_NPFLAG=${MPIEXEC_NUMPROC_FLAG}
  "PT_PREFLAGS=${MPIEXEC_PREFLAGS}"
  "PT_SANITIZE=${_sanitize}"
  "PT_LSAN_SUPP=${PROJECT_SOURCE_DIR}/test/mpi/lsan-openmpi.supp")
foreach(s ${IOPOLY_PARTITION_SCENARIOS})
  add_test(NAME partition.mpi.${s} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-partition-test.sh ${s})
  set_tests_properties(partition.mpi.${s} PROPERTIES
    LABELS "partition;mpi"
    ENVIRONMENT "${_env}"
    TIMEOUT 240
    RESOURCE_LOCK iopoly_mpi)
endforeach()
