# IOPOLY_SANITIZE: "" (none), "address;undefined" or "thread".
set(IOPOLY_SANITIZE "" CACHE STRING "Sanitizers for the runtime and tests: address;undefined or thread")
if(IOPOLY_SANITIZE)
  string(REPLACE ";" "," _iopoly_san "${IOPOLY_SANITIZE}")
  set(IOPOLY_SANITIZE_FLAGS -fsanitize=${_iopoly_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  message(STATUS "iopoly: building with -fsanitize=${_iopoly_san}")
  add_compile_options(${IOPOLY_SANITIZE_FLAGS})
  # C programs link the C++ runtime library (libiopoly), so they need the
  # sanitizers' C++ parts too (UBSan's vptr check).
  add_link_options(${IOPOLY_SANITIZE_FLAGS} -fsanitize-link-c++-runtime -lstdc++)
endif()
