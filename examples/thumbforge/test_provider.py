"""thumbforge 0.1.1's `AntigravityProvider` in unit tests of its own, with
agy-conformance's `fake_agy` pytest fixture instead of a monkeypatched `subprocess`:
the provider runs unchanged against fake-agy as `agy`, and the tests read what it did
from fake-agy's journal. `unit-tests` (beside this file) runs them."""
import asyncio

import pytest
from thumbforge.core.errors import ProviderAuthError, ProviderOutputMissingError, ProviderTimeoutError
from thumbforge.core.providers import GenerationRequest
from thumbforge.providers.antigravity import AntigravityProvider


def generate(fake_agy, workdir, prompt="a lighthouse at dusk"):
    provider = AntigravityProvider({
        "binary": str(fake_agy.agy),
        "brain_dir": str(fake_agy.brain_dir),
        "timeout_s": 60,
    })
    request = GenerationRequest(prompt=prompt, width=1920, height=1080, idempotency_key="k1")
    return asyncio.run(provider.generate(request, workdir=workdir))


def turns(fake_agy):
    return [c for c in fake_agy.invocations() if c.prompt is not None]


def test_the_image_of_the_run_is_delivered(fake_agy, tmp_path):
    result = generate(fake_agy, tmp_path)
    [turn] = turns(fake_agy)
    # agy wrote one image into its brain folder; thumbforge hands over its copy of it.
    [written] = [f for f in turn.files if f.endswith(".jpg")]
    assert written.startswith(str(fake_agy.brain_dir))
    assert result.image_path.read_bytes() == open(written, "rb").read()
    assert turn.has_arg("--output-format json")
    assert turn.flag_value("--print-timeout") is not None
    assert not turn.has_arg("--dangerously-skip-permissions")


def test_an_empty_success_after_the_print_timeout_is_a_retryable_timeout(fake_agy, tmp_path):
    fake_agy.configure(script={"invocation": [{"steps": [{"print_timeout": True}]}]})
    with pytest.raises(ProviderTimeoutError) as error:
        generate(fake_agy, tmp_path)
    assert error.value.retryable


def test_success_without_an_image_is_output_missing(fake_agy, tmp_path):
    fake_agy.configure(script={"invocation": [{"steps": [
        {"envelope": {"status": "SUCCESS", "response": "Here is your image."}},
    ]}]})
    with pytest.raises(ProviderOutputMissingError):
        generate(fake_agy, tmp_path)


def test_an_authentication_error_is_not_retried(fake_agy, tmp_path):
    fake_agy.configure(script={"invocation": [{"steps": [
        {"envelope": {"status": "ERROR", "error": "authentication required"}},
        {"exit": 1},
    ]}]})
    with pytest.raises(ProviderAuthError) as error:
        generate(fake_agy, tmp_path)
    assert not error.value.retryable
    assert len(turns(fake_agy)) == 1
