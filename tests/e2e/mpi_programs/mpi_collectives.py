"""Collectives in Python, objects (pickled) and buffers: Bcast, Scatter,
Gather, Allgather, Reduce, Allreduce, Alltoall, Scan and Barrier, each
result checked on every rank. Output: "OK collectives N ranks"."""
from array import array

from mpi4py import MPI

from mpi_check import check_eq, report_ok

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size

# Objects.
check_eq("bcast", {"root": 0, "size": size}, comm.bcast({"root": 0, "size": size} if rank == 0 else None, root=0))
check_eq("scatter", rank * 10, comm.scatter([r * 10 for r in range(size)] if rank == size - 1 else None, root=size - 1))
gathered = comm.gather("r%d" % rank, root=0)
check_eq("gather", ["r%d" % r for r in range(size)] if rank == 0 else None, gathered)
check_eq("allgather", list(range(size)), comm.allgather(rank))
check_eq("reduce", sum(range(size)) if rank == 0 else None, comm.reduce(rank, op=MPI.SUM, root=0))
check_eq("allreduce max", size - 1, comm.allreduce(rank, op=MPI.MAX))
check_eq("alltoall", [(r, rank) for r in range(size)], comm.alltoall([(rank, r) for r in range(size)]))
check_eq("scan", sum(range(rank + 1)), comm.scan(rank, op=MPI.SUM))

# Buffers: 1000 doubles (8000 B), and one int per rank pair.
values = array("d", [float(rank + i) for i in range(1000)])
total = array("d", [0.0]) * 1000
comm.Allreduce(values, total, op=MPI.SUM)
check_eq("Allreduce", [float(sum(range(size)) + size * i) for i in range(1000)], list(total))
data = array("i", [7 * size + i for i in range(1000)] if rank == 0 else [0] * 1000)
comm.Bcast(data, root=0)
check_eq("Bcast", [7 * size + i for i in range(1000)], list(data))
outgoing = array("i", [rank * 100 + r for r in range(size)])
incoming = array("i", [0]) * size
comm.Alltoall(outgoing, incoming)
check_eq("Alltoall", [r * 100 + rank for r in range(size)], list(incoming))
everyone = array("i", [0]) * size
comm.Allgather(array("i", [rank * rank]), everyone)
check_eq("Allgather", [r * r for r in range(size)], list(everyone))
comm.Barrier()
report_ok(comm, "collectives %d ranks" % size)
