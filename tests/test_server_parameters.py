"""reactlab.server.parameters: a tool's schema looked up by name in a request's tools, for the
rules of the server's help (`more_calls`, `invented`, `unpack`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reactlab.server.parameters import parameters_of, properties_of, required_names

FORECAST = {"type": "function", "function": {
    "name": "get_forecast", "description": "A city's forecast.",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string"}, "days": {"type": "integer"}}, "required": ["location"]}}}
PROPS = FORECAST["function"]["parameters"]["properties"]


def test_parameters_of_finds_the_named_function_only():
    assert parameters_of([FORECAST], "get_forecast") is FORECAST["function"]["parameters"]
    assert parameters_of([FORECAST], "other") == {}
    odd = [{"type": "function", "function": {"name": "f", "parameters": ["x"]}}]
    assert parameters_of(odd, "f") == {}  # not an object: nothing to read
    assert parameters_of(["junk", None, {"function": "f"}], "f") == {}


def test_required_names_of_a_tool():
    # BFCL parallel_multiple_158's get_song_lyrics, with a name that is not a string
    tool = {"type": "function", "function": {"name": "get_song_lyrics", "parameters": {
        "type": "object", "required": ["song_title", "artist_name", 3]}}}
    assert required_names([tool], "get_song_lyrics") == ["song_title", "artist_name"]
    assert required_names([tool, "junk", {"function": None}], "other") == []


def test_properties_of_an_unknown_or_odd_tool_is_empty():
    assert properties_of([FORECAST], "get_forecast") == PROPS
    assert properties_of([FORECAST, "junk", {"function": None}], "other") == {}
    assert properties_of([{"type": "function", "function": {"name": "f"}}], "f") == {}


ODD = st.none() | st.integers() | st.text(max_size=3)
PARAMETERS = ODD | st.lists(st.integers(), max_size=2) | st.fixed_dictionaries({}, optional={
    "required": ODD | st.lists(ODD, max_size=3),
    "properties": ODD | st.dictionaries(st.text(max_size=3), ODD, max_size=2)})
FUNCTION = ODD | st.fixed_dictionaries({"name": st.sampled_from(["f", "g"])},
                                       optional={"parameters": PARAMETERS})
TOOL = ODD | st.fixed_dictionaries({}, optional={"type": ODD, "function": FUNCTION})


@given(st.lists(TOOL, max_size=3))
def test_the_lookups_never_raise_on_odd_tools(tools):
    assert isinstance(parameters_of(tools, "f"), dict)
    assert all(isinstance(r, str) for r in required_names(tools, "f"))
    assert isinstance(properties_of(tools, "f"), dict)
