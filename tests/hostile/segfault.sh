#!/usr/bin/env bash
# segfault.sh - hostile run: the target segfaults (a store through a null pointer) right after its 100th launch.
# The counters file must hold the launches made before, the report must cover them, and
# atomutil-profile must say how the program ended and pass on its exit status (abnormal_end.sh).
#   segfault.sh [BIN_DIR [WORK_DIR]]      (exit 77 without a GPU)
exec bash "$(dirname "$0")/abnormal_end.sh" segfault "$@"
