"""Helpers shared by the test packages (importable as ``support``: tests/ is on sys.path)."""
