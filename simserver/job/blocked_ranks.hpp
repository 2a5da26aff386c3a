// The part of a deadlock report that says where each rank is: ranks in the
// same state at the same place of the program are grouped ("ranks 0-511,
// 513-1023 in PtlEQWait on EQ 0x40000000 at solver.c:212 in exchange()"), so
// that the report of 1,024 ranks fits in a screen.
#pragma once

#include "../world.hpp"

#include <functional>
#include <string>

namespace s4bxi::job {

// `state(rank)` says what the rank does, in words that fit one rank as well
// as several ("in PtlEQWait on EQ ...", "exited"); for a live rank inside a Portals call, where the program made the
// call is read from its stack and added. Groups come in the order of their
// lowest rank, separated by "; ".
// Each rank's call site is also kept in RankPortals::call_site, for the report.
std::string describe_blocked_ranks(World& world, const std::function<std::string(const RankPortals&)>& state);

// While nothing is in flight in the simulation (no deadline either): whether
// `rank` waits in a call only the simulation could end (PtlEQWait, PtlCTWait,
// the PMI barrier).
bool waits_without_end(const RankPortals& rank);

// Whether `rank`, blocked polling in vain, polls inside an MPI call that
// returns only once what it waits for has come (MPI_Recv, MPI_Wait, a
// collective: Open MPI's progress loop, which never ends by itself), rather
// than in a poll loop of the program's own (MPI_Test, its own Portals polls),
// which may. Reads its stack (a ptrace attach); `call_site` gets where the
// program made the call ("in MPI_Recv() at solver.c:12 in main()").
bool polls_in_blocking_mpi_call(const RankPortals& rank, std::string& call_site);

// "0-2, 5, 7-9": sorted rank numbers as ranges.
std::string rank_ranges(const std::vector<unsigned>& sorted_ranks);

} // namespace s4bxi::job
