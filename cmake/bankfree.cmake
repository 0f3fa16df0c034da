# How bankfree makes its targets: the options every one of them gets, and the
# one call that adds a family (docs/adding-a-family.md).

# bankfree_use_options(TARGET [ARCHITECTURES A...]): bankfree_options
# (warnings, -lineinfo, _POSIX_C_SOURCE), C11 without extensions, CUDA 17,
# the shared CUDA runtime, and the architectures chosen at configure time
# (bankfree_archs) or the ones given (90a-real for Hopper-only code). Never
# part of what a consumer of bankfree::kernels sees.
function(bankfree_use_options target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ARCHITECTURES")
  set(archs "${bankfree_archs}")
  if(arg_ARCHITECTURES)
    set(archs "${arg_ARCHITECTURES}")
  endif()
  # The options' usage requirements, not a link to them: that would be exported.
  target_compile_options(${target} PRIVATE
    $<TARGET_PROPERTY:bankfree_options,INTERFACE_COMPILE_OPTIONS>)
  target_compile_definitions(${target} PRIVATE
    $<TARGET_PROPERTY:bankfree_options,INTERFACE_COMPILE_DEFINITIONS>)
  get_target_property(type ${target} TYPE)
  if(BANKFREE_SANITIZE_HOST AND type STREQUAL "EXECUTABLE")
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  set_target_properties(${target} PROPERTIES
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
    CUDA_ARCHITECTURES "${archs}" CUDA_RUNTIME_LIBRARY Shared)
endfunction()

# bankfree_add_sm90a(INTO OBJECTS src...): the sources compiled for sm_90a
# alone, in the object library OBJECTS, and linked into the target INTO (the
# rest of INTO keeps the architectures chosen at configure time).
function(bankfree_add_sm90a into objects)
  add_library(${objects} OBJECT ${ARGN})
  target_include_directories(${objects} PRIVATE ${PROJECT_SOURCE_DIR})
  bankfree_use_options(${objects} ARCHITECTURES 90a-real)
  target_sources(${into} PRIVATE $<TARGET_OBJECTS:${objects}>)
  # ptxas reports wgmma it had to serialize (C7514) as info, which
  # -Werror=all-warnings does not see; under BANKFREE_WERROR it fails.
  if(BANKFREE_WERROR)
    set_property(TARGET ${objects} PROPERTY CUDA_COMPILER_LAUNCHER
                 sh ${PROJECT_SOURCE_DIR}/tools/no_serialized_wgmma.sh)
  endif()
endfunction()

# bankfree_find_cutensor(TARGET): cuTENSOR, optional (never needed to build
# or test): where its header and library are found, TARGET compiles with
# BANKFREE_CUTENSOR=1 and links it (transpose then times cutensorPermute).
# Looked for under -DCUTENSOR_ROOT=..., $CUTENSOR_ROOT, python3's
# site-packages (the cutensor-cu13 wheel: cutensor/include, cutensor/lib),
# then the system's paths. -DBANKFREE_CUTENSOR=OFF turns the search off.
function(bankfree_find_cutensor target)
  option(BANKFREE_CUTENSOR "Time cuTENSOR beside the vendor where it is found" ON)
  if(NOT BANKFREE_CUTENSOR)
    return()
  endif()
  set(roots ${CUTENSOR_ROOT} $ENV{CUTENSOR_ROOT})
  execute_process(COMMAND python3 -c
                  "import sysconfig; p = sysconfig.get_paths(); print(p['purelib']); print(p['platlib'])"
                  OUTPUT_VARIABLE sites RESULT_VARIABLE rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" sites "${sites}")
    foreach(site IN LISTS sites)
      if(IS_DIRECTORY "${site}/cutensor")
        list(APPEND roots "${site}/cutensor")
      endif()
    endforeach()
  endif()
  find_path(BANKFREE_CUTENSOR_INCLUDE_DIR cutensor.h HINTS ${roots} PATH_SUFFIXES include)
  find_library(BANKFREE_CUTENSOR_LIBRARY NAMES cutensor libcutensor.so.2 HINTS ${roots}
               PATH_SUFFIXES lib lib64)
  set(major 0) # cuTENSOR 2's API (plans, plan preferences); 1.x had another
  if(BANKFREE_CUTENSOR_INCLUDE_DIR)
    file(STRINGS "${BANKFREE_CUTENSOR_INCLUDE_DIR}/cutensor.h" line
         REGEX "^#define CUTENSOR_MAJOR [0-9]+")
    if(line MATCHES "CUTENSOR_MAJOR ([0-9]+)")
      set(major ${CMAKE_MATCH_1})
    endif()
  endif()
  if(BANKFREE_CUTENSOR_INCLUDE_DIR AND BANKFREE_CUTENSOR_LIBRARY AND major GREATER_EQUAL 2)
    message(STATUS "bankfree: cuTENSOR ${BANKFREE_CUTENSOR_LIBRARY}: transpose times cutensorPermute")
    target_include_directories(${target} SYSTEM PRIVATE ${BANKFREE_CUTENSOR_INCLUDE_DIR})
    target_link_libraries(${target} PRIVATE ${BANKFREE_CUTENSOR_LIBRARY})
    target_compile_definitions(${target} PRIVATE BANKFREE_CUTENSOR=1)
  else()
    message(STATUS "bankfree: cuTENSOR 2 not found (optional; -DCUTENSOR_ROOT=...)")
  endif()
endfunction()

# bankfree_add_family(NAME
#   KERNELS src...        the kernels: into bankfree_kernels (the library)
#   [SM90A src...]        Hopper-only kernels (sm_90a), built where the
#   [ABSENT src...]         architectures include 90; else ABSENT in their place
#   HOST src...           the model and the CPU reference: into bankfree_host
#   SUITE src...          the runner's glue and comparators: into bankfree_suites
#   [SUITE_SM90A src...]  sm_90a comparators (BANKFREE_SM90A is defined for the
#                           suites where they are built)
#   [PROBES src...]       probes, an executable each (target `probes`)
#   [PROBES_SM90A src...] sm_90a probes)
# called from NAME/CMakeLists.txt. It registers the family for the runner
# (the global property BANKFREE_FAMILIES, in call order), installs NAME/NAME.h,
# and adds its CPU tests: cpu.NAME.host (NAME/test_NAME.c, linked to
# bankfree_host) and cpu.NAME.copy (the README's "Copy this" files compiled on
# their own). Its gpu, sanitize and hw tests come from the variants the
# runner lists (tests/discover_tests.cmake).
function(bankfree_add_family name)
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
    "" "KERNELS;SM90A;ABSENT;HOST;SUITE;SUITE_SM90A;PROBES;PROBES_SM90A")
  set_property(GLOBAL APPEND PROPERTY BANKFREE_FAMILIES ${name})
  target_sources(bankfree_kernels PRIVATE ${arg_KERNELS})
  if(arg_SM90A AND BANKFREE_SM90A)
    bankfree_add_sm90a(bankfree_kernels bankfree_${name}_sm90a ${arg_SM90A})
  elseif(arg_SM90A)
    target_sources(bankfree_kernels PRIVATE ${arg_ABSENT})
  endif()
  if(BANKFREE_INSTALL)
    install(FILES ${name}.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bankfree/${name})
  endif()
  if(NOT BANKFREE_BUILD_TESTS)
    return()
  endif()

  target_sources(bankfree_host PRIVATE ${arg_HOST})
  target_sources(bankfree_suites PRIVATE ${arg_SUITE})
  if(arg_SUITE_SM90A AND BANKFREE_SM90A)
    bankfree_add_sm90a(bankfree_suites bankfree_${name}_suite_sm90a ${arg_SUITE_SM90A})
    target_compile_definitions(bankfree_suites PRIVATE BANKFREE_SM90A=1)
  endif()

  foreach(kind IN ITEMS PROBES PROBES_SM90A)
    if(kind STREQUAL "PROBES_SM90A" AND NOT BANKFREE_SM90A)
      continue()
    endif()
    foreach(source IN LISTS arg_${kind})
      get_filename_component(probe ${source} NAME_WE)
      set(probe ${name}_probe_${probe})
      add_executable(${probe} EXCLUDE_FROM_ALL ${source})
      target_include_directories(${probe} PRIVATE ${PROJECT_SOURCE_DIR})
      if(kind STREQUAL "PROBES_SM90A")
        bankfree_use_options(${probe} ARCHITECTURES 90a-real) # stands alone
      else()
        target_link_libraries(${probe} PRIVATE bankfree_suites)
        bankfree_use_options(${probe})
      endif()
      add_dependencies(probes ${probe})
    endforeach()
  endforeach()

  add_executable(test_${name} test_${name}.c)
  target_link_libraries(test_${name} PRIVATE bankfree_host)
  bankfree_use_options(test_${name})
  add_test(NAME cpu.${name}.host COMMAND test_${name})
  add_test(NAME cpu.${name}.copy
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/copy_check.sh ${CMAKE_CUDA_COMPILER}
                   ${PROJECT_SOURCE_DIR} ${name} ${CMAKE_C_COMPILER})
  set_tests_properties(cpu.${name}.host cpu.${name}.copy PROPERTIES LABELS cpu)
endfunction()
