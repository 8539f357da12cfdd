"""The frozen app's entry script: the same ``main()`` as the installed ``sammy-desktop``.

Until ``sammy_desktop.app`` has the ``--self-test`` flag (the lines are in issue 8's report),
this script runs the self-test itself, so the bundle can be proven either way. Once the app
parses the flag, this falls through to ``main()`` and the shim can go.
"""

import sys

from sammy_desktop.app import build_parser, main


def _app_knows_self_test() -> bool:
    return "--self-test" in build_parser().format_help()


if __name__ == "__main__":
    if "--self-test" in sys.argv[1:] and not _app_knows_self_test():
        from sammy_desktop.config import AppPaths
        from sammy_desktop.selftest import run_self_test

        if sys.stdout is not None:
            sys.exit(run_self_test(sys.stdout))
        # A windowed Windows build started without redirection has no console.
        paths = AppPaths.default()
        paths.ensure()
        with (paths.log_dir / "self-test.txt").open("w", encoding="utf-8") as report:
            sys.exit(run_self_test(report))
    sys.exit(main())
