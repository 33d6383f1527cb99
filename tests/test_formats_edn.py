"""The strict EDN reader: what it reads, and every malformed text rejected with its line."""

from __future__ import annotations

import pytest

from fisheye.checker.formats.edn import Char, EdnError, EdnMap, Keyword, Symbol, Tagged, read_all, to_text


def test_reads_the_forms_of_a_knossos_history():
    forms = read_all('; comment\n[{:process 0, :type :invoke, :f :cas, :value [1 2]}\n'
                     ' {:process :nemesis :type :info :f :start :value "a\\"b"}]')
    assert len(forms) == 1
    first, second = forms[0]
    assert isinstance(first, EdnMap) and first.line == 2
    assert first[Keyword("value")] == (1, 2) and first[Keyword("f")] == Keyword("cas")
    assert second.line == 3 and second[Keyword("value")] == 'a"b'
    assert second[Keyword("process")] == Keyword("nemesis")


def test_scalars_collections_tags_and_discard():
    forms = read_all('nil true false -7 12N 1.5 2M "s\\n" \\a \\newline foo/bar :a/b '
                     '(1 2) #{1 2} #_ 99 #inst "2020" #jepsen.history.Op{:index 0}')
    assert forms[:9] == [None, True, False, -7, 12, 1.5, 2.0, "s\n", Char("a")]
    assert forms[9:12] == [Char("\n"), Symbol("foo/bar"), Keyword("a/b")]
    assert forms[12] == (1, 2) and forms[13] == frozenset({1, 2})
    assert forms[14] == Tagged("inst", "2020", 1)
    assert isinstance(forms[15], Tagged) and forms[15].value == {Keyword("index"): 0}
    assert len(forms) == 16


def test_sequence_of_maps_one_per_line_keeps_lines():
    forms = read_all("{:a 1}\n\n{:a 2}\n")
    assert [f.line for f in forms] == [1, 3]


@pytest.mark.parametrize(("text", "line", "why"), [
    ("{:a 1 :a 2}", 1, "repeats the key :a"),
    ("[1\n {:a}]", 2, "key without a value"),
    ("#{1 1}", 1, "repeats an element"),
    ("[1 2", 1, "ends before a closing"),
    ("[1 2)", 1, "unexpected ')'"),
    ("\n\n1/2", 3, "not a number"),
    ('"a\\q"', 1, "unknown escape"),
    ("#_", 1, "not followed by a form"),
    ("{{:a 1} 2}", 1, "map as a key"),
    ("@x", 1, "not an EDN symbol"),
    ("[1 \\", 1, "unexpected character"),
    ("[:]", 1, "not a keyword"),
])
def test_malformed_text_is_an_error_with_its_line(text, line, why):
    with pytest.raises(EdnError) as e:
        read_all(text)
    assert e.value.line == line and why in str(e.value)


def test_to_text_is_edn_and_short():
    assert to_text((Keyword("a"), None, "s", 1)) == '[:a nil "s" 1]'
    assert len(to_text(tuple(range(100)))) == 40
