"""The ``lazy-intel`` command line (click)."""
