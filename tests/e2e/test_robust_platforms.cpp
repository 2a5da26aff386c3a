// Platform files written for S4BXI: every routing kind of SimGrid a valid
// platform may use (Full, Floyd, Dijkstra, DijkstraCache, and the Cluster,
// Fat-Tree, Dragonfly and Torus clusters) runs the pingpong example on 2 ranks.
#include "e2e_test.hpp"
#include "s4bxi_platforms.hpp"

#include <sstream>

namespace e2e {
namespace {

class RobustPlatforms : public E2ETest {
protected:
    // pingpong between the first two nodes of the platform `xml`.
    void expect_pingpong_runs_on(const std::string &xml)
    {
        TempDir dir;
        const std::string file = dir.file("platform.xml");
        write_file(file, xml);
        auto r = run({"-n", "2", "--platform", file, "--cfg=s4bxi/compute:none", example("pingpong"), "-m", "4096",
                      "-i", "3"});
        expect_success(r, 2);
        bool has_row = false;
        for (const auto &line : lines(r.out)) {
            long size = 0;
            has_row = has_row || (std::istringstream(line) >> size && size == 4096);
        }
        EXPECT_TRUE(has_row) << "no pingpong row for 4096 B\n" << describe(r) << "\nplatform:\n" << xml;
    }
};

TEST_F(RobustPlatforms, StarWithFullRouting)
{
    expect_pingpong_runs_on(s4bxi_star_platform({.routing = "Full"}));
}

TEST_F(RobustPlatforms, StarWithFloydRouting)
{
    expect_pingpong_runs_on(s4bxi_star_platform({.routing = "Floyd"}));
}

// S4BXI's users' usual choice; it used to abort at start-up in SimGrid
// ("dynar is not that long. You asked -1").
TEST_F(RobustPlatforms, StarWithDijkstraRouting)
{
    expect_pingpong_runs_on(s4bxi_star_platform({.routing = "Dijkstra"}));
}

TEST_F(RobustPlatforms, StarWithDijkstraCacheRouting)
{
    expect_pingpong_runs_on(s4bxi_star_platform({.routing = "DijkstraCache"}));
}

// S4BXI's star platform has one PCIe link per node, shared by both ways (not
// split-duplex): the NIC's DMA writes to host memory share it with the
// commands and the DMA reads, so they stay communications of the network
// model (s4bxi/lone-dma-writes leaves out only writes alone on their links;
// on the default fat tree it does: e2e.Mpi.LoneDmaWritesChangeNothingButTheRounds).
TEST_F(RobustPlatforms, DmaWritesThatShareTheirLinkStayInTheNetworkModel)
{
    TempDir dir;
    const std::string file = dir.file("platform.xml");
    write_file(file, s4bxi_star_platform({.routing = "Floyd"}));
    const TracedRun star = run_traced({"-n", "2", "--platform", file, "--cfg=s4bxi/compute:none"},
                                      {example("pingpong"), "-m", "4096", "-i", "3"});
    expect_success(star.result, 2);
    ASSERT_TRUE(star.report.has_value());
    EXPECT_EQ(star.report->get("lone_dma_writes")->number, 0);
    EXPECT_NE(star.events.find("PCI_DMA_WRITE,"), std::string::npos) << "no DMA write in the trace";
    const TracedRun tree = run_traced({"-n", "2", "--cfg=s4bxi/compute:none"}, {example("pingpong"), "-m", "4096", "-i", "3"});
    ASSERT_TRUE(tree.report.has_value());
    EXPECT_GT(tree.report->get("lone_dma_writes")->number, 0);
}

TEST_F(RobustPlatforms, FlatCluster)
{
    expect_pingpong_runs_on(s4bxi_cluster_platform("bb_bw=\"100GBps\" bb_lat=\"100ns\"", 4));
}

TEST_F(RobustPlatforms, FatTreeCluster)
{
    expect_pingpong_runs_on(s4bxi_cluster_platform("topology=\"FAT_TREE\" topo_parameters=\"2;2,2;1,2;1,1\"", 4));
}

TEST_F(RobustPlatforms, DragonflyCluster)
{
    expect_pingpong_runs_on(
        s4bxi_cluster_platform("topology=\"DRAGONFLY\" topo_parameters=\"2,1;1,1;1,1;2\"", 4));
}

TEST_F(RobustPlatforms, TorusCluster)
{
    expect_pingpong_runs_on(s4bxi_cluster_platform("topology=\"TORUS\" topo_parameters=\"2,2\"", 4));
}

} // namespace
} // namespace e2e
