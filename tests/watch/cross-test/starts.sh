#!/bin/sh
# Leaves `sleep 300` in a session of its own, its pid in $1.
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >"$1"
