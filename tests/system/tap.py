"""TAP-style checks for the Python system tests: each check is counted and
printed ("ok N - what" / "not ok N - what"); a failed one does not stop the
others, and the plan line comes last."""


class Checks:
    def __init__(self):
        self.count = 0
        self.failed = 0

    def __call__(self, cond, what):
        self.count += 1
        if not cond:
            self.failed += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.count, what))

    def finish(self):
        """Prints the plan; the exit code (1 when a check failed)."""
        print("1..%d" % self.count)
        return 1 if self.failed else 0
