"""Figures of a case: the address map of one AI Core fault, and the timeline of errors per device and process.

Each function returns a matplotlib Figure built without pyplot (no global state, nothing shown); the
notebook or the widget decides where it goes. Names from the logs (ops, kernels, nodes, files) are drawn as
plain text: a `$` in a kernel name is a dollar sign, never the start of math text or TeX.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import Formatter, MultipleLocator

from ..evidence.items import AicoreFault, Incident
from ..knowledge.addresses import hexs, mask48, offset

_ROLE_COLOURS = {"cause": "tab:red", "consequence": "tab:orange"}


#: Above this share of the plotted span, the gap between the kernel and current gets a broken axis.
BREAK_AT = 0.75
#: Half-width of a panel around a lone address, in bytes.
LONE_PAD = 0x100
#: The longest stretch of time a timeline draws; incidents further away are counted, not drawn.
WINDOW = timedelta(days=2)


def plain(fig: Figure) -> Figure:
    """The figure with every text of it drawn as it is: no math text (`MatMul$^^$x` would end the drawing in a
    ValueError), no TeX even where the user's matplotlibrc turns it on."""
    for text in fig.findobj(Text):
        text.set_parse_math(False)
        text.set_usetex(False)
    return fig


class _Shown(Formatter):
    """A tick formatter whose labels (and offset) are another formatter's, passed through `shown`."""

    def __init__(self, inner: Formatter, shown: Callable[[str], str]) -> None:
        self.inner, self.shown = inner, shown

    def __call__(self, x, pos=None) -> str:
        return self.shown(self.inner(x, pos))

    def format_ticks(self, values) -> list[str]:
        return [self.shown(s) for s in self.inner.format_ticks(values)]

    def get_offset(self) -> str:
        return self.shown(self.inner.get_offset())

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)


def relabel(fig: Figure, shown: Callable[[str], str]) -> Figure:
    """The figure with every text of it passed through `shown` (a Redactor): titles, legends and notes, and the
    tick labels, which each draw makes anew from the axis' formatter (so the formatter is wrapped)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            # axes that share an axis share its formatter: wrapped once
            if not isinstance(axis.get_major_formatter(), _Shown):
                axis.set_major_formatter(_Shown(axis.get_major_formatter(), shown))
            if not isinstance(axis.get_minor_formatter(), _Shown):
                axis.set_minor_formatter(_Shown(axis.get_minor_formatter(), shown))
    for text in fig.findobj(Text):
        text.set_text(shown(text.get_text()))
    return fig


def offset_label(value: float) -> str:
    """A tick as a signed hex offset from pc start: `+0x2000`, `-0x100`, `0`."""
    v = int(round(value))
    return "0" if v == 0 else f"{'+' if v > 0 else '-'}{abs(v):#x}"


def hex_step(span: float, most: int = 5) -> int:
    """A tick spacing that is a power of two, so hex ticks read round: at most `most` ticks over `span`."""
    step = 1
    while span / step > most:
        step *= 2
    return step


def _panels(spans: list[tuple[int, int]], split: bool) -> list[tuple[int, int]]:
    """The x ranges to plot: one over every span, or two when the largest gap between them dominates."""
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    first, last = merged[0][0], merged[-1][1]
    if split and len(merged) > 1:
        gap, i = max((b[0] - a[1], i) for i, (a, b) in enumerate(zip(merged, merged[1:])))
        if gap > BREAK_AT * (last - first):
            return [(first, merged[i][1]), (merged[i + 1][0], last)]
    return [(first, last)]


def _padded(lo: int, hi: int) -> tuple[float, float]:
    pad = max((hi - lo) * 0.08, 16) if hi > lo else LONE_PAD
    return lo - pad, hi + pad


def address_map(fault: AicoreFault) -> Figure:
    """pc start, current and the kernel range [pc start, pc start + binSize), as offsets from pc start.

    When current lies outside the kernel and far from it, the axis is broken in two panels (the kernel's
    range, and where current is), so neither shrinks to a hairline whatever the distance.
    """
    fig = Figure(figsize=(7.5, 2.4), layout="constrained")
    title = f"Device {fault.device}" + (f", serial {fault.serial}" if fault.serial is not None else "") \
        + f": {fault.op or fault.kernel or 'unknown kernel'}"
    if fault.pc_start_raw is None or fault.current_raw is None:
        ax = fig.add_subplot()
        ax.set_title(title, fontsize=10)
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no pc start / current in the report", ha="center", va="center", transform=ax.transAxes)
        return plain(fig)
    start = mask48(fault.pc_start_raw)
    off = offset(fault.pc_start_raw, fault.current_raw)
    size = fault.bin_size
    peers = [(peer - start, where) for peer, where in fault.pc_peers]
    spans = [(0, size or 0), (off, off), *((d, d + (size or 0)) for d, _ in peers)]
    inside = size is not None and 0 <= off < size
    panels = _panels(spans, split=not inside)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (lo, hi) in zip(axes, panels):
        _draw(ax, start, off, size, peers, inside, fault.current_raw)
        ax.set_xlim(*_padded(lo, hi))
        left, right = ax.get_xlim()
        ax.xaxis.set_major_locator(MultipleLocator(hex_step(right - left, most=6 // len(panels))))
        ax.xaxis.set_major_formatter(lambda v, _: offset_label(v))
        ax.tick_params(axis="x", labelsize=8)
        ax.set_yticks([])
    if len(axes) == 2:
        _break_marks(*axes)
    fig.suptitle(title, fontsize=10)
    axes[0].set_xlabel("offset from pc start (bytes)", fontsize=8, loc="left")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    return plain(fig)


def _draw(ax, start: int, off: int, size: int | None, peers: list, inside: bool, current_raw: int) -> None:
    """Every mark on one panel; the panel's limits decide which of them show."""
    if size:
        ax.axvspan(0, size, ymin=0.3, ymax=0.7, color="tab:green", alpha=0.25,
                   label=f"kernel binary [pc start, {offset_label(size)})")
    for n, (d, where) in enumerate(peers):
        if size:
            ax.axvspan(d, d + size, ymin=0.3, ymax=0.7, color="tab:purple", alpha=0.15)
        ax.axvline(d, color="tab:purple", linestyle=":",
                   label=f"same kernel elsewhere ({where})" if n == 0 else "_nolegend_")
    ax.axvline(0, color="tab:blue", linewidth=2, label=f"pc start {hexs(start)}")
    ax.axvline(off, color="tab:green" if inside else "tab:red", linewidth=2,
               label=f"current {hexs(mask48(current_raw))} (offset {offset_label(off)})")


def _break_marks(left, right) -> None:
    """The two panels read as one axis cut in the middle: no spine between them, slanted marks on the cut."""
    left.spines["right"].set_visible(False)
    right.spines["left"].set_visible(False)
    right.tick_params(axis="y", left=False)
    kw = dict(marker=[(-1, -1), (1, 1)], markersize=10, linestyle="none", color="k", mec="k", mew=1, clip_on=False)
    left.plot([1, 1], [0, 1], transform=left.transAxes, **kw)
    right.plot([0, 0], [0, 1], transform=right.transAxes, **kw)


def _when(t: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(t) if t else None
    except ValueError:
        return None


def window(times: list[datetime], span=None) -> tuple[datetime, datetime] | None:
    """The stretch of time to draw: all of it when it fits in `span` (WINDOW), else the `span`-wide stretch that
    holds the most of the times, so one stray timestamp years away does not squash the rest to a dot."""
    span = span or WINDOW
    if not times:
        return None
    times = sorted(times)
    if times[-1] - times[0] <= span:
        return times[0], times[-1]
    best, lo = (0, 0), 0
    for hi, t in enumerate(times):
        while t - times[lo] > span:
            lo += 1
        if hi - lo + 1 > best[1] - best[0] + 1:
            best = (lo, hi)
    return times[best[0]], times[best[1]]


def timeline(incidents: list[Incident]) -> Figure | None:
    """One row per node / device / process: each incident from its first failure to its last line; None when no
    incident has a time. Incidents outside the stretch `window` picks are left out, and the figure says so."""
    timed = [(inc, _when(inc.first.time)) for inc in incidents]
    timed = [(inc, t0) for inc, t0 in timed if t0 is not None]
    shown = window([t0 for _, t0 in timed])
    if shown is None:
        return None
    inside = [(inc, t0) for inc, t0 in timed if shown[0] <= t0 <= shown[1]]
    rows: dict[str, int] = {}
    fig = Figure(figsize=(8, 0.5 + 0.35 * max(1, len({_label(i) for i, _ in inside}))), layout="constrained")
    ax = fig.add_subplot()
    for inc, t0 in inside:
        t1 = _when(inc.last_time) or t0
        t1 = min(max(t1, t0), shown[1])   # a burst running past the stretch is cut at its edge
        y = rows.setdefault(_label(inc), len(rows))
        colour = _ROLE_COLOURS.get(inc.role, "tab:gray")
        ax.plot([t0, t1], [y, y], color=colour, linewidth=4, alpha=0.5)
        ax.plot([t0], [y], marker="o", color=colour)
    left_out = len(timed) - len(inside)
    if left_out:
        ax.set_title(f"{left_out} {'incident' if left_out == 1 else 'incidents'} outside "
                     f"{shown[0]:%Y-%m-%d %H:%M} – {shown[1]:%Y-%m-%d %H:%M} not drawn", fontsize=8, loc="left")
    ax.set_yticks(range(len(rows)), list(rows))
    ax.tick_params(axis="y", labelsize=8)
    ax.tick_params(axis="x", labelsize=8, labelrotation=20)
    return plain(fig)


def _label(inc: Incident) -> str:
    """A timeline row's name: the node, rank, device and pid the logs show, and only those."""
    parts = [inc.node] if inc.node else []
    if inc.rank is not None:
        parts.append(f"rank {inc.rank}")
    if inc.device is not None:
        parts.append(f"device {inc.device}")
    if inc.pid is not None:
        parts.append(f"pid {inc.pid}")
    return " / ".join(parts) or "place not logged"
