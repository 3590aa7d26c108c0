# Installing reapcheck: `cmake --install build --prefix P` lays out
#   P/bin/reapcheck
#   P/libexec/reapcheck/reapcheck-bystander, reapcheck-c-member   (helpers, off PATH)
#   P/share/reapcheck/scenarios/ (with expectations/), P/share/reapcheck/fixtures/
#   P/share/bash-completion/completions/reapcheck
#   P/include/reaper/{reaper.h,agent.h,os/unique_fd.h}, P/lib/libreapcheck_reaper.a,
#   P/lib/cmake/reapcheck/ (find_package(reapcheck) → reapcheck::reaper)
# The binary finds the rest relative to itself (harness/support/layout.h), so P can be anywhere
# and moved. `cpack -G DEB` in the build directory makes a Debian package of the same.
include(CMakePackageConfigHelpers)

# The library: its public headers are reaper.h, agent.h and what they include.
install(TARGETS reapcheck_reaper EXPORT reapcheckTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES reaper/reaper.h reaper/agent.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reaper)
install(FILES reaper/os/unique_fd.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/reaper/os)
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/reapcheck)
install(EXPORT reapcheckTargets NAMESPACE reapcheck:: DESTINATION ${cmake_dir})
# reapcheck_add_gate() (cmake/ReapcheckGate.cmake) finds the installed scenarios here.
set(REAPCHECK_SCENARIOS_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/reapcheck/scenarios)
configure_package_config_file(cmake/reapcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/reapcheckConfig.cmake INSTALL_DESTINATION ${cmake_dir}
  PATH_VARS REAPCHECK_SCENARIOS_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/reapcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/reapcheckConfig.cmake
  ${PROJECT_BINARY_DIR}/reapcheckConfigVersion.cmake cmake/ReapcheckGate.cmake
  DESTINATION ${cmake_dir})

if(REAPCHECK_HARNESS)
  # reapcheck::reapcheck, the program reapcheck_add_gate() runs.
  install(TARGETS reapcheck EXPORT reapcheckTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(TARGETS reapcheck-bystander reapcheck-c-member
    RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/reapcheck)
  install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/reapcheck/scenarios)
  # The node packages' node_modules (npm ci by scripts/setup.sh) go too: the scenarios run them,
  # with their modes (npm run dev execs node_modules/.bin/vite, which must stay executable).
  install(DIRECTORY fixtures/ DESTINATION ${CMAKE_INSTALL_DATADIR}/reapcheck/fixtures
    USE_SOURCE_PERMISSIONS PATTERN c-member EXCLUDE)
  install(FILES ${PROJECT_BINARY_DIR}/share/bash-completion/completions/reapcheck
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  # The README links into docs/: beside it, its links work in the installed copy too.
  install(FILES LICENSE CHANGELOG.md README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
endif()

# cpack -G DEB: a package for Debian 12 that installs under /usr.
set(CPACK_PACKAGE_NAME reapcheck)
set(CPACK_PACKAGE_VENDOR "reapcheck")
set(CPACK_PACKAGE_CONTACT "reapcheck maintainers <reapcheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Runs process reapers against the ways a process tree escapes them, in sandboxes")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries, found by dpkg-shlibdeps in the programs (cmake/deb_depends.cmake).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
if(REAPCHECK_HARNESS)
  set(CPACK_REAPCHECK_PROGRAMS ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/reapcheck
    ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/reapcheck-bystander
    ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/reapcheck-c-member)
  set(CPACK_REAPCHECK_INSTALLED_PROGRAMS ${CMAKE_INSTALL_BINDIR}/reapcheck
    ${CMAKE_INSTALL_LIBEXECDIR}/reapcheck/reapcheck-bystander
    ${CMAKE_INSTALL_LIBEXECDIR}/reapcheck/reapcheck-c-member)
endif()
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/deb_depends.cmake)
# The programs stripped, their debug info in reapcheck-dbgsym_VERSION_ARCH.deb beside the .deb
# (static libraries are never stripped).
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/deb_debuginfo.cmake)
# What the harness runs, what the node scenarios and the presets' reapers need: from
# packaging/debian-packages (cmake/debian_packages.cmake).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${REAPCHECK_DEB_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${REAPCHECK_DEB_RECOMMENDS}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "${REAPCHECK_DEB_SUGGESTS}")
include(CPack)
