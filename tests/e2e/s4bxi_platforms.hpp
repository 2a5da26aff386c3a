// SimGrid XML platforms written the way S4BXI's users write theirs: a host X
// and its NIC host X_NIC per node, joined by a PCIe route, the NICs wired to
// the network (routers, or a SimGrid cluster of NIC hosts). The tests that
// load user platforms (every routing kind, bad values) generate them here.
#pragma once

#include <string>

namespace e2e {

// Attribute values of a star platform, as text (so that tests can put bad ones).
struct StarValues {
    std::string routing = "Floyd"; // Full, Floyd, Dijkstra, DijkstraCache
    std::string cores = "4";
    std::string bxi_bandwidth = "12.5GBps";
    std::string bxi_latency = "500ns";
    int nodes = 3;
};

// One zone: every node's CPU and NIC hosts, the PCIe links between them, and
// one router every NIC is wired to (S4BXI's examples/platform.xml). Full
// routing has no path search: the routes between NICs are spelled out.
inline std::string s4bxi_star_platform(const StarValues &v = {})
{
    std::string xml = "<?xml version='1.0'?>\n"
                      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                      "<platform version=\"4.1\">\n"
                      "  <zone id=\"AS0\" routing=\"" + v.routing + "\">\n";
    for (int i = 0; i < v.nodes; ++i) {
        const std::string n = "machine" + std::to_string(i);
        xml += "    <host id=\"" + n + "\" speed=\"10Gf\" core=\"" + v.cores + "\"/>\n"
               "    <host id=\"" + n + "_NIC\" speed=\"1Gf\"/>\n";
    }
    xml += "    <router id=\"switch0\"/>\n";
    for (int i = 0; i < v.nodes; ++i) {
        const std::string n = "machine" + std::to_string(i);
        xml += "    <link id=\"" + n + "_PCI_FAT\" bandwidth=\"12.5GBps\" latency=\"0ns\" sharing_policy=\"FATPIPE\"/>\n"
               "    <link id=\"" + n + "_PCI\" bandwidth=\"15.75GBps\" latency=\"250ns\"/>\n"
               "    <link id=\"" + n + "_BXI\" bandwidth=\"" + v.bxi_bandwidth + "\" latency=\"" + v.bxi_latency +
               "\"/>\n";
    }
    for (int i = 0; i < v.nodes; ++i) {
        const std::string n = "machine" + std::to_string(i);
        xml += "    <route src=\"" + n + "\" dst=\"" + n + "_NIC\"><link_ctn id=\"" + n +
               "_PCI_FAT\"/><link_ctn id=\"" + n + "_PCI\"/></route>\n";
        if (v.routing != "Full") {
            xml += "    <route src=\"" + n + "_NIC\" dst=\"switch0\"><link_ctn id=\"" + n + "_BXI\"/></route>\n";
            continue;
        }
        for (int j = i + 1; j < v.nodes; ++j) {
            const std::string m = "machine" + std::to_string(j);
            xml += "    <route src=\"" + n + "_NIC\" dst=\"" + m + "_NIC\"><link_ctn id=\"" + n +
                   "_BXI\"/><link_ctn id=\"" + m + "_BXI\"/></route>\n";
        }
    }
    xml += "  </zone>\n</platform>\n";
    return xml;
}

// A SimGrid <cluster> of NIC hosts (node0_NIC, node1_NIC, ...) is the BXI
// network, with the topology the cluster's attributes give (none: a flat
// cluster, topology="FAT_TREE" topo_parameters="...", TORUS, DRAGONFLY); each
// CPU host is in a zone of its own, joined to its NIC by a zone route whose
// gateways are the CPU and the NIC and whose links are the PCIe ones.
inline std::string s4bxi_cluster_platform(const std::string &cluster_attributes, int nodes)
{
    const std::string last = std::to_string(nodes - 1);
    std::string xml = "<?xml version='1.0'?>\n"
                      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                      "<platform version=\"4.1\">\n"
                      "  <zone id=\"machine\" routing=\"Full\">\n"
                      "    <cluster id=\"bxi\" prefix=\"node\" suffix=\"_NIC\" radical=\"0-" + last +
                      "\" speed=\"1Gf\" bw=\"12.5GBps\" lat=\"500ns\" " + cluster_attributes + "/>\n";
    for (int i = 0; i < nodes; ++i) {
        const std::string n = "node" + std::to_string(i);
        xml += "    <zone id=\"" + n + "_zone\" routing=\"Full\">\n"
               "      <host id=\"" + n + "\" speed=\"10Gf\" core=\"4\"/>\n"
               "    </zone>\n";
    }
    for (int i = 0; i < nodes; ++i) {
        const std::string n = "node" + std::to_string(i);
        xml += "    <link id=\"" + n + "_PCI_FAT\" bandwidth=\"12.5GBps\" latency=\"0ns\" sharing_policy=\"FATPIPE\"/>\n"
               "    <link id=\"" + n + "_PCI\" bandwidth=\"15.75GBps\" latency=\"250ns\"/>\n";
    }
    for (int i = 0; i < nodes; ++i) {
        const std::string n = "node" + std::to_string(i);
        xml += "    <zoneRoute src=\"" + n + "_zone\" dst=\"bxi\" gw_src=\"" + n + "\" gw_dst=\"" + n +
               "_NIC\"><link_ctn id=\"" + n + "_PCI_FAT\"/><link_ctn id=\"" + n + "_PCI\"/></zoneRoute>\n";
    }
    xml += "  </zone>\n</platform>\n";
    return xml;
}

} // namespace e2e
