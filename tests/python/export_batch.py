"""Several `etmcu export` command lines in one python process (shared by the tests that export many
small programs): torch is imported once, where a process per export spent 1.6 s of its 2 to 3 s
importing it. Each export seeds itself, so the programs are the ones separate runs make."""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]

_SCRIPT = """
import json, sys, traceback
from etmcu.cli import main
for argv in json.loads(sys.argv[1]):
    try:
        rc = main(argv)
    except BaseException:
        traceback.print_exc()
        rc = 1
    if rc:
        print(f"export failed: {argv[1]}", file=sys.stderr)
        sys.exit(1)
"""


def export_all(commands, timeout=1800):
    """Runs each `etmcu export` argument list (["export", "FILE.py:NAME", "-o", OUT, ...]) in turn;
    the first that fails stops the rest, and stderr ends with "export failed: FILE.py:NAME"."""
    return subprocess.run(["/usr/bin/python3", "-c", _SCRIPT, json.dumps(commands)], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "python")), capture_output=True,
                          text=True, timeout=timeout)
