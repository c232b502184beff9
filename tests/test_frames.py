"""The frame that raised: whether a Python error came from code the job called or from the job's own script."""
import pytest
from casebook.evidence.frames import FACT, extract, in_package, raised_in_package
from casebook.reading.plog import read_plog
from conftest import write_log

PLUGIN = '  File "/usr/local/lib/python3.11/site-packages/vllm_ascend/ops/rope.py", line 155, in rope_forward\n'


@pytest.mark.parametrize("path, inside", [
    ("/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", True),
    ("/opt/venv/lib/python3.11/dist-packages/transformers/modeling_utils.py", True),
    ("/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", True),   # a source checkout
    ("vllm_ascend/quantization/methods/fp8.py", True),                           # a paste cut to the package
    ("/home/dev/train.py", False),
    (".../base_device_communicator.py", False),
    ("C:\\envs\\py\\Lib\\site-packages\\torch\\functional.py", True),
])
def test_a_path_names_its_package(path, inside):
    assert in_package(path) is inside


@pytest.mark.parametrize("frames, value", [
    ([("/home/dev/train.py", "<module>"), ("/opt/lib/python3.11/site-packages/vllm/engine.py", "step")], True),
    ([("/home/dev/train.py", "<module>"), ("/home/dev/train.py", "main")], False),     # the script's frames only
    ([("/workspace/test/test_worker.py", "<module>")], False),                         # its top level raised
    ([("/home/dev/train.py", "main"), ("/home/dev/models/layers.py", "forward")], True),   # it called another file
    ([(".../base_device_communicator.py", "reduce_scatter")], None),                   # one cut frame tells nothing
    ([("deepseek_v4_memory_pool.py", "alloc_c_pages_for_batch")], None),
])
def test_the_innermost_frame_is_the_jobs_script_or_code_it_called(frames, value):
    assert raised_in_package(frames) is value


def test_the_frame_above_the_first_exception_outside_pythons_library_is_read(tmp_path):
    text = ("Traceback (most recent call last):\n"
            '  File "/home/dev/serve.py", line 10, in <module>\n'
            "    main()\n"
            + PLUGIN +
            "    cos = cos.view(num_tokens, -1)\n"
            '  File "/usr/lib/python3.11/multiprocessing/connection.py", line 388, in _recv\n'
            "    raise EOFError\n"
            "RuntimeError: shape '[14, -1]' is invalid for input of size 768\n"
            "\nDuring handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n"
            '  File "/home/dev/serve.py", line 12, in <module>\n'
            "    shutdown()\n"
            "KeyError: 'engine'\n")
    fact = extract(read_plog(write_log(tmp_path, "console.log", text)))[FACT]
    # the plugin's frame (line 4), not Python's own library below it nor the second traceback's script
    assert (fact.value, fact.source, fact.file, fact.line) == (True, "log", "console.log", 4)


def test_an_error_raised_in_the_scripts_own_frames_is_the_scripts(tmp_path):
    text = ("Traceback (most recent call last):\n"
            '  File "/home/dev/finetune/train_vit.py", line 212, in <module>\n'
            "    main(args)\n"
            '  File "/home/dev/finetune/train_vit.py", line 147, in main\n'
            "    grid = tokens.reshape(-1, side, side, width)\n"
            "RuntimeError: shape '[-1, 14, 14, 768]' is invalid for input of size 301056\n")
    fact = extract(read_plog(write_log(tmp_path, "console.log", text)))[FACT]
    assert (fact.value, fact.line) == (False, 4)


@pytest.mark.parametrize("text", [
    "RuntimeError: shape '[14, -1]' is invalid for input of size 768\n",            # the last line alone
    PLUGIN,                                                                          # a frame, no exception after it
    '  File ".../communicator.py", line 234, in reduce_scatter\nAssertionError\n',  # one cut frame
])
def test_no_frame_that_tells_is_no_fact(tmp_path, text):
    assert extract(read_plog(write_log(tmp_path, "console.log", text))) == {}
