# Writes OUT, a C file defining bf_revision: `git describe --always --dirty`
# of the source tree SRC, or "unknown" outside a git checkout; the environment
# variable BANKFREE_REVISION, where set at build time, instead (a tree copied
# without its history, e.g. onto a lent GPU machine). Run at every build; the
# file changes (and bankfree relinks) only when the revision does.
cmake_minimum_required(VERSION 3.25)
set(revision unknown)
find_package(Git QUIET)
if(NOT "$ENV{BANKFREE_REVISION}" STREQUAL "")
  set(revision "$ENV{BANKFREE_REVISION}")
elseif(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE described RESULT_VARIABLE rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND NOT described STREQUAL "")
    set(revision "${described}")
  endif()
endif()
set(text "/* Written by tests/runner/revision.cmake at build time. */\n")
string(APPEND text "const char *const bf_revision = \"${revision}\";\n")
file(CONFIGURE OUTPUT ${OUT} CONTENT "${text}")
