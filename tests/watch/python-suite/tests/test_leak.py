"""Leaks: `sleep 300` started with start_new_session=True (setsid(): a session and group of its
own) and all three standard streams on /dev/null, never killed nor waited for. The test passes;
when the test run's python exits, the sleep is orphaned and goes on for 300 s at most."""
import subprocess
import unittest

# Held here so the Popen is not collected (and does not warn "still running") before the
# interpreter exits: a leak, not a garbage-collection artefact.
LEFT = []


class LeakTest(unittest.TestCase):
    def test_leaves_a_session(self):
        child = subprocess.Popen(
            ["sleep", "300"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.assertIsNone(child.poll())
        LEFT.append(child)


if __name__ == "__main__":
    unittest.main()
