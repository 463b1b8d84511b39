import sys

from rigidflock.cli import main

sys.exit(main())
