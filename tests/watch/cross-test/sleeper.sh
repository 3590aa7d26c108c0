#!/bin/sh
# sleeper.sh PIDFILE [start|stop]: start leaves `sleep 300` in a session of its own, its pid in
# PIDFILE; stop kills the pid in PIDFILE, a process another test started. Without the second
# argument, $SLEEPER_ACTION says which.
action=${2:-$SLEEPER_ACTION}
case $action in
  start)
    setsid sleep 300 </dev/null >/dev/null 2>&1 &
    echo $! >"$1"
    ;;
  stop) kill "$(cat "$1")" ;;
  *) echo "usage: sleeper.sh PIDFILE start|stop" >&2; exit 2 ;;
esac
