"""python -m verify --world-sizes 2,4 --json out/verify.json"""

import atexit
import os
import sys

from verify.cli import main

if __name__ == "__main__":
    code = main()
    # Everything is written and every rank and child has ended: run the exit handlers, then leave without the
    # interpreter's teardown of torch's and sympy's modules and caches (1.3-2 s of a ~60 s sweep, nothing saved).
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
