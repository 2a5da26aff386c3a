// PtlNIInit honours the desired limits within what the NIC model can do
// (issue 21): max_volatile_size is the node's PIO limit (the payload is in the
// command when the call returns), PTL_TARGET_BIND_INACCESSIBLE is granted,
// PTL_TOTAL_DATA_ORDERING unless messages can be lost; programs/ni_limits.c
// checks the actual limits it gets and a Put through an LE bound to the whole
// address space, as SOS's remote virtual addressing uses it.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class NIInit : public E2ETest {};

TEST_F(NIInit, DesiredLimitsAreGrantedWithinTheModel)
{
    // The default PIO limits: 408 B with match bits, 416 B without.
    auto r = run({"-n", "1", program("ni_limits"), "408", "416", "ordered"});
    expect_all_passed(r, "ni_limits", 1);
}

TEST_F(NIInit, VolatileSizeIsTheNodesPioLimit)
{
    auto r = run({"-n", "1", "--cfg=s4bxi/pio-limit-matching:100", "--cfg=s4bxi/pio-limit:200",
                  program("ni_limits"), "100", "200", "ordered"});
    expect_all_passed(r, "ni_limits", 1);
}

// A lost message comes again after later ones: no total ordering then, with
// a drop (scheduled after the run's end) or a link outage.
TEST_F(NIInit, NoTotalDataOrderingWhenMessagesCanBeLost)
{
    auto dropped = run({"-n", "1", "--cfg=s4bxi/fault-drop-at:100", program("ni_limits"), "408", "416", "unordered"});
    expect_all_passed(dropped, "ni_limits", 1);
    const std::string two_nodes = std::string(E2E_BINARY_DIR) + "/share/s4bxi/platforms/two-nodes.xml";
    auto link_down = run({"-n", "1", "--platform", two_nodes, "--cfg=s4bxi/link-down:node1_wire@100+1",
                          program("ni_limits"), "408", "416", "unordered"});
    expect_all_passed(link_down, "ni_limits", 1);
}

} // namespace
} // namespace e2e
