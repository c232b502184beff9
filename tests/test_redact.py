"""Redaction: every kind of sensitive value replaced, placeholders stable, log structure left readable."""
from casebook.presenting.redact import Redactor

LINE = ("[ERROR] HCCL(4242,python):2026-03-14-10:02:09.831.406 [hccl.cc:12][4242] connect to 192.168.10.21:60000 "
        "from node-a.cluster.local failed, script /home/alice/train/run.py")


def test_ip_host_user_path_are_replaced_and_the_rest_kept():
    r = Redactor()
    out = r(LINE)
    assert "192.168.10.21" not in out and "<ip-1>:60000" in out
    assert "node-a.cluster.local" not in out and "<host-1>" in out
    assert "/home/<user-1>/train/run.py" in out and "alice" not in out
    # times, pids, file:line and module names are not personal
    assert out.startswith("[ERROR] HCCL(4242,python):2026-03-14-10:02:09.831.406 [hccl.cc:12][4242]")


def test_placeholders_are_stable_across_lines_and_distinct_per_value():
    r = Redactor()
    a = r("peer 10.0.0.1 and 10.0.0.2")
    b = r("again 10.0.0.2 then 10.0.0.1")
    assert a == "peer <ip-1> and <ip-2>" and b == "again <ip-2> then <ip-1>"


def test_a_name_learnt_later_is_hidden_in_earlier_lines_after_learn_all():
    lines = ["job started by bob on gpu box", "USER=bob HOSTNAME=trainer07"]
    r = Redactor()
    r.learn_all(lines)
    assert [r(x) for x in lines] == ["job started by <user-1> on gpu box", "USER=<user-1> HOSTNAME=<host-1>"]


def test_user_at_host_and_windows_paths():
    r = Redactor()
    assert r("scp carol@build-3.corp:/data") == "scp <user-1>@<host-1>:/data"
    assert r(r"C:\Users\dave\logs") == r"C:\Users\<user-2>\logs"


def test_system_accounts_versions_addresses_and_times_stay():
    r = Redactor()
    text = ("/root/ascend/log pc start: 0x12c0ff812000 at 10:02:09.831 file device_error_core_proc.cc "
            "torch_npu 2.1.0 std::vector fe80::1ff:fe23:4567:890a")
    out = r(text)
    assert "/root/ascend/log" in out and "0x12c0ff812000" in out and "10:02:09.831" in out
    assert "device_error_core_proc.cc" in out and "2.1.0" in out and "std::vector" in out
    assert "fe80::1ff:fe23:4567:890a" not in out and "<ip-1>" in out


def test_extra_hosts_from_the_bundle_paths_and_longest_first():
    r = Redactor(hosts={"worker-1", "worker-10"})
    assert r("worker-10 and worker-1") == "<host-1> and <host-2>"


def test_legend_lists_placeholders_without_values():
    r = Redactor()
    r("10.1.1.1 /home/eve/x")
    assert r.legend() == [("ip", "<ip-1>"), ("user", "<user-1>")]
    assert "eve" not in repr(r.legend())
