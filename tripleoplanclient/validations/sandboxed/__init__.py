"""What runs inside a validation's sandbox (standard library only:
the package is not mounted there)."""
