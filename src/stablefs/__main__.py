import sys

from stablefs.cli import main

sys.exit(main())
