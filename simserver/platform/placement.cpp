#include "placement.hpp"

#include <algorithm>

namespace s4bxi::platform {

std::optional<std::vector<unsigned>> place_ranks(const std::vector<Node>& nodes, const PlacementRequest& request,
                                                 std::string& error)
{
  std::vector<unsigned> room(nodes.size());
  unsigned total = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    room[i] = static_cast<unsigned>(nodes[i].cores);
    if (request.ranks_per_node != 0)
      room[i] = std::min(room[i], request.ranks_per_node);
    total += room[i];
  }
  if (request.ranks > total) {
    error = "cannot place " + std::to_string(request.ranks) + " ranks: the platform has " +
            std::to_string(nodes.size()) + " nodes with room for " + std::to_string(total) +
            " ranks in all (cores" + (request.ranks_per_node != 0 ? ", --ppn" : std::string()) +
            "); use a larger --platform or fewer ranks";
    return std::nullopt;
  }
  std::vector<unsigned> node_of(request.ranks);
  std::vector<unsigned> used(nodes.size(), 0);
  size_t node = 0;
  for (unsigned rank = 0; rank < request.ranks; ++rank) {
    while (used[node] >= room[node]) // some node has room: checked above
      node = (node + 1) % nodes.size();
    node_of[rank] = static_cast<unsigned>(node);
    used[node]++;
    if (not request.block)
      node = (node + 1) % nodes.size();
  }
  return node_of;
}

} // namespace s4bxi::platform
