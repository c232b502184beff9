"""Figures of a case: the address map of one AI Core fault, and the timeline of errors per device and process.

Each function returns a matplotlib Figure built without pyplot (no global state, nothing shown); the
notebook or the widget decides where it goes.
"""
from __future__ import annotations

from datetime import datetime

from matplotlib.figure import Figure

from ..evidence.items import AicoreFault, Incident
from ..knowledge.addresses import hexs, mask48, offset

_ROLE_COLOURS = {"cause": "tab:red", "consequence": "tab:orange"}


def address_map(fault: AicoreFault) -> Figure:
    """pc start, current and the kernel range [pc start, pc start + binSize), in bytes from pc start."""
    fig = Figure(figsize=(7.5, 2.4), layout="constrained")
    ax = fig.add_subplot()
    title = f"Device {fault.device}" + (f", serial {fault.serial}" if fault.serial is not None else "") \
        + f": {fault.op or fault.kernel or 'unknown kernel'}"
    ax.set_title(title, fontsize=10)
    ax.set_yticks([])
    if fault.pc_start_raw is None or fault.current_raw is None:
        ax.text(0.5, 0.5, "no pc start / current in the report", ha="center", va="center", transform=ax.transAxes)
        return fig
    start = mask48(fault.pc_start_raw)
    off = offset(fault.pc_start_raw, fault.current_raw)
    xs = [0, off]
    if fault.bin_size:
        ax.axvspan(0, fault.bin_size, ymin=0.3, ymax=0.7, color="tab:green", alpha=0.25,
                   label=f"kernel binary [pc start, +{hexs(fault.bin_size)})")
        xs.append(fault.bin_size)
    for peer, where in fault.pc_peers:
        d = peer - start
        ax.axvline(d, color="tab:purple", linestyle=":", label=f"same kernel elsewhere ({where})")
        xs.append(d)
    ax.axvline(0, color="tab:blue", linewidth=2, label=f"pc start {hexs(start)}")
    inside = fault.bin_size is not None and 0 <= off < fault.bin_size
    ax.axvline(off, color="tab:green" if inside else "tab:red", linewidth=2,
               label=f"current {hexs(mask48(fault.current_raw))} (offset {hexs(off)})")
    lo, hi = min(xs), max(xs)
    pad = max((hi - lo) * 0.08, 16)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_xlabel("bytes from pc start")
    ax.xaxis.set_major_formatter(lambda v, _: hexs(int(v)))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2, fontsize=8, frameon=False)
    return fig


def _when(t: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(t) if t else None
    except ValueError:
        return None


def timeline(incidents: list[Incident]) -> Figure:
    """One row per node / device / process: each incident from its first failure to its last line."""
    rows: dict[str, int] = {}
    fig = Figure(figsize=(8, 0.5 + 0.35 * max(1, len({_label(i) for i in incidents}))), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title("Errors per device and process", fontsize=10)
    for inc in incidents:
        t0, t1 = _when(inc.first.time), _when(inc.last_time) or _when(inc.first.time)
        if t0 is None:
            continue
        y = rows.setdefault(_label(inc), len(rows))
        colour = _ROLE_COLOURS.get(inc.role, "tab:gray")
        ax.plot([t0, t1 or t0], [y, y], color=colour, linewidth=4, alpha=0.5)
        ax.plot([t0], [y], marker="o", color=colour)
    if not rows:
        ax.text(0.5, 0.5, "no timed error lines", ha="center", va="center", transform=ax.transAxes)
    ax.set_yticks(range(len(rows)), list(rows))
    ax.tick_params(axis="y", labelsize=8)
    ax.tick_params(axis="x", labelsize=8, labelrotation=20)
    return fig


def _label(inc: Incident) -> str:
    parts = [inc.node] if inc.node else []
    if inc.rank is not None:
        parts.append(f"rank {inc.rank}")
    parts.append(f"device {inc.device}" if inc.device is not None else "device ?")
    if inc.pid is not None:
        parts.append(f"pid {inc.pid}")
    return " / ".join(parts)
