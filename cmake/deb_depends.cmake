# Run by cpack (CPACK_PROJECT_CONFIG_FILE): the .deb's Depends, with the shared libraries of the
# three programs as dpkg-shlibdeps finds them. CPack's own CPACK_DEBIAN_PACKAGE_SHLIBDEPS runs
# `file` once per packaged file to find the programs — over 3,000 times for the node fixtures'
# node_modules, five minutes where a fork costs milliseconds — when the programs are known.
if(CPACK_GENERATOR STREQUAL "DEB" AND CPACK_REAPCHECK_PROGRAMS)
  set(_work ${CPACK_PACKAGE_DIRECTORY}/_shlibdeps)
  file(MAKE_DIRECTORY ${_work}/debian)
  # dpkg-shlibdeps reads debian/control of the directory it runs in.
  file(WRITE ${_work}/debian/control
    "Source: ${CPACK_PACKAGE_NAME}\n\nPackage: ${CPACK_PACKAGE_NAME}\nArchitecture: any\n")
  execute_process(COMMAND dpkg-shlibdeps -O ${CPACK_REAPCHECK_PROGRAMS}
    WORKING_DIRECTORY ${_work}
    OUTPUT_VARIABLE _shlibs ERROR_VARIABLE _err RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0 OR NOT _shlibs MATCHES "^shlibs:Depends=")
    message(FATAL_ERROR "dpkg-shlibdeps failed on ${CPACK_REAPCHECK_PROGRAMS}: ${_err}")
  endif()
  string(REGEX REPLACE "^shlibs:Depends=" "" _shlibs "${_shlibs}")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, ${_shlibs}")
  file(REMOVE_RECURSE ${_work})
endif()
