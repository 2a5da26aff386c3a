// Where each rank runs: which node (and so which NIC and CPU host).
#pragma once

#include "cluster.hpp"

#include <optional>
#include <string>
#include <vector>

namespace s4bxi::platform {

struct PlacementRequest {
  unsigned ranks = 1;
  unsigned ranks_per_node = 0; // 0: up to the node's cores
  bool block = false;          // fill a node before the next; otherwise round-robin
};

// node_of[r] for every rank, or nullopt with `error` set to one sentence when
// the ranks do not fit.
std::optional<std::vector<unsigned>> place_ranks(const std::vector<Node>& nodes, const PlacementRequest& request,
                                                 std::string& error);

} // namespace s4bxi::platform
