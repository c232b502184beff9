"""Figures: the address map of a fault and the incident timeline, built without pyplot."""
import re

import matplotlib.pyplot as plt
from casebook.evidence.items import AicoreFault
from casebook.evidence.registry import extract_evidence
from casebook.presenting import plots
from casebook.reading.plog import read_plog
from matplotlib.figure import Figure


def fault(**kw):
    base = dict(file="p.log", line=1, time=None, node=None, pid=1, device=0, serial=5, cores=[0], wording="aicore error",
                pc_start_raw=0x1000124080064000, current_raw=0x124080067D2C, error_code=0x10)
    base.update(kw)
    return AicoreFault(**base)


def _vlines(ax):
    return sorted(round(line.get_xdata()[0]) for line in ax.get_lines() if line.get_linestyle() != "None")


def _ticks(ax) -> list[str]:
    lo, hi = ax.get_xlim()
    return [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]


def test_address_map_marks_pc_start_current_and_kernel_range():
    fig = plots.address_map(fault(bin_size=0x4000, pc_peers=[(0x124080070000, "p.log:9")]))
    assert isinstance(fig, Figure) and plt.get_fignums() == []
    (ax,) = fig.axes                                          # current inside the kernel: one unbroken axis
    assert _vlines(ax) == [0, 0x3D2C, 0xC000]                 # pc start, current, the peer's pc start
    kernel, peer = ax.patches
    assert (kernel.get_x(), kernel.get_x() + kernel.get_width()) == (0, 0x4000)   # [pc start, pc start + binSize)
    assert (peer.get_x(), peer.get_x() + peer.get_width()) == (0xC000, 0x10000)   # the kernel where the peer loaded it
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "current 0x124080067d2c (offset +0x3d2c)" in labels
    assert _ticks(ax) and all(re.fullmatch(r"0|[+-]0x[0-9a-f]+", t) for t in _ticks(ax))


def test_a_current_gigabytes_away_breaks_the_axis_and_keeps_the_kernel_visible():
    far = 0x3C0001234
    fig = plots.address_map(fault(pc_start_raw=0x100000000000, current_raw=0x100000000000 + far, bin_size=0x2000))
    kernel_panel, current_panel = fig.axes
    lo, hi = kernel_panel.get_xlim()
    assert lo < 0 < 0x2000 < hi and (0x2000 / (hi - lo)) > 0.5, "the kernel fills its panel"
    lo, hi = current_panel.get_xlim()
    assert lo < far < hi and hi - lo < 0x1000, "the second panel is a close-up of current"
    for ax in fig.axes:   # offsets from pc start, never the 48-bit addresses, and few enough to read
        assert 2 <= len(_ticks(ax)) <= 6 and all(re.fullmatch(r"0|[+-]0x[0-9a-f]{1,9}", t) for t in _ticks(ax))
    assert not kernel_panel.spines["right"].get_visible() and not current_panel.spines["left"].get_visible()


def test_a_current_just_past_the_kernel_needs_no_break():
    fig = plots.address_map(fault(pc_start_raw=0x100000000000, current_raw=0x100000002100, bin_size=0x2000))
    assert len(fig.axes) == 1


def test_offset_labels_and_hex_steps():
    assert [plots.offset_label(v) for v in (0, 0x2000, -0x100, 0.4)] == ["0", "+0x2000", "-0x100", "0"]
    assert plots.hex_step(0x10000) == 0x4000 and plots.hex_step(10, most=5) == 2


def test_address_map_without_pc_says_so():
    fig = plots.address_map(fault(pc_start_raw=None))
    assert "no pc start" in fig.axes[0].texts[0].get_text()


def test_timeline_one_row_per_device_and_process(corpus):
    ev = extract_evidence(read_plog(corpus / "hccl-event-timeout-2workers"))
    fig = plots.timeline(ev.incidents)
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert sorted(rows) == ["worker-0 / rank 0 / device 0 / pid 59420", "worker-1 / rank 1 / device 0 / pid 26251",
                            "worker-1 / rank 2 / device 1 / pid 26252"]
    assert plt.get_fignums() == []


def test_a_timeline_with_nothing_timed_is_no_figure_and_names_only_what_is_known():
    from types import SimpleNamespace
    line = lambda time: SimpleNamespace(time=time)   # noqa: E731 - an incident's first line, as the timeline reads it
    untimed = SimpleNamespace(first=line(None), last_time=None, node=None, rank=None, device=None, pid=7, role="cause")
    assert plots.timeline([untimed]) is None and plots.timeline([]) is None
    timed = SimpleNamespace(first=line("2026-01-01T10:00:00"), last_time="2026-01-01T10:00:05", node=None, rank=None,
                            device=None, pid=7, role="cause")
    fig = plots.timeline([timed])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["pid 7"], "no 'device ?'"


def test_one_stray_timestamp_does_not_stretch_the_timeline_across_years():
    from types import SimpleNamespace
    from matplotlib.dates import num2date

    def incident(time, pid):
        return SimpleNamespace(first=SimpleNamespace(time=time), last_time=time, node=None, rank=None, device=0,
                               pid=pid, role="cause")
    incs = [incident(f"2026-03-01T10:0{n}:00", n) for n in range(5)] + [incident("2019-01-01T00:00:00", 99)]
    fig = plots.timeline(incs)
    left, right = (num2date(x) for x in fig.axes[0].get_xlim())
    assert (right - left).days < 2 and left.year == 2026
    assert "1 incident outside" in fig.axes[0].get_title(loc="left")
    assert "pid 99" not in [t.get_text() for t in fig.axes[0].get_yticklabels()]
