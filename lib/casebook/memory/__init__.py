"""The case memory: cases seen before, the team's own and the field's solved public threads (docs/memory.md)."""


class MemoryUnavailable(Exception):
    """The memory cannot be used; the message is one line naming it and why."""
