"""tools/scripts/pytest_file_times.py: per-file sums of a JUnit report (what test.sh prints after
pytest, and what tests/python/conftest.py's LONGEST_FIRST orders by)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "scripts" / "pytest_file_times.py"
sys.path.insert(0, str(TOOL.parent))
import pytest_file_times  # noqa: E402

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.python.int8.test_a" name="test_x[1]" time="2.5"/>
<testcase classname="tests.python.int8.test_a" name="test_x[2]" time="1.5"/>
<testcase classname="tests.python.test_b" name="test_y" time="3.25"/>
<testcase classname="tests.python.firmware.test_c" name="test_z" time="0.5"><skipped/></testcase>
</testsuite></testsuites>
"""


def test_sums_per_file_longest_first(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text(REPORT)
    seconds, count = pytest_file_times.file_times(str(report))
    assert seconds == {"int8/test_a.py": 4.0, "test_b.py": 3.25, "firmware/test_c.py": 0.5}
    assert count["int8/test_a.py"] == 2
    out = subprocess.run([sys.executable, str(TOOL), str(report), "2"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "pytest: summed test time 8 s; the longest files:"
    assert [line.split()[-1] for line in out[1:]] == ["int8/test_a.py", "test_b.py"]


def test_no_report_is_a_usage_error():
    p = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True)
    assert p.returncode == 2 and "REPORT.xml" in p.stderr
