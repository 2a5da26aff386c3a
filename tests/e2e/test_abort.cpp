// PtlAbort (the current generation of Sandia's portals4.h): one thread of a
// rank ends the waits and polls of its other threads; the simulation waits
// for the aborting thread while it runs, and still reports a deadlock when no
// thread could ever end the wait. See programs/abort_waits.c.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Abort : public E2ETest {};

TEST_F(Abort, EndsEveryWaitOfTheProcessOn1_2And4Ranks)
{
    for (int nranks : {1, 2, 4}) {
        auto r = run({"-n", std::to_string(nranks), program("abort_waits")});
        expect_success(r, nranks);
        for (int rank = 0; rank < nranks; ++rank)
            EXPECT_TRUE(contains(r.out, "abort_waits: rank " + std::to_string(rank) + ": all checks passed"))
                << nranks << " ranks: rank " << rank << " did not pass\n" << describe(r);
        EXPECT_FALSE(contains(r.err, "deadlock")) << describe(r);
    }
}

// The helper's wait could only end by an abort from the main thread, which
// is blocked in pthread_join: a deadlock, said at once, not a hang.
TEST_F(Abort, AWaitNoThreadCanAbortIsStillADeadlock)
{
    auto r = run({"-n", "2", program("abort_waits"), "join-only"});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "deadlock")) << describe(r);
    EXPECT_TRUE(contains(r.err, "PtlEQWait")) << describe(r);
    EXPECT_LT(r.wall_s, 10.0) << describe(r);
}

} // namespace
} // namespace e2e
