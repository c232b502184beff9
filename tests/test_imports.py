"""Where Python took the package a failed import names: the installed release or a folder of source."""
import pytest
from casebook.evidence.imports import FACT, extract, from_source_folder
from casebook.reading.plog import read_plog
from conftest import write_log


@pytest.mark.parametrize("path, package, value", [
    ("/workspace/vllm/vllm/entrypoints/cli/main.py", "vllm", True),                    # a checkout
    ("/home/ma-user/work/mindformers/run_mindformer.py", "mindformers", True),        # a script beside its package
    ("/usr/local/lib/python3.10/site-packages/vllm/config.py", "vllm", False),         # the installed release
    ("/opt/venv/lib/python3.11/dist-packages/trl/__init__.py", "trl", False),
    ("C:\\envs\\py\\Lib\\site-packages\\vllm\\config.py", "vllm", False),
    ("/workspace/vllm-ascend/vllm_ascend/utils.py", "vllm", None),                     # another package's code
    ("/workspace/vllm.py", "vllm", None),                                              # a file, not a folder
])
def test_a_path_shows_where_a_package_was_read_from(path, package, value):
    assert from_source_folder(path, package) is value


def read_fact(tmp_path, lines: list[str]):
    """The fact the reader derives from a console log of these lines, or None."""
    return extract(read_plog(write_log(tmp_path, "console.log", "".join(f"{line}\n" for line in lines)))).get(FACT)


def test_a_package_whose_own_code_from_a_checkout_lacks_a_part_of_itself_is_read_from_source(tmp_path):
    fact = read_fact(tmp_path, ["Traceback (most recent call last):",
                                '  File "/usr/local/python3.10/bin/vllm", line 5, in <module>',
                                "    from vllm.entrypoints.cli.main import main",
                                '  File "/workspace/vllm/vllm/entrypoints/cli/benchmark/serve.py", line 4, in <module>',
                                "    from vllm.benchmarks.serve import add_cli_args, main",
                                "ModuleNotFoundError: No module named 'vllm.benchmarks.serve'"])
    assert (fact.value, fact.source, fact.file, fact.line) == (True, "log", "console.log", 4)


def test_an_import_error_that_prints_the_installed_file_is_the_release(tmp_path):
    fact = read_fact(tmp_path, ["Traceback (most recent call last):",
                                '  File "/home/rl/train_grpo.py", line 9, in <module>',
                                "    from trl import GRPOConfig",
                                "ImportError: cannot import name 'GRPOConfig' from 'trl' "
                                "(/usr/local/lib/python3.10/dist-packages/trl/__init__.py)"])
    assert (fact.value, fact.line) == (False, 4)


@pytest.mark.parametrize("lines", [
    ["ModuleNotFoundError: No module named 'models.gpt_oss'"],                          # no path tells
    # another package's code, run from a checkout, says where that package lives, not the one it imports
    ['  File "/workspace/vllm-ascend/vllm_ascend/patch/worker.py", line 7, in <module>',
     "    from vllm.lora.models import LoRAModel",
     "ModuleNotFoundError: No module named 'vllm.lora.models'"],
    ["ModuleNotFoundError: No module named 'sentencepiece'"],                          # names no part of a package
])
def test_no_path_that_tells_is_no_fact(tmp_path, lines):
    assert read_fact(tmp_path, lines) is None
