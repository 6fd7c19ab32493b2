"""`python -m gambit …`: the same command line as the `gambit` console script."""

import sys

from service.cli import main

if __name__ == "__main__":
    sys.exit(main())
