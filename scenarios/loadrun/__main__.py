"""Entry point: python3 scenarios/loadrun [options] (scenarios/run.sh prepares the machine, then runs this)."""

import sys
from pathlib import Path

# Run as a folder (python3 scenarios/loadrun), the package's parent is not on the path yet.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadrun.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
