"""The image provider's own tests, with agy-conformance's `fake_agy` fixture."""
import pytest

from image_provider import AuthError, OutputMissingError, ProviderError, TransientError, generate


def test_the_image_is_taken_from_the_brain_folder(fake_agy, tmp_path):
    image = generate("a lighthouse at dusk", tmp_path)
    assert image.parent == tmp_path
    assert image.read_bytes()[:2] == b"\xff\xd8"  # agy's default image is a JPEG
    [call] = fake_agy.invocations()
    assert call.has_arg(f"--add-dir {tmp_path}")
    assert [f for f in call.files if f.endswith(".jpg")], "fake-agy journalled the image"


def test_two_images_are_not_a_success(fake_agy, tmp_path):
    fake_agy.configure(script={"invocation": [{"steps": [{"image": {"count": 2}}, {"envelope": {}}]}]})
    with pytest.raises(OutputMissingError, match="found 2"):
        generate("two cats", tmp_path)


def test_success_with_exit_1_is_not_a_success(fake_agy, tmp_path):
    fake_agy.configure(script={"invocation": [{"steps": [{"image": True}, {"envelope": {}}, {"exit": 1}]}]})
    with pytest.raises(ProviderError, match="exit 1"):
        generate("a boat", tmp_path)


@pytest.mark.fake_agy(quota_exhausted=True)
def test_an_exhausted_quota_is_retryable(fake_agy, tmp_path):
    with pytest.raises(TransientError) as error:
        generate("a tree", tmp_path)
    assert error.value.retryable


@pytest.mark.fake_agy(signed_out=True, version="1.3.2")
def test_signed_out_is_an_auth_error(fake_agy, tmp_path):
    with pytest.raises(AuthError):
        generate("a tree", tmp_path)
