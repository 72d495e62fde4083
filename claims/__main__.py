"""Command line: ``python -m claims inventory`` prints the registry as the Markdown of CLAIMS.md."""

from __future__ import annotations

import argparse
import sys

from claims._registry import render_inventory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m claims", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("inventory", help="print every registered claim (CLAIMS.md)")
    parser.parse_args(argv)
    sys.stdout.write(render_inventory())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
