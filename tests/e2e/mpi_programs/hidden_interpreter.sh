#!/bin/sh
# A launcher script that runs the interpreter named by a variable: nothing
# in it tells the launcher that it runs Python (s4bxi-run --mpi on does).
exec "$S4BXI_TEST_INTERPRETER" "$@"
