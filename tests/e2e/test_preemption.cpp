// Ranks that wait on their own memory for what another rank's Put or atomic
// writes there, with no call the emulator sees: the sync timer interrupts
// them every s4bxi/sync-quantum of CPU time, the simulation advances to
// their time, and the data lands. Never before its simulated arrival.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Preemption : public E2ETest {
protected:
    // "memory_spin: ... <what> <value> us" -> value.
    static double figure(const RunResult &r, const std::string &what)
    {
        for (const auto &line : lines(r.out))
            if (auto at = line.find(what + " "); line.rfind("memory_spin: ", 0) == 0 && at != std::string::npos)
                return std::stod(line.substr(at + what.size() + 1));
        return -1;
    }

    void check_flag(const std::string &mode)
    {
        // A quantum (20 ms) well above the kernel's tick: on an idle machine
        // the wall-clock timer a quantum after each answer makes the rank
        // sync within about a quantum of its CPU time, but on a loaded one
        // the thread may not run when that timer fires, and then the CPU
        // timer, which the kernel checks only at its tick (4 ms at HZ=250,
        // 10 ms at HZ=100), decides: with a 1 ms quantum and two CPU hogs
        // beside the test the flag was seen 1.2-7.7 ms after its arrival.
        constexpr double kQuantumUs = 20000.0;
        constexpr double kKernelTickUs = 10000.0;
        auto r = run({"-n", "2", "--cfg=s4bxi/sync-quantum:0.02", program("memory_spin"), mode});
        expect_all_passed(r, "memory_spin", 2);
        const double sent = figure(r, "sent at");
        const double seen = figure(r, "seen at");
        ASSERT_GT(sent, 0) << describe(r);
        // Never before its simulated arrival (the Put takes 2.8 us); seen
        // within a quantum and a kernel tick of it (without preemption it
        // would never be seen).
        EXPECT_GE(seen, sent + 2.0) << "seen before its simulated arrival\n" << describe(r);
        EXPECT_LE(seen, sent + 2.8 + kQuantumUs + kKernelTickUs)
            << "seen later than a quantum and a kernel tick after its arrival\n" << describe(r);
        EXPECT_LT(r.wall_s, 10.0) << describe(r);
    }
};

TEST_F(Preemption, FlagSetByAPutIsSeenByASpinningRank)
{
    check_flag("put");
}

TEST_F(Preemption, FlagSetByAnAtomicIsSeenByASpinningRank)
{
    check_flag("atomic");
}

// The spinning is done by a helper thread of the rank: its own timer.
TEST_F(Preemption, FlagSeenByASpinningHelperThread)
{
    check_flag("thread");
}

TEST_F(Preemption, BarrierOnRemoteAtomicsAndMemoryPolling)
{
    for (int ranks : {2, 4, 8}) {
        auto r = run({"-n", std::to_string(ranks), program("memory_spin"), "barrier"});
        expect_all_passed(r, "memory_spin", ranks);
        for (int rank = 0; rank < ranks; ++rank)
            EXPECT_TRUE(contains(r.out, "memory_spin: rank " + std::to_string(rank) + " passed 3 barriers"))
                << describe(r);
    }
}

} // namespace
} // namespace e2e
