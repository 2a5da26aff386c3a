# Inside simserver/, the includes go one way: down the floors below. The NIC
# model carries messages and knows none of the Portals rules it applies; the
# Portals semantics (what a message does at its target and at its initiator,
# the lists, the events, the calls) stand above it and drive it; the PMI
# service and the rank proxy stand above both. job/ holds two floors: the rank
# processes, below everything that simulates, and the job's control over the
# ranks (the end of the run and its report, blocked and parked ranks), above
# the NIC whose statistics it reports and below the Portals calls, whose
# holders (the poll sentinel, the outside holder, the abort watch) use it.
# World (world.hpp), which everything shares, holds some objects of each
# folder: those headers stand below it, whatever their folder, each named
# here. So a folder's files are on one floor, but for job/ and what World
# holds.
#
#   cmake -DROOT=<source tree> -P check_floors.cmake
#
# Prints one line per include that goes up a floor, or per file that has no
# floor, and fails if there is any. Only quoted includes that name a file of
# simserver/ count (next to the including file, or from simserver/, its
# include directory); ipc/ and the system are below every floor.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_floors.cmake: give the tree to check with -DROOT=<dir>")
endif()
get_filename_component(ROOT "${ROOT}" REALPATH)
set(server "${ROOT}/simserver")

# The floors, from the ground up. A file stands on the floor of the first rule
# its path (relative to simserver/) matches: the named files come before the
# folder they are in. A rule names its floor by its index in `floors`, from 0.
set(floors
    "ground: options, the command line, logs, the trace, the platform, the engine's clock, the actors' sleeps"
    "the rank processes (job/)"
    "what World holds"
    "World (world.hpp)"
    "the NIC model (nic/)"
    "the job's control over the ranks"
    "Portals semantics and calls (portals/)"
    "the PMI service (pmi/)"
    "the rank proxy"
    "main")
set(rules
    # The job's control: blocked and parked ranks, the end of the run and its
    # report, which reads the NICs' statistics. The Portals calls' holders
    # (portals/poll_sentinel, portals/outside_holder) use it.
    "^job/(blocked_ranks|job_control|parked_ranks)\\.(c|h)pp$" 5
    # What World holds of the NIC (the per-rank counts the NIC keeps) and of
    # Portals (the objects, their handles and the memory behind them).
    "^nic/(landing_bounds|memory_work)\\.hpp$" 2
    "^portals/(objects|handles|slot_table)\\.hpp$" 2
    "^portals/memory_region\\.(c|h)pp$" 2
    "^world\\.hpp$" 3
    "^(model_options|log_settings|launch_options|command_line|engine_clock|actor_sleep|change_signal)\\.(c|h)pp$" 0
    "^trace/" 0
    "^platform/" 0
    "^job/" 1
    "^nic/" 4
    "^portals/" 6
    "^pmi/" 7
    "^rank_proxy\\.(c|h)pp$" 8
    "^main\\.cpp$" 9)

# The floor of `file` (relative to simserver/), or -1.
function(floor_of file out)
  set(result -1)
  set(remaining ${rules})
  while(remaining)
    list(POP_FRONT remaining pattern floor)
    if(file MATCHES "${pattern}")
      set(result ${floor})
      break()
    endif()
  endwhile()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE "${server}" LIST_DIRECTORIES false "${server}/*.cpp" "${server}/*.hpp")
set(violations 0)
foreach(file IN LISTS files)
  floor_of("${file}" floor)
  if(floor LESS 0)
    message(NOTICE "simserver/${file} stands on no floor: give it one in tests/layers/check_floors.cmake")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(STRINGS "${server}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
  get_filename_component(dir "${server}/${file}" DIRECTORY)
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" name "${line}")
    if(EXISTS "${dir}/${name}")
      get_filename_component(target "${dir}/${name}" REALPATH)
    elseif(EXISTS "${server}/${name}")
      get_filename_component(target "${server}/${name}" REALPATH)
    else()
      continue() # ipc/ or the system
    endif()
    string(FIND "${target}" "${server}/" at)
    if(NOT at EQUAL 0)
      continue()
    endif()
    file(RELATIVE_PATH included "${server}" "${target}")
    floor_of("${included}" included_floor)
    if(included_floor GREATER floor)
      list(GET floors ${floor} here)
      list(GET floors ${included_floor} there)
      message(NOTICE "simserver/${file} (${here}) includes \"${name}\" (${there}): an include up a floor")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) up a floor, or file(s) on no floor, in simserver/")
endif()
message(NOTICE "simserver/: every include goes down the floors")
