#!/usr/bin/env python3
"""The test files that took longest in a pytest JUnit XML report (--junitxml), summed over their
tests (setup and teardown included): what tests/python/conftest.py's LONGEST_FIRST orders by.

    pytest_file_times.py REPORT.xml [N]   (the N longest; default 12)

The standard library's XML parser, no package: test.sh prints this after the pytest step."""
import collections
import sys
import xml.etree.ElementTree as ET


def file_times(report):
    """{test module path under tests/python: summed seconds}, and the number of tests per path."""
    seconds, count = collections.Counter(), collections.Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname") or ""
        parts = module.split(".")
        if parts[:2] == ["tests", "python"]:
            parts = parts[2:]
        path = "/".join(parts) + ".py"
        seconds[path] += float(case.get("time") or 0)
        count[path] += 1
    return seconds, count


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    seconds, count = file_times(argv[1])
    n = int(argv[2]) if len(argv) > 2 else 12
    print(f"pytest: summed test time {sum(seconds.values()):.0f} s; the longest files:")
    for path, s in seconds.most_common(n):
        print(f"  {s:7.0f} s  {count[path]:5d} tests  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
