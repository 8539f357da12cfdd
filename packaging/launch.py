"""The frozen app's entry script: the same ``main()`` as the installed ``sammy-desktop``."""

import sys

from sammy_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
