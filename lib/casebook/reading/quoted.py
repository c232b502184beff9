"""Files a capture quotes: the paths its grep prefixes name, known as if the files themselves had been read.

`grep -rn ERROR .` output names the file of every line (`debug/plog/plog-4242_….log:1187:`). Each such file
gets the role, node, device and pid its path gives (bundle.classify: `plog-<pid>_…`, `device-<id>/`,
`worker-<n>/`), refined by the lines quoted from it the way a file read whole is refined (slog lines under a
`device` folder were written on the device side; a host plog's pid is its header lines' pid), so topology
and the per-process and per-device logic work on the paste. Its lines are counted in the capture, once.
"""
from __future__ import annotations

from collections import Counter

from .bundle import ROLE_HOST_PLOG, ROLE_TEXT, LogFile, classify, slog_role
from .grammar import KIND_PLOG


def quoted_files(capture: LogFile, rows: list[tuple], columns: list[str]) -> list[LogFile]:
    """The files a capture's records (tuples of `columns`) quote, in the order first quoted, each with its identity."""
    at = {c: k for k, c in enumerate(columns)}
    src, kind, pid, time = at["src_file"], at["kind"], at["pid"], at["time"]
    by_path: dict[str, list[tuple]] = {}
    for r in rows:
        if r[src] is not None:
            by_path.setdefault(r[src], []).append((r[kind], r[pid], r[time]))
    return [_quoted(capture, path, quoted) for path, quoted in by_path.items()]


def _quoted(capture: LogFile, path: str, lines: list[tuple]) -> LogFile:
    """One quoted file from its (kind, pid, time) lines."""
    f = LogFile(path=path, source=capture.source, captured_in=capture.path, **classify(path))
    if f.node is None:
        f.node = capture.node
    headers = [(pid, time) for kind, pid, time in lines if kind == KIND_PLOG]
    if f.role == ROLE_TEXT and headers and len(headers) * 2 >= len(lines):
        f.role = slog_role(path)
    pids = Counter(pid for pid, _ in headers if pid is not None and pid >= 0)
    if f.pid is None and f.role == ROLE_HOST_PLOG and pids:
        f.pid = pids.most_common(1)[0][0]
    times = [time for _, _, time in lines if time is not None]
    f.first_time, f.last_time = (min(times), max(times)) if times else (None, None)
    return f
