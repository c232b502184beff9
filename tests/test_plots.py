"""Figures: the address map of a fault and the incident timeline, built without pyplot."""
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


def _vlines(fig):
    ax = fig.axes[0]
    return sorted(round(line.get_xdata()[0]) for line in ax.get_lines())


def test_address_map_marks_pc_start_current_and_kernel_range():
    fig = plots.address_map(fault(bin_size=0x4000, pc_peers=[(0x124080070000, "p.log:9")]))
    assert isinstance(fig, Figure) and plt.get_fignums() == []
    assert _vlines(fig) == [0, 0x3D2C, 0xC000]                # pc start, current, the peer's pc start
    (span,) = fig.axes[0].patches
    assert (span.get_x(), span.get_x() + span.get_width()) == (0, 0x4000)   # [pc start, pc start + binSize)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "current 0x124080067d2c (offset 0x3d2c)" in labels


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
