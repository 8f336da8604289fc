# `cmake --install build --prefix P` and `cpack -G DEB`. The layout, relative to P:
#   bin/ssim                          the command
#   libexec/ssim/ssim-supervise       found by ssim relative to itself (lib/util/layout.hpp)
#   libexec/ssim/ssim-door            the SmartRedis door (smartredis: true), beside the supervisor
#   libexec/ssim/ssim-infer           the inference service, when built (libtorch)
#   lib/libssim_client.a, include/ssim/, lib/cmake/ssim/, lib/pkgconfig/ssim-client.pc
#   lib/libssim_c.so, lib/libssim_fortran.so, include/ssim/ssim_client.h, include/ssim/fortran/
#   lib/python3.X/dist-packages/ssim/ the Python module, where /usr/bin/python3 finds it
#   share/man/man1, share/bash-completion, share/zsh/vendor-completions, share/doc/ssim
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ssim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ssim-supervise RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ssim)
# The SmartRedis door, found beside the supervisor (lib/launch task_program).
install(TARGETS ssim-door RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ssim)
if(SSIM_INFERENCE)  # the inference service, found by ssim as libexec/ssim/ssim-infer
  install(TARGETS ssim-infer RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ssim)
endif()

# The C++ data client and its CMake package (ssim::client) and pkg-config file.
set_target_properties(ssim_client PROPERTIES EXPORT_NAME client)
install(TARGETS ssim_client EXPORT ssimTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB SSIM_CLIENT_HEADERS ${CMAKE_SOURCE_DIR}/lib/client/*.hpp)
list(FILTER SSIM_CLIENT_HEADERS EXCLUDE REGEX "_internal\\.hpp$")
install(FILES ${SSIM_CLIENT_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ssim/lib/client)
install(FILES ${CMAKE_SOURCE_DIR}/configs/packaging/client.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ssim)
install(EXPORT ssimTargets NAMESPACE ssim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ssim)
configure_package_config_file(${CMAKE_SOURCE_DIR}/configs/packaging/ssimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/packaging/ssimConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ssim)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/ssimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packaging/ssimConfig.cmake ${CMAKE_BINARY_DIR}/packaging/ssimConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ssim)
# The C API and the Fortran module: shared libraries (C and Fortran programs need no C++
# flags), ssim_client.h and ssim_client.mod, with CMake targets ssim::c and ssim::fortran.
set_target_properties(ssim_c PROPERTIES EXPORT_NAME c)
install(TARGETS ssim_c EXPORT ssimTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/lib/client/c/ssim_client.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ssim)
if(SSIM_FORTRAN)
  set_target_properties(ssim_fortran PROPERTIES EXPORT_NAME fortran)
  install(TARGETS ssim_fortran EXPORT ssimTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_BINARY_DIR}/lib/client/fortran/mod/ssim_client.mod
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ssim/fortran)
endif()

# pkg-config files: ssim-client (C++), ssim-client-c, ssim-client-fortran.
# The prefix is read at install time, so `--prefix P` gives .pc files that point at P.
# (%TAGS%, not @TAGS@: install scripts run without policies, where @VAR@ is expanded.)
foreach(pc_name ssim-client ssim-client-c ssim-client-fortran)
  install(CODE "
    set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
    file(READ \"${CMAKE_SOURCE_DIR}/configs/packaging/${pc_name}.pc.in\" pc)
    string(REPLACE \"%PREFIX%\" \"\${prefix}\" pc \"\${pc}\")
    string(REPLACE \"%LIBDIR%\" \"${CMAKE_INSTALL_LIBDIR}\" pc \"\${pc}\")
    string(REPLACE \"%INCLUDEDIR%\" \"${CMAKE_INSTALL_INCLUDEDIR}\" pc \"\${pc}\")
    string(REPLACE \"%VERSION%\" \"${PROJECT_VERSION}\" pc \"\${pc}\")
    file(WRITE \"\$ENV{DESTDIR}\${prefix}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/${pc_name}.pc\" \"\${pc}\")
  ")
endforeach()

# The Python module, where /usr/bin/python3 finds it without help: Debian's python3.X
# reads /usr/lib/python3.X/dist-packages and /usr/local/lib/python3.X/dist-packages.
# (Under another prefix, ssim still gives it to every entity; other programs add it to
# PYTHONPATH.)
if(SSIM_PYTHON)
  set(SSIM_PY_INSTALL_DIR lib/python${SSIM_PY_VERSION}/dist-packages)
  install(TARGETS _ssim LIBRARY DESTINATION ${SSIM_PY_INSTALL_DIR}/ssim)
  file(GLOB SSIM_PY_FILES ${CMAKE_SOURCE_DIR}/python/ssim/*.py)
  install(FILES ${SSIM_PY_FILES} DESTINATION ${SSIM_PY_INSTALL_DIR}/ssim)
endif()

# Configuration template, documentation, man pages, shell completion.
install(FILES ${CMAKE_SOURCE_DIR}/configs/redis.conf DESTINATION ${CMAKE_INSTALL_DATADIR}/ssim)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} PATTERN "man" EXCLUDE PATTERN "dev" EXCLUDE)
file(GLOB SSIM_MAN_PAGES ${CMAKE_SOURCE_DIR}/docs/man/*.1)
install(FILES ${SSIM_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/configs/completion/ssim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME ssim)
install(FILES ${CMAKE_SOURCE_DIR}/configs/completion/_ssim DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# cpack -G DEB: one package, installing under /usr, with the Debian packages it needs.
set(CPACK_PACKAGE_NAME ssim)
set(CPACK_PACKAGE_VENDOR "the ssim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HPC and ML workflows from one YAML file: a Redis database, MPI producers and trainers")
set(CPACK_PACKAGE_CONTACT "ssim developers <ssim@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the shared libraries ssim links, from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_DEPENDS "redis-server, python3 (>= 3.11), python3-numpy, procps")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, python3-mpi4py, python3-torch, libhiredis-dev, nlohmann-json3-dev")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_STRIP_FILES ON)  # the build keeps debug info; the package does not
include(CPack)
