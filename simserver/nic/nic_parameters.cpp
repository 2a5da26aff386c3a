#include "nic_parameters.hpp"

#include "../model_options.hpp"

#include <simgrid/s4u/Host.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace s4bxi::nic {

namespace {

constexpr const char* kPrefix = "s4bxi/";

std::string text(double value)
{
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// One host's view of the options: its property when it has one (no host:
// the global values).
class Resolver {
public:
  explicit Resolver(const simgrid::s4u::Host* host) : host_(host) {}

  // The option's value on this host, within the option's range (model_options.cpp).
  double real(const char* name, double global) const
  {
    double value = global;
    if (const char* text = property(name)) {
      auto parsed = options::parse_double(text);
      if (not parsed)
        fail(name, text, "a number");
      value = *parsed;
    }
    if (auto expected = options::unacceptable(name, value))
      fail(name, text(value), *expected);
    return value;
  }

  int integer(const char* name, int global) const
  {
    int value = global;
    if (const char* text = property(name)) {
      auto parsed = options::parse_int(text);
      if (not parsed)
        fail(name, text, "an integer");
      value = *parsed;
    }
    if (auto expected = options::unacceptable(name, value))
      fail(name, std::to_string(value), *expected);
    return value;
  }

  bool boolean(const char* name, bool global) const
  {
    const char* text = property(name);
    if (text == nullptr)
      return global;
    auto parsed = options::parse_bool(text);
    if (not parsed)
      fail(name, text, "yes or no");
    return *parsed;
  }

private:
  const char* property(const char* name) const { return host_ != nullptr ? host_->get_property(name) : nullptr; }

  [[noreturn]] void fail(const char* name, const std::string& value, const std::string& expected) const
  {
    const bool overridden = property(name) != nullptr;
    throw std::invalid_argument(std::string(name) + " is " + value + (overridden ? " on host " + host_->get_name() : "") +
                                ", it must be " + expected +
                                (overridden ? "; fix the property in the platform file" : "; fix --cfg or the alias"));
  }

  const simgrid::s4u::Host* host_;
};

void check_properties(const simgrid::s4u::Host& nic_host, const simgrid::s4u::Host* cpu_host)
{
  if (const auto* properties = nic_host.get_properties())
    for (const auto& [name, value] : *properties) {
      if (name.rfind(kPrefix, 0) != 0)
        continue;
      const options::Description* option = options::find(name);
      if (option == nullptr)
        throw std::invalid_argument("host " + nic_host.get_name() + " has the property " + name +
                                    ", which is no model option; s4bxi-run --help-cfg lists them");
      if (not option->per_node)
        throw std::invalid_argument("host " + nic_host.get_name() + " has the property " + name +
                                    ", which cannot change per node; give it with --cfg=" + name + ":VALUE");
    }
  if (cpu_host == nullptr)
    return;
  if (const auto* properties = cpu_host->get_properties())
    for (const auto& [name, value] : *properties)
      if (name.rfind(kPrefix, 0) == 0)
        throw std::invalid_argument("host " + cpu_host->get_name() + " has the property " + name +
                                    "; per-node options are properties of the node's NIC host " +
                                    nic_host.get_name());
}

std::vector<NicParameters>& registry()
{
  static std::vector<NicParameters> parameters;
  return parameters;
}

NicParameters resolve(const Resolver& host)
{
  NicParameters p;
  p.model_pci_commands = host.boolean("s4bxi/model-pci-commands", options::model_pci_commands());
  p.pci_latency_s = host.real("s4bxi/pci-latency", options::pci_latency_s());
  p.pci_bandwidth_Bps = host.real("s4bxi/pci-bandwidth", options::pci_bandwidth_Bps());
  p.pci_transfer_cap_Bps = host.real("s4bxi/pci-transfer-cap", options::pci_transfer_cap_Bps());
  p.tx_delay_s = host.real("s4bxi/nic-tx-delay", options::nic_tx_delay_s());
  p.rx_delay_s = host.real("s4bxi/nic-rx-delay", options::nic_rx_delay_s());
  p.response_delay_s = host.real("s4bxi/nic-response-delay", options::nic_response_delay_s());
  p.command_queue_depth = host.integer("s4bxi/command-queue-depth", options::command_queue_depth());
  p.inline_limit_matching =
      static_cast<uint64_t>(host.integer("s4bxi/inline-limit-matching", options::inline_limit_matching()));
  p.inline_limit_plain = static_cast<uint64_t>(host.integer("s4bxi/inline-limit", options::inline_limit_plain()));
  p.pio_limit_matching =
      static_cast<uint64_t>(host.integer("s4bxi/pio-limit-matching", options::pio_limit_matching()));
  p.pio_limit_plain = static_cast<uint64_t>(host.integer("s4bxi/pio-limit", options::pio_limit_plain()));
  p.early_send_limit = static_cast<uint64_t>(host.integer("s4bxi/early-send-limit", options::early_send_limit()));
  p.tx_actors = host.integer("s4bxi/tx-actors", options::tx_actors());
  p.rx_actors = host.integer("s4bxi/rx-actors", options::rx_actors());
  p.e2e = host.boolean("s4bxi/e2e", options::e2e());
  // (A zero timeout, which would retransmit every message at once forever, is out of its range.)
  p.retry_timeout_s = host.real("s4bxi/e2e-retry-timeout", options::e2e_retry_timeout_s());
  p.max_retries = host.integer("s4bxi/e2e-max-retries", options::e2e_max_retries());
  p.quick_acks = host.boolean("s4bxi/quick-acks", options::quick_acks());
  const int max_memcpy = host.integer("s4bxi/max-memcpy", options::max_memcpy());
  if (max_memcpy >= 0)
    p.max_memcpy = static_cast<uint64_t>(max_memcpy);
  return p;
}

const NicParameters& global_parameters()
{
  static const NicParameters global = resolve(Resolver(nullptr));
  return global;
}

} // namespace

NicParameters resolve_parameters(const simgrid::s4u::Host& nic_host, const simgrid::s4u::Host* cpu_host)
{
  check_properties(nic_host, cpu_host);
  return resolve(Resolver(&nic_host));
}

const NicParameters& node_parameters(unsigned node)
{
  const auto& parameters = registry();
  return node < parameters.size() ? parameters[node] : global_parameters();
}

void register_node_parameters(unsigned node, const NicParameters& parameters)
{
  auto& all = registry();
  if (all.size() <= node)
    all.resize(node + 1, global_parameters());
  all[node] = parameters;
}

} // namespace s4bxi::nic
