# Installs feedrate::feedrate with an exported CMake package, so a training project can do
#   find_package(feedrate REQUIRED)
#   target_link_libraries(train PRIVATE feedrate::feedrate)
# which puts ${includedir} on its include path (#include <feedrate/loader.h>) and links
# libfeedrate.so, whose exports are the public API.
include(CMakePackageConfigHelpers)

install(TARGETS feedrate EXPORT feedrateTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT feedrateTargets NAMESPACE feedrate::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/feedrate)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/feedrateConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/feedrateConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/feedrate)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/feedrateConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/feedrateConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/feedrateConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/feedrate)
