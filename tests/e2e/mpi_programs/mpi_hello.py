"""Hello world in Python: every rank prints "rank R of N on NAME" (NAME: its
simulated node), an Allreduce proves every rank is there, then
"OK hello N ranks". argv[1] (optional): the expected number of ranks."""
from mpi4py import MPI

from mpi_check import arg_int, check, check_eq, report_ok, say

comm = MPI.COMM_WORLD
expected = arg_int(1, -1)
if expected >= 0:
    check_eq("hello size", expected, comm.size)
name = MPI.Get_processor_name()
check(len(name) > 0, "hello", "empty processor name")
say("rank %d of %d on %s" % (comm.rank, comm.size, name))
check_eq("hello allreduce", comm.size * (comm.size - 1) // 2, comm.allreduce(comm.rank, op=MPI.SUM))
report_ok(comm, "hello %d ranks" % comm.size)
