// The ranks that share a rank's simulated node, as s4bxi-simserver puts them
// in its environment (S4BXI_NODE_RANKS, see simserver/job/rank_processes.cpp):
// decimal ranks separated by commas, in increasing order, the rank itself
// included ("0,2").
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace s4bxi::pmi_client {

inline constexpr const char* kEnvNodeRanks = "S4BXI_NODE_RANKS";

// nullopt unless `text` is such a list, every rank in [0, size), holding `self`.
inline std::optional<std::vector<int>> parse_node_ranks(std::string_view text, int self, int size)
{
  std::vector<int> ranks;
  bool has_self = false;
  while (true) {
    int rank = -1;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
    if (error != std::errc() or end == text.data() or rank < 0 or rank >= size or
        (not ranks.empty() and rank <= ranks.back()))
      return std::nullopt;
    ranks.push_back(rank);
    has_self = has_self or rank == self;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    if (text.empty())
      break;
    if (text.front() != ',')
      return std::nullopt;
    text.remove_prefix(1);
  }
  if (not has_self)
    return std::nullopt;
  return ranks;
}

} // namespace s4bxi::pmi_client
