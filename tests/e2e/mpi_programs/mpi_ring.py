"""A ring in Python: a Python object goes around the ring twice, each rank
appending its rank (pickled send/recv), then a buffer of 64 KiB goes around
with Sendrecv (mpi4py's buffer path, rendezvous size) until it has visited
every rank, each adding its rank to every element. Output: "OK ring N ranks"."""
from array import array

from mpi4py import MPI

from mpi_check import check_eq, report_ok

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
right, left = (rank + 1) % size, (rank - 1) % size

for lap in range(2):
    if rank == 0:
        comm.send([0], dest=right, tag=lap)
        visited = comm.recv(source=left, tag=lap)
        check_eq("ring objects lap %d" % lap, list(range(size)), visited)
    else:
        visited = comm.recv(source=left, tag=lap)
        comm.send(visited + [rank], dest=right, tag=lap)

count = 16384  # 64 KiB of 4-byte integers
token = array("i", [0]) * count
received = array("i", [0]) * count
for step in range(size):
    # Each token visits every rank once, which adds its rank to it.
    for i in range(count):
        token[i] += rank
    comm.Sendrecv(token, dest=right, sendtag=100 + step, recvbuf=received, source=left, recvtag=100 + step)
    token, received = received, token
    if step == 0:
        check_eq("ring buffer step 0", [left] * count, list(token))
check_eq("ring buffer", [size * (size - 1) // 2] * count, list(token))
report_ok(comm, "ring %d ranks" % size)
