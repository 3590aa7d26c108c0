"""The clean test: a subprocess killed (SIGKILL) and waited for. Leaves nothing."""
import signal
import subprocess
import unittest


class CleanTest(unittest.TestCase):
    def test_kills_and_waits(self):
        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
        child.kill()
        self.assertEqual(child.wait(timeout=10), -signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()
