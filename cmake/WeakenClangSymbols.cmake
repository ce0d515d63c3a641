# cmake -DNM=... -DOBJCOPY=... -DIN=lib.a -DOUT=lib.weak.a -P WeakenClangSymbols.cmake
# Copies the archive IN to OUT with every undefined reference to a clang
# symbol made weak (see plugin/CMakeLists.txt for why).
execute_process(COMMAND ${NM} --undefined-only --format=just-symbols ${IN}
  OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${IN}")
endif()
string(REGEX MATCHALL "[^\n]*clang[^\n]*" clang_syms "${syms}")
list(REMOVE_DUPLICATES clang_syms)
string(REPLACE ";" "\n" list_text "${clang_syms}")
file(WRITE ${OUT}.syms "${list_text}\n")
execute_process(COMMAND ${OBJCOPY} --weaken-symbols=${OUT}.syms ${IN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJCOPY} failed on ${IN}")
endif()
