# What `cmake --install` puts under the prefix, and the packages CPack makes from the same rules:
#   bin/optrace
#   include/optrace/*.h, include/optrace_trace.h     the device API, as a tree and as one file
#   lib/cmake/optrace/                                find_package(optrace CONFIG): optrace::device,
#                                                     OPTRACE_EXECUTABLE, OPTRACE_SINGLE_HEADER
#   lib/pkgconfig/optrace.pc                          pkg-config --cflags optrace
#   lib/optrace/python/optrace/                       the Python helper (PYTHONPATH=<prefix>/lib/optrace/python)
#   share/optrace/skills/                             the agent skills
#   share/doc/optrace/                                README and docs
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS optrace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/optrace DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${OPTRACE_SINGLE_HEADER} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(OPTRACE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/optrace)
install(TARGETS optrace_device EXPORT optraceTargets)
install(EXPORT optraceTargets NAMESPACE optrace:: DESTINATION ${OPTRACE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/optraceConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/install/optraceConfig.cmake
                              INSTALL_DESTINATION ${OPTRACE_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/install/optraceConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/install/optraceConfig.cmake ${PROJECT_BINARY_DIR}/install/optraceConfigVersion.cmake
        DESTINATION ${OPTRACE_CMAKE_DIR})

# pkg-config: relative to the .pc file's own place, so a relocated prefix (an unpacked tarball) works.
string(REGEX REPLACE "[^/]+" ".." OPTRACE_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/optrace.pc.in ${PROJECT_BINARY_DIR}/install/optrace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/install/optrace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/optrace DESTINATION ${CMAKE_INSTALL_LIBDIR}/optrace/python
        PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/skills/ DESTINATION ${CMAKE_INSTALL_DATADIR}/optrace/skills)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME optrace)
set(CPACK_PACKAGE_VENDOR "optrace")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Trace points in accelerator kernels, collection, static checks, profiler analysis")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGE_FILE_NAME "optrace-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "optrace developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
