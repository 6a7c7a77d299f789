"""The adversarial safety suite (issue 5): attacks on the product's guarantees, and their figures.

`checks.py` is the attack library (plain functions returning counts), `report.py` prints the
figures table (`make safety`), and the `test_*.py` files assert the same guarantees with smaller
budgets.
"""
