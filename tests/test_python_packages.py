"""Python packages: a module that is not there, the job's own package (python-package-not-installed) against a
package that CANN's compiler imports and could not (missing-python-dependencies); and a model's own code against the
transformers release (python-package-version-incompatible). Lines follow the public forms (hicann/runtime's
launch-kernel sample, the AI FAE install notes, CANN's EC0010, torch_npu's console at ACL init, ModelLink's Baichuan
README, ModelArts' benchmark and quantisation guides) with new paths."""
import pytest
from casebook.evidence.first_error import error_lines
from casebook.judging.triage import triage
from casebook.knowledge.kb import load_kb
from casebook.reading.plog import read_plog
from conftest import write_log

KB = load_kb()


@pytest.mark.parametrize("text", [
    # a sample's data script and a container's test import a package everyone imports: nothing of CANN failed
    "Traceback (most recent call last):\n  File \"/home/work/0_launch_kernel/scripts/gen_data.py\", line 3, in "
    "<module>\n    import numpy as np\nModuleNotFoundError: No module named 'numpy'\n",
    "ModuleNotFoundError: No module named 'scipy'\n",
])
def test_a_common_package_missing_from_the_jobs_interpreter_is_the_jobs_package(tmp_path, text):
    t = triage(write_log(tmp_path, "paste.txt", text), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "python-package-not-installed"


@pytest.mark.parametrize("text", [
    # CANN's loader says which module its own import lacked (ATC, EC0010)
    "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n"
    "EC0010: [PID: 5120] 2025-03-02-11:20:41.118.902 Failed to import Python module [ModuleNotFoundError: No module "
    "named 'numpy'.].\n",
    # a package only CANN's compiler imports
    "ModuleNotFoundError: No module named 'decorator'\n",
    # ACL's operator environment that failed, printed without a level, above tbe's import of numpy
    ">>> torch.npu.set_device(0)\n[Init][Env]init env failed!\nTraceback (most recent call last):\n  File "
    "\"/usr/local/Ascend/ascend-toolkit/latest/python/site-packages/tbe/common/utils/op_tiling.py\", line 12, in "
    "<module>\n    import numpy as np\nModuleNotFoundError: No module named 'numpy'\n",
])
def test_a_module_cann_itself_could_not_import_is_canns_dependency(tmp_path, text):
    t = triage(write_log(tmp_path, "paste.txt", text), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "missing-python-dependencies"


def test_acls_init_env_failure_is_an_error_line_of_a_paste(tmp_path):
    log = read_plog(write_log(tmp_path, "paste.txt", "[Init][Env]init env failed!\nRuntimeError: SetPrecisionMode "
                                                     "failed, error code is 500001\n"))
    assert [(e.line, e.text) for e in error_lines(log)][0] == (1, "[Init][Env]init env failed!")


@pytest.mark.parametrize("text", [
    "AttributeError: 'BaichuanTokenizer’ object has no attribute 'sp_model'\n",
    "TypeError: _pad() got an unexpected keyword argument 'padding_side'\n",
    "AttributeError: type object 'LlamaAttention' has no attribute '_init_rope'\n",
])
def test_a_models_own_code_against_the_transformers_release_is_a_package_version(tmp_path, text):
    t = triage(write_log(tmp_path, "paste.txt", text), kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "python-package-version-incompatible"
    # the plugin case reads the same Python error forms; where it does, the model's code contradicts it
    assert all(c.against for c in t.candidates if c.case.id == "plugin-out-of-sync-with-framework-api")


def test_a_serving_frameworks_own_layer_lacking_a_member_stays_the_plugin_pairing(tmp_path):
    t = triage(write_log(tmp_path, "paste.txt", "AttributeError: 'Attention' object has no attribute 'num_kv_heads'\n"),
               kb=KB)
    assert t.diagnosis is not None and t.diagnosis.case.id == "plugin-out-of-sync-with-framework-api"
