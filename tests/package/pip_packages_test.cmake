cmake_minimum_required(VERSION 3.24)
# The Debian packages that cmake/pip.cmake asks a pip user to install are all in the Makefile's
# DEB_PACKAGES, which `make test` installs and builds with, and in the `sudo apt-get install`
# line of the pip install instructions (README.md, docs/python.md): a package added to one list
# and not another fails here, naming it and the list. Run by ctest as `cmake -DSOURCE_DIR=... -P
# pip_packages_test.cmake`.
file(READ ${SOURCE_DIR}/cmake/pip.cmake pip_text)
string(REGEX MATCH "set\\(_feedrate_header_packages([^)]*)\\)" _ "${pip_text}")
separate_arguments(header_packages UNIX_COMMAND "${CMAKE_MATCH_1}")
set(pip_packages "")
list(LENGTH header_packages count)
math(EXPR last "${count} - 1")
foreach(index RANGE 1 ${last} 2)
  list(GET header_packages ${index} package)
  list(APPEND pip_packages ${package})
endforeach()
string(REGEX MATCHALL "list\\(APPEND _feedrate_missing [a-z0-9.+-]+\\)" appends "${pip_text}")
foreach(append IN LISTS appends)
  string(REGEX REPLACE ".* ([a-z0-9.+-]+)\\)$" "\\1" package "${append}")
  list(APPEND pip_packages ${package})
endforeach()

# The words of every list in `file` that starts on a line `start`WORDS and goes on while a line
# ends with a backslash (`start` has no group of its own), into `out`.
function(continued_lists file start out)
  file(STRINGS ${file} lines)
  set(text "")
  set(in_list FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^${start}(.*)$")
      set(in_list TRUE)
      set(line "${CMAKE_MATCH_1}")
    elseif(NOT in_list)
      continue()
    endif()
    string(REGEX REPLACE "\\\\$" "" words "${line}")
    string(APPEND text " ${words}")
    if(words STREQUAL line)
      set(in_list FALSE)
    endif()
  endforeach()
  separate_arguments(words UNIX_COMMAND "${text}")
  set(${out} ${words} PARENT_SCOPE)
endfunction()

# Fails naming `where` and each package of pip_packages that `listed` lacks.
function(require_pip_packages listed where)
  set(missing "")
  foreach(package IN LISTS pip_packages)
    if(NOT package IN_LIST listed)
      list(APPEND missing ${package})
    endif()
  endforeach()
  if(missing)
    message(FATAL_ERROR "cmake/pip.cmake asks for packages ${where} lacks: ${missing}")
  endif()
endfunction()

# DEB_PACKAGES is BENCH_DEB_PACKAGES and TEST_DEB_PACKAGES, each written as NAME := a b \
continued_lists(${SOURCE_DIR}/Makefile "BENCH_DEB_PACKAGES :=" bench_packages)
continued_lists(${SOURCE_DIR}/Makefile "TEST_DEB_PACKAGES :=" test_packages)
set(deb_packages ${bench_packages} ${test_packages})
list(LENGTH pip_packages pip_count)
list(LENGTH deb_packages deb_count)
if(pip_count LESS 10 OR deb_count LESS 10)
  message(FATAL_ERROR "could not read the package lists: cmake/pip.cmake gave ${pip_count} "
                      "(${pip_packages}), the Makefile's DEB_PACKAGES ${deb_count}")
endif()
require_pip_packages("${deb_packages}" "the Makefile's DEB_PACKAGES")

# The instructions' `sudo apt-get install -y a b \` line; pkg-config is named there too.
foreach(doc README.md docs/python.md)
  continued_lists(${SOURCE_DIR}/${doc} "sudo apt-get install -y" apt_packages)
  require_pip_packages("${apt_packages}" "${doc}'s `sudo apt-get install` line")
endforeach()
message(STATUS "pip packages: all ${pip_count} of cmake/pip.cmake are in DEB_PACKAGES and in "
               "README.md's and docs/python.md's install lines")
