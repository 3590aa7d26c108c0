# reapcheck_add_gate(): a project's own reaper gated in the project's own CTest, one test per
# scenario, as gtest_discover_tests adds GoogleTest cases.
#
#   reapcheck_add_gate(NAME
#     REAPER "exec:…"               # exec:CMD, supervise:CMD, or a built-in or preset id
#     [EXPECTATIONS file]           # its known weaknesses (reapcheck run --expectations)
#     [SCENARIOS dir…]              # scenario folders (default: the built-in scenarios)
#     [LABELS label…]               # CTest labels besides `reapcheck` and NAME
#     [TIMEOUT seconds]             # each test's (default 120)
#     [REAPCHECK program]           # default: the reapcheck of this package or build
#     [ARGS arg…])                  # more options for `reapcheck run` (--grace 1000, ...)
#
# Each test is NAME/<scenario>: `reapcheck run` of that scenario against REAPER, labelled NAME
# (a command's label: its expectations file's `reaper = "NAME"`). It fails on a verdict that is
# not as EXPECTATIONS declares — a new failure, or a declared weakness that now passes — with
# the evidence in its output, which `ctest --output-junit FILE` carries; a case this machine
# cannot run is skipped. REAPER may hold generator expressions ($<TARGET_FILE:my-reaper>).
# The scenarios are the *.toml of each folder when CMake configures (a new file: reconfigure).
include_guard(GLOBAL)

function(reapcheck_add_gate name)
  cmake_parse_arguments(PARSE_ARGV 1 gate "" "REAPER;EXPECTATIONS;TIMEOUT;REAPCHECK"
    "SCENARIOS;LABELS;ARGS")
  if(gate_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "reapcheck_add_gate(${name}): unknown arguments: ${gate_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^[A-Za-z0-9_-]+$")
    message(FATAL_ERROR "reapcheck_add_gate(${name}): NAME is letters, digits, '-' and '_': "
      "it labels the reaper in every report")
  endif()
  if(NOT gate_REAPER)
    message(FATAL_ERROR "reapcheck_add_gate(${name}): REAPER \"exec:CMD\" is required")
  endif()
  if(NOT gate_TIMEOUT)
    set(gate_TIMEOUT 120)
  endif()
  if(gate_REAPCHECK)
    set(program ${gate_REAPCHECK})
  elseif(TARGET reapcheck::reapcheck)
    set(program $<TARGET_FILE:reapcheck::reapcheck>)
  elseif(TARGET reapcheck)
    set(program $<TARGET_FILE:reapcheck>)
  else()
    message(FATAL_ERROR "reapcheck_add_gate(${name}): no reapcheck program: find_package(reapcheck) "
      "an installed one, or set REAPCHECK_HARNESS ON before adding reapcheck's source")
  endif()

  # The reaper goes through a file (reapcheck run --reaper @FILE): a command may hold ';', which
  # CMake would split into a list. A command gets NAME as its label.
  set(reaper "${gate_REAPER}")
  if(reaper MATCHES "^(exec|supervise):")
    set(reaper "${name}=${reaper}")
  endif()
  set(reaper_file ${CMAKE_CURRENT_BINARY_DIR}/reapcheck-gate-${name}.reaper)
  file(GENERATE OUTPUT ${reaper_file} CONTENT "${reaper}\n")

  set(options --reaper @${reaper_file} --skip-exit-code 77 -j 1)
  if(gate_EXPECTATIONS)
    get_filename_component(expectations ${gate_EXPECTATIONS} ABSOLUTE)
    list(APPEND options --expectations ${expectations})
  endif()
  list(APPEND options ${gate_ARGS})

  # The built-in scenarios need no --scenarios: the program finds its own.
  set(folders ${gate_SCENARIOS})
  set(builtin FALSE)
  if(NOT folders)
    set(folders ${REAPCHECK_SCENARIOS_DIR})
    set(builtin TRUE)
  endif()
  set(labels reapcheck ${name} ${gate_LABELS})
  set(registered 0)
  foreach(folder IN LISTS folders)
    get_filename_component(folder ${folder} ABSOLUTE)
    set(from "")
    if(NOT builtin)
      set(from --scenarios ${folder})
    endif()
    file(GLOB files CONFIGURE_DEPENDS ${folder}/*.toml)
    if(NOT files)
      message(FATAL_ERROR "reapcheck_add_gate(${name}): no scenario files (*.toml) in ${folder}")
    endif()
    foreach(file IN LISTS files)
      get_filename_component(scenario ${file} NAME_WE)
      add_test(NAME ${name}/${scenario}
        COMMAND ${program} ${from} run --scenario ${scenario} ${options})
      set_tests_properties(${name}/${scenario} PROPERTIES
        LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT ${gate_TIMEOUT})
      math(EXPR registered "${registered} + 1")
    endforeach()
  endforeach()
  message(STATUS "reapcheck_add_gate(${name}): ${registered} scenarios against ${gate_REAPER}")
endfunction()
