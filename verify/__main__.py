"""python -m verify --world-sizes 2,4 --json out/verify.json"""

import sys

from verify.cli import main

if __name__ == "__main__":
    sys.exit(main())
