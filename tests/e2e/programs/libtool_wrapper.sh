#!/bin/bash
# libtool_wrapper.sh PROGRAM [ARGS...]: runs PROGRAM, from this script's
# directory, the way libtool's wrapper scripts run an uninstalled program
# (SOS's tests are run so): the directory and the program's name come from
# pipelines in command substitutions (a forked subshell, whose own forks put
# the pipe's ends on fd 0 and 1), then the program replaces the script (same
# process: it stays the rank). A rank's forked child that closed a descriptor
# number it no longer owned made those pipelines fail ("cannot duplicate fd
# 4 to fd 0") and left both empty.
thisdir=`echo "$0" | sed 's%/[^/]*$%%'`
progname=`echo "$1" | sed 's%^.*/%%'`
if test -z "$thisdir" || test -z "$progname" || test ! -x "$thisdir/$progname"; then
  echo "libtool_wrapper.sh: cannot find the program '$1' next to '$0' (found '$thisdir/$progname')" >&2
  exit 3
fi
shift
exec "$thisdir/$progname" "$@"
