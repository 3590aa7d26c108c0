#!/bin/sh
# Kills the pid in $1: a process the test `starts` started, not this one.
kill "$(cat "$1")"
