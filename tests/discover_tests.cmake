cmake_minimum_required(VERSION 3.25)
# Run after each build of bankfree: asks it for its families and variants
# (`bankfree list --format csv`) and writes the ctest cases for them, so that
# a variant is named once, in its family's C code.
#   cmake -D BANKFREE=... -D SCRIPTS=... -D OUT=... -P discover_tests.cmake
execute_process(COMMAND "${BANKFREE}" list --format csv
                OUTPUT_VARIABLE csv ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bankfree list failed (${rc}): ${err}")
endif()

# The gpu tests take the GPU one at a time: each checks that its cases fit in
# the memory free when it starts, which a test beside it could take; and the
# bench smoke test's timings should not share the GPU.
set(gpu_properties "LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 RESOURCE_LOCK gpu")

# Rows after the header: family,variant,summary,types. Names are lower-case
# words (they name ctest cases); a row that is not is an error.
string(REGEX MATCHALL "\n[a-z0-9_]+,[a-z0-9_]+," rows "${csv}")
string(REGEX MATCHALL "\n[^\n]" lines "${csv}")
list(LENGTH rows nrows)
list(LENGTH lines nlines)
if(NOT nrows EQUAL nlines)
  message(FATAL_ERROR "bankfree list: a family or variant name is not [a-z0-9_]+:\n${csv}")
endif()
set(tests "# Made by discover_tests.cmake from `bankfree list --format csv`.\n")
set(families)
foreach(row IN LISTS rows)
  string(REGEX MATCH "([a-z0-9_]+),([a-z0-9_]+)," _ "${row}")
  set(family ${CMAKE_MATCH_1})
  set(variant ${CMAKE_MATCH_2})
  set(v ${family}.${variant})
  if(NOT family IN_LIST families)
    list(APPEND families ${family})
    string(APPEND tests
      # The model's CSV at the test sizes: a quoted field (a site name with a
      # comma or a quote) would split where tests/hw_check.sh reads it with awk.
      "add_test(cpu.${family}.model \"${BANKFREE}\" model ${family} --sizes test --format csv)\n"
      "set_tests_properties(cpu.${family}.model PROPERTIES LABELS cpu FAIL_REGULAR_EXPRESSION \"\\\"\")\n"
      "add_test(gpu.${family}.bench \"${BANKFREE}\" bench ${family} --sizes hw --reps 5)\n"
      "set_tests_properties(gpu.${family}.bench PROPERTIES ${gpu_properties})\n")
  endif()
  string(APPEND tests
    "add_test(gpu.${v} \"${BANKFREE}\" test ${family}/${variant})\n"
    "set_tests_properties(gpu.${v} PROPERTIES ${gpu_properties})\n"
    "add_test(hw.${v} sh \"${SCRIPTS}/hw_check.sh\" \"${BANKFREE}\" ${family}/${variant})\n"
    "set_tests_properties(hw.${v} PROPERTIES LABELS hw SKIP_RETURN_CODE 77 RUN_SERIAL ON TIMEOUT 900)\n")
  foreach(tool memcheck racecheck synccheck initcheck)
    string(APPEND tests
      "add_test(sanitize.${v}.${tool} sh \"${SCRIPTS}/sanitize.sh\" ${tool} \"${BANKFREE}\" ${family}/${variant})\n"
      "set_tests_properties(sanitize.${v}.${tool} PROPERTIES LABELS sanitize SKIP_RETURN_CODE 77 TIMEOUT 900)\n")
  endforeach()
endforeach()
if(NOT families)
  message(FATAL_ERROR "bankfree list named no variants:\n${csv}")
endif()

file(WRITE "${OUT}" "${tests}")
