"""TAP output for the Python tests: a result per check, skips, the plan
and the exit code (meson runs them with protocol 'tap')."""

results = []


def check(name, condition, why=""):
    """Records @name as passed when @condition holds; @why goes under a
    failure (its last lines). Returns @condition."""
    results.append((name, bool(condition), why))
    return condition


def skip(name):
    """Records @name as skipped; @name says why."""
    results.append((name, None, ""))


def report(why_lines=40):
    """Prints the plan and every result; the exit code (1 if any failed)."""
    print("1..%d" % len(results))
    failed = 0
    for i, (name, ok, why) in enumerate(results, 1):
        if ok is None:
            print("ok %d # SKIP %s" % (i, name))
        elif ok:
            print("ok %d - %s" % (i, name))
        else:
            failed += 1
            print("not ok %d - %s" % (i, name))
            for line in str(why).splitlines()[-why_lines:]:
                print("#   " + line)
    return 1 if failed else 0
