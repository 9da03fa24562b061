"""Placeholder: the 950 DAG style (filled in next)."""
from .a2 import ClassMachine


class DagMachine(ClassMachine):
    scheduled = False
