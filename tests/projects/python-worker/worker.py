"""The background worker: a classic daemon, detached from whoever started the app."""
import os
import signal


def start_daemon():
    if os.fork() != 0:
        os.wait()
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # finishes its job first, it says
    while True:
        signal.pause()
