"""Where a read kernel's launch plan was before it moved into the reader (issue 43):
:mod:`swishgrad_numba.reader.launch_plan`."""
from ..reader.launch_plan import MAX_SCHEDULES, schedule, schedule_plan

__all__ = ["MAX_SCHEDULES", "schedule", "schedule_plan"]
