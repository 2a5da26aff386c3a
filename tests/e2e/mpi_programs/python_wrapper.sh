#!/bin/sh
# An interpreter wrapper, as sites and virtual environments have them: sets
# the environment up, then the Python interpreter found in PATH replaces the
# script (the same process: it stays the rank).
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
exec python3 "$@"
