# Run by cpack once the files are installed into its staging directory, before the .deb is made
# (CPACK_PRE_BUILD_SCRIPTS): each program's debug info is split off into a -dbgsym package, as
# Debian's own packages do, and the program is stripped, with a .gnu_debuglink and its build id
# naming where gdb finds the rest (/usr/lib/debug/.build-id/XX/YYYY.debug once the -dbgsym
# package is installed). The reapcheck program goes from 81 MB to under 15 MB (the install/deb
# test holds it there). CPack's own CPACK_DEBIAN_DEBUGINFO_PACKAGE does the same, but runs `file`
# on every packaged file to find the programs (cmake/deb_depends.cmake says why that costs
# minutes), when the programs are known: CPACK_REAPCHECK_INSTALLED_PROGRAMS, relative to the prefix.
if(NOT CPACK_GENERATOR STREQUAL "DEB" OR NOT CPACK_REAPCHECK_INSTALLED_PROGRAMS)
  return()
endif()
function(run)  # run(COMMAND...) → its stdout in _out; a failure stops cpack with the command
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    list(JOIN ARGN " " _command)
    message(FATAL_ERROR "${_command}: ${_err}")
  endif()
  set(_out "${_out}" PARENT_SCOPE)
endfunction()

run(dpkg --print-architecture)
set(_arch ${_out})
set(_name ${CPACK_PACKAGE_NAME}-dbgsym)
set(_dbg ${CPACK_PACKAGE_DIRECTORY}/_dbgsym)
file(REMOVE_RECURSE ${_dbg})
set(_ids "")
foreach(_program IN LISTS CPACK_REAPCHECK_INSTALLED_PROGRAMS)
  set(_staged ${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}/${_program})
  if(NOT EXISTS ${_staged})
    message(FATAL_ERROR "deb_debuginfo: ${_program} is not in ${CPACK_TEMPORARY_DIRECTORY}")
  endif()
  run(readelf -n ${_staged})
  if(NOT _out MATCHES "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)")
    message(FATAL_ERROR "deb_debuginfo: ${_staged} has no build id (link with --build-id)")
  endif()
  list(APPEND _ids ${CMAKE_MATCH_1}${CMAKE_MATCH_2})
  set(_debug ${_dbg}/usr/lib/debug/.build-id/${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.debug)
  get_filename_component(_dir ${_debug} DIRECTORY)
  file(MAKE_DIRECTORY ${_dir})
  run(objcopy --only-keep-debug --compress-debug-sections ${_staged} ${_debug})
  run(objcopy --strip-unneeded --add-gnu-debuglink=${_debug} ${_staged})
  file(CHMOD ${_debug} PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach()

list(JOIN _ids " " _ids)
set(_version ${CPACK_PACKAGE_VERSION})
file(MAKE_DIRECTORY ${_dbg}/DEBIAN)
file(WRITE ${_dbg}/DEBIAN/control "Package: ${_name}
Version: ${_version}
Architecture: ${_arch}
Maintainer: ${CPACK_PACKAGE_CONTACT}
Depends: ${CPACK_PACKAGE_NAME} (= ${_version})
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Build-Ids: ${_ids}
Description: debug symbols for ${CPACK_PACKAGE_NAME}
")
run(dpkg-deb --root-owner-group --build ${_dbg}
  ${CPACK_PACKAGE_DIRECTORY}/${_name}_${_version}_${_arch}.deb)
file(REMOVE_RECURSE ${_dbg})
