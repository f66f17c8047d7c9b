"""``python -m ttr_nordic.sim --agents random,random --games 10``: the tournament command."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
