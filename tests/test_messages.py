"""The message catalog: every id in both languages with the same values, and remarks that keep their id."""
import copy
import json
import pickle

import pytest
from casebook.knowledge import messages
from casebook.knowledge.messages import Note, MessageError, problems, say, words


def test_the_catalog_is_complete():
    assert problems() == []
    assert say("en", "step.symptom") == "Symptom" and say("zh", "step.symptom") == "现象"


def test_problems_name_the_line_of_a_missing_language_or_a_mismatched_value(tmp_path):
    path = tmp_path / "messages.yaml"
    path.write_text('ok: {en: "a {x}", zh: "甲 {x}"}\nhalf: {en: "only {x} in English"}\n'
                    'flat: "no languages"\nwrong: {en: "{x} files", zh: "{y} 个文件"}\n', encoding="utf-8")
    # the entries after one that is not a mapping are still checked; a missing text is the one problem of its entry
    assert [str(p) for p in problems(path)] == [
        f"{tmp_path.name}/messages.yaml:2: half: no zh text",
        f"{tmp_path.name}/messages.yaml:3: flat: a message maps en and zh to a template",
        f"{tmp_path.name}/messages.yaml:4: wrong: en takes ['x'], zh takes ['y']"]


def test_unknown_ids_and_missing_values_are_errors_that_name_the_catalog():
    with pytest.raises(MessageError, match="messages.yaml: no message 'no.such'"):
        say("en", "no.such")
    with pytest.raises(MessageError, match="needs the value 'files'"):
        say("en", "symptom.read")


def test_a_note_is_its_english_text_and_is_worded_again_in_chinese():
    note = Note("pcnote.peers_agree", kernel="GatherV2", device=3)
    assert note == "Every other report of GatherV2 on device 3 has the same pc start."
    assert note.text("zh") == "设备 3 上 GatherV2 的其他报告 pc start 都相同。"
    assert json.loads(json.dumps({"notes": [note]})) == {"notes": [str(note)]}   # the JSON contract sees a string
    back = pickle.loads(pickle.dumps(note))
    assert back.msg_id == "pcnote.peers_agree" and back.text("zh") == note.text("zh") and copy.deepcopy(note) == note
    assert words("zh", "plain text") == "plain text"


def test_a_note_inside_a_note_is_worded_in_the_same_language():
    inner = Note("pcreason.before", offset="-0x10")
    outer = Note("pcreason.open", mismatch=inner)
    assert outer.startswith(str(inner)) and outer.text("zh").startswith(inner.text("zh"))


def test_code_names_without_words_stay_code_names():
    assert messages.name("zh", "kind", "aicore_exception") == "AI Core 异常"
    assert messages.name("zh", "kind", "brand_new_kind") == "brand_new_kind"
    assert messages.named("kind", "brand_new_kind") == "brand_new_kind"


def test_problems_of_extra_keys_bad_templates_blank_texts_and_an_empty_file(tmp_path):
    path = tmp_path / "messages.yaml"
    path.write_text('extra: {en: "a", zh: "甲", fr: "un"}\nbad: {en: "a {", zh: "甲 {"}\n'
                    'blank: {en: "  ", zh: "甲"}\nneither: {}\n', encoding="utf-8")
    assert [(p.file, p.line, p.message) for p in problems(path)] == [
        (f"{tmp_path.name}/messages.yaml", 1, "extra: unknown key(s) ['fr']"),
        (f"{tmp_path.name}/messages.yaml", 2, "bad: bad template: Single '{' encountered in format string"),
        (f"{tmp_path.name}/messages.yaml", 3, "blank: no en text"),
        (f"{tmp_path.name}/messages.yaml", 4, "neither: no en text"),
        (f"{tmp_path.name}/messages.yaml", 4, "neither: no zh text")]
    path.write_text("", encoding="utf-8")
    assert problems(path) == []


def test_chinese_falls_back_to_english_and_pick_prefers_chinese_only_in_chinese():
    assert messages.pick("zh", "en text", "中文") == "中文"
    assert messages.pick("zh", "en text", None) == "en text"
    assert messages.pick("en", "en text", "中文") == "en text"
    assert messages.named("kind", "aicore_exception").msg_id == "kind.aicore_exception"


def test_a_list_in_a_note_is_joined_with_the_languages_own_separator():
    note = Note("fact.spmd_proof", pid=7, devices=[0, 1, 3])
    assert "0, 1, 3" in note.text("en") and "0，1，3" in note.text("zh")
