"""Shared helpers of the self-checking Python MPI test programs (mpi4py),
with the conventions of mpi_check.h: "OK <what>" from rank 0 once every rank
passed, "FAIL rank R: <test>: <what>" on stderr and Abort(3) otherwise, and
numeric arguments optional (the harness's marker is ignored)."""
import sys

from mpi4py import MPI

ABORT_CODE = 3


def check(condition, test, what):
    if not condition:
        sys.stderr.write("FAIL rank %d: %s: %s\n" % (MPI.COMM_WORLD.rank, test, what))
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(ABORT_CODE)


def check_eq(test, expected, actual):
    check(expected == actual, test, "expected %r, got %r" % (expected, actual))


def say(line):
    """One line on standard output, in one write: print() makes two (the
    text, then the newline) when Python's output is unbuffered
    (PYTHONUNBUFFERED), and the ranks share one pipe, so another rank's line
    could come in between."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def report_ok(comm, what):
    comm.Barrier()
    if comm.rank == 0:
        say("OK " + what)


def arg_int(index, default):
    """argv[index] as an integer, or default when it is absent or not a number."""
    try:
        return int(sys.argv[index])
    except (IndexError, ValueError):
        return default
