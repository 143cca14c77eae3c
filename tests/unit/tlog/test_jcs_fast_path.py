"""The C encoder's path to RFC 8785 bytes gives exactly what `rfc8785` gives, or steps aside."""

from __future__ import annotations

import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_service.tlog.verifier import canonical_bytes, jcs_by_the_c_encoder

# Text that reaches every escaping rule and both sides of U+D800 and U+E000, keys among them.
text = st.text(st.characters(codec="utf-8") | st.sampled_from("\x00\x07\x1f\x7f\"\\\b\f\n\r\t\u2028\u2029\ue000\uffff"
                                                              "\U0001f600é€"), max_size=12)
numbers = (st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1) | st.integers()
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from([0.5, 0.1, 1e-7, 1e-6, 1e-5, 1e-4, 1e15, 1e16, 1e21, 1.5e300, 5e-324, -0.0, 1.0, 123.456]))
scalars = st.none() | st.booleans() | numbers | text
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
                      max_leaves=25)


def reference(value: object) -> bytes | None:
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, RecursionError, ValueError, TypeError):
        return None


@given(values)
@settings(max_examples=3000, deadline=None)
def test_the_fast_path_is_rfc8785_or_steps_aside(value: object) -> None:
    fast = jcs_by_the_c_encoder(value)
    if fast is not None:
        assert fast == reference(value)


def test_entries_as_the_service_writes_them_take_the_fast_path() -> None:
    """Positions, names, ASCII and accented text, weights: the common payloads are not sent the slow way."""
    body = {"seq": 12, "op": "evidence.add", "by": "ann", "at": 1_764_000_000_000,
            "payload": {"belief": "b3.1", "weight": 0.35, "credibility": 1.0, "family": "actor:zoë",
                        "root_ids": ["i1", "i2"], "note": 'she said "yes"\n', "tick": None, "wordless": False}}
    assert jcs_by_the_c_encoder(body) is not None
    assert canonical_bytes(body) == rfc8785.dumps(body)


def test_integral_floats_are_written_as_ecmascript_writes_them() -> None:
    assert jcs_by_the_c_encoder({"c": 1.0, "z": -0.0, "l": [2.0, {"m": 9007199254740991.0}]}) \
        == b'{"c":1,"l":[2,{"m":9007199254740991}],"z":0}'


def test_what_the_c_encoder_would_write_otherwise_goes_the_slow_way() -> None:
    for value in ({"w": 1e-05}, {"w": 1e16}, {"w": 2.0**60}, {"w": float("nan")}, {"n": 2**53},
                  {"\ue000": 1, "\U0001f600": 2}, {"s": "\ud800"}, {1: "x"}, ("a",)):
        assert jcs_by_the_c_encoder(value) is None, value
    assert canonical_bytes({"seq": 1, "op": "o", "by": "b", "at": 0, "payload": {"w": 1e-05, "x": 1.0}}) \
        == b'{"at":0,"by":"b","op":"o","payload":{"w":0.00001,"x":1},"seq":1}'
