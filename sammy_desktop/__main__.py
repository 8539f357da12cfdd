"""``python -m sammy_desktop`` runs the app."""

import sys

from sammy_desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
