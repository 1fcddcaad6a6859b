"""The print-mode client's own tests, with agy-conformance's `fake_agy` fixture."""
import pytest

from print_client import AgyError, ask


@pytest.mark.fake_agy(script="""
[[invocation]]
when  = { prompt_contains = "hexagon" }
steps = [{ default = { response = "a purple hexagon" } }]
""")
def test_the_answer_is_read_from_the_envelope(fake_agy):
    assert ask("draw a hexagon", model="gemini-3.8-flash-low") == "a purple hexagon"
    [call] = fake_agy.invocations()
    assert call.prompt == "draw a hexagon"
    assert call.flag_value("--model") == "gemini-3.8-flash-low"
    assert call.has_arg("--output-format json")
    assert call.exit_code == 0


def test_a_script_can_be_a_dict(fake_agy):
    fake_agy.configure(script={"invocation": [{"steps": [{"default": {"response": "four"}}]}]})
    assert ask("two plus two?") == "four"


def test_a_failed_run_is_an_error_even_with_a_success_envelope(fake_agy):
    fake_agy.configure(script={"invocation": [{"steps": [
        {"envelope": {"status": "SUCCESS", "response": "looks fine"}},
        {"exit": 1},
    ]}]})
    with pytest.raises(AgyError, match="exit 1"):
        ask("anything")


@pytest.mark.fake_agy(signed_out=True)
def test_a_signed_out_agy_is_an_error(fake_agy):
    with pytest.raises(AgyError):
        ask("hello")
    [call] = fake_agy.invocations()
    assert call.exit_code != 0


def test_each_question_is_one_agy_process(fake_agy):
    ask("one")
    ask("two")
    calls = fake_agy.invocations()
    assert [c.prompt for c in calls] == ["one", "two"]
    assert len({c.pid for c in calls}) == 2
    assert all(c.stdin_closed for c in calls)
