# Included when scikit-build-core drives the build (`pip install .`, see pyproject.toml).
#
# First, every system dependency is probed before anything else is configured, so that a
# user's machine missing several gets one message naming all the Debian packages at once
# instead of one failure per configure run. Every package named here must be in the Makefile's
# DEB_PACKAGES (ctest: package.pip_packages_in_deb_packages). pybind11 comes from pip
# (build-system.requires).
#
# Then the wheel's layout: the package feedrate/ at the platlib root and the `feedrate` command
# in the environment's bin (SKBUILD_SCRIPTS_DIR). Both link the library's objects statically
# (feedrate_internal), so the wheel carries no libfeedrate.so and needs no RPATH.
set(_feedrate_header_packages
    liburing.h liburing-dev
    turbojpeg.h libturbojpeg0-dev
    jpeglib.h libjpeg62-turbo-dev
    spng.h libspng-dev
    webp/decode.h libwebp-dev
    tiffio.h libtiff-dev
    xxhash.h libxxhash-dev
    curl/curl.h libcurl4-openssl-dev
    openssl/evp.h libssl-dev
    pugixml.hpp libpugixml-dev
    simdjson.h libsimdjson-dev
    yaml-cpp/yaml.h libyaml-cpp-dev
    oneapi/tbb.h libtbb-dev
    CLI/CLI.hpp libcli11-dev
    nlohmann/json.hpp nlohmann-json3-dev
    fmt/format.h libfmt-dev
    dlpack/dlpack.h libdlpack-dev)
set(_feedrate_missing)
find_program(_feedrate_pkg_config pkg-config NO_CACHE)
if(NOT _feedrate_pkg_config)
  list(APPEND _feedrate_missing pkg-config)
endif()
while(_feedrate_header_packages)
  list(POP_FRONT _feedrate_header_packages _header _package)
  find_path(_feedrate_header_dir ${_header} NO_CACHE)
  if(NOT _feedrate_header_dir)
    list(APPEND _feedrate_missing ${_package})
  endif()
endwhile()
set(_feedrate_python_note)
find_package(Python COMPONENTS Interpreter Development.Module QUIET)
if(NOT Python_Development.Module_FOUND)
  list(APPEND _feedrate_missing python3-dev)
  string(CONCAT _feedrate_python_note "(python3-dev has the headers of Debian's python3, not of "
                "${Python_EXECUTABLE} if that is another interpreter.)\n")
endif()
if(_feedrate_missing)
  list(JOIN _feedrate_missing " " _feedrate_missing_line)
  message(FATAL_ERROR "feedrate: missing system packages; on Debian/Ubuntu run\n"
                      "  sudo apt-get install -y ${_feedrate_missing_line}\n"
                      "${_feedrate_python_note}" "then run pip again.")
endif()

set(CMAKE_INSTALL_BINDIR "${SKBUILD_SCRIPTS_DIR}")
message(STATUS "feedrate: pip build for ${Python_EXECUTABLE}")
