# The layers go one way: preload/ (the rank's side) and simserver/ (the server)
# both build on ipc/, which holds everything the two sides speak, and neither
# includes a file of the other nor compiles the other's sources. A shortcut
# across would tie the library preloaded into every rank to the server's code.
#
#   cmake -DROOT=<source tree> -P check_layers.cmake
#
# Prints one line per crossing and fails if there is any. An include counts
# as crossing when it names the other side's folder, when it resolves next to
# the including file into the other side, or when the file it names exists
# only on the other side (so it could only be reached through an include
# directory of the other side). CMake files cross when they name a path into
# the other side.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layers.cmake: give the tree to check with -DROOT=<dir>")
endif()
get_filename_component(ROOT "${ROOT}" REALPATH)

set(sides preload simserver)
set(other_of_preload simserver)
set(other_of_simserver preload)

# Every source and header of a folder, as paths relative to ROOT.
function(sources_of folder out)
  file(GLOB_RECURSE found RELATIVE "${ROOT}" LIST_DIRECTORIES false
       "${ROOT}/${folder}/*.c" "${ROOT}/${folder}/*.cc" "${ROOT}/${folder}/*.cpp"
       "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.hpp")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Whether some file of `files` is `name` or ends with "/name".
function(has_file files name out)
  string(REGEX REPLACE "([][+.*?()^$|\\\\])" "\\\\\\1" name_regex "${name}")
  set(result FALSE)
  foreach(file IN LISTS files)
    if(file STREQUAL name OR file MATCHES "/${name_regex}$")
      set(result TRUE)
      break()
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

sources_of(ipc ipc_files)
foreach(side IN LISTS sides)
  sources_of(${side} ${side}_files)
endforeach()

set(crossings 0)
foreach(side IN LISTS sides)
  set(other ${other_of_${side}})
  foreach(file IN LISTS ${side}_files)
    file(STRINGS "${ROOT}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]+[\">]")
    get_filename_component(dir "${ROOT}/${file}" DIRECTORY)
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*$" "\\1" name "${line}")
      set(crosses FALSE)
      if(name MATCHES "(^|/)${other}/")
        set(crosses TRUE)
      elseif(EXISTS "${dir}/${name}")
        get_filename_component(target "${dir}/${name}" REALPATH)
        if(target MATCHES "^${ROOT}/${other}/")
          set(crosses TRUE)
        endif()
      else()
        has_file("${${other}_files}" "${name}" on_other_side)
        has_file("${${side}_files};${ipc_files}" "${name}" on_this_side)
        if(on_other_side AND NOT on_this_side)
          set(crosses TRUE)
        endif()
      endif()
      if(crosses)
        message(NOTICE "${file} includes \"${name}\", a file of ${other}/: move what both sides need into ipc/")
        math(EXPR crossings "${crossings} + 1")
      endif()
    endforeach()
  endforeach()

  # The build files: a source or include directory taken from the other side.
  file(GLOB_RECURSE cmake_files RELATIVE "${ROOT}" LIST_DIRECTORIES false
       "${ROOT}/${side}/CMakeLists.txt" "${ROOT}/${side}/*.cmake")
  foreach(file IN LISTS cmake_files)
    file(STRINGS "${ROOT}/${file}" lines)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "#.*$" "" code "${line}")
      if(code MATCHES "(\\}|\\.\\.|^|[ \t\"])/*${other}/")
        string(STRIP "${code}" code)
        message(NOTICE "${file} takes a path from ${other}/ (${code}): move what both sides need into ipc/")
        math(EXPR crossings "${crossings} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

if(crossings GREATER 0)
  message(FATAL_ERROR "${crossings} include(s) or path(s) cross between preload/ and simserver/")
endif()
message(NOTICE "preload/ and simserver/ include nothing of each other")
