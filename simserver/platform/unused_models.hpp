// SimGrid's main loop without the models of resources the server never uses.
//
// SimGrid 3.32 makes six models whatever the platform: CPUs, network, hosts,
// virtual machines, their CPUs, and disks; and at each of its scheduling
// steps it asks every model for its ended actions, and at each time step for
// its next event and to update its actions (in a 2-rank MPI ping-pong, 37
// scheduling steps and 11 time steps per simulated message). The server runs
// no virtual machine, reads or writes no disk and runs no parallel task (the
// hosts' model: an execution on one host is the CPU model's, a communication
// the network model's), so two thirds of that work were for nothing: 11% of
// the server's instructions per message of that ping-pong (callgrind). Those
// models are left out of the engine's list once the platform is built; the
// engine still owns them.
#pragma once

namespace s4bxi::platform {

// Call once the platform is built and before the simulation runs. Returns how
// many models were left out.
int leave_out_unused_models();

} // namespace s4bxi::platform
