#!/bin/sh
# The project's own reaper, as an orchestrator might first write it: SIGKILL to the agent's
# process group. Its known weakness (walk.toml): a member that called setsid() is in a group of
# its own, and survives.
#   walk.sh PGID
kill -KILL -"$1"
