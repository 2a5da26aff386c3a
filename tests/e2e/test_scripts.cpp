// Programs that are scripts: a rank may be a shell script that forks (command
// substitutions, pipelines) before it execs the real program, as libtool's
// wrappers, `env` and shell launchers do. The forked children are not the
// rank, and nothing of the rank's own set-up may leak into what they open.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Scripts : public E2ETest {};

// libtool_wrapper.sh finds the program through pipelines in command
// substitutions, then execs it: the Portals program runs as the rank.
TEST_F(Scripts, LibtoolWrapperRunsItsProgramAsTheRank)
{
    auto r = run({"-n", "2", program("libtool_wrapper.sh"), "put_get_integrity"});
    expect_all_passed(r, "put_get_integrity", 2);
    EXPECT_FALSE(contains(r.err, "cannot duplicate")) << describe(r);
}

// The same script run by Debian's /bin/sh (dash), which forks and
// redirects its own way.
TEST_F(Scripts, LibtoolWrapperRunByDashRunsItsProgramAsTheRank)
{
    auto r = run({"-n", "2", "/bin/sh", program("libtool_wrapper.sh"), "put_get_integrity"});
    expect_all_passed(r, "put_get_integrity", 2);
}

} // namespace
} // namespace e2e
