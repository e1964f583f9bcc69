"""README.rst and the hand-written pages under doc/source checked against
the code, without a docs build."""
