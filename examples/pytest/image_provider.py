"""A small image provider: one agy print run per image, the image taken from agy's brain
folder (`~/.gemini/antigravity-cli/brain/<conversation_id>/`).

The code under test in this example; it knows nothing about agy-conformance. It reads
HOME when it runs, not when it is imported, so a test's sandbox HOME is the one used.
"""
import json
import shutil
import subprocess
from pathlib import Path


class ProviderError(Exception):
    retryable = False


class TransientError(ProviderError):
    retryable = True


class OutputMissingError(ProviderError):
    pass


class AuthError(ProviderError):
    pass


def brain_dir():
    return Path.home() / ".gemini" / "antigravity-cli" / "brain"


def generate(prompt, workdir, *, agy="agy", timeout_s=600):
    """Generates one 16:9 image for `prompt` and copies it into `workdir`."""
    workdir = Path(workdir)
    argv = [agy, "-p", f"Call generate_image exactly once. 16:9 widescreen. {prompt}",
            "--output-format", "json", "--add-dir", str(workdir),
            "--print-timeout", f"{timeout_s}s"]
    done = subprocess.run(argv, cwd=workdir, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout_s + 30)
    try:
        envelope = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ProviderError(f"agy exit {done.returncode}: stdout is not a JSON envelope")
    status = envelope.get("status")
    if status == "ERROR" and "authentication" in (envelope.get("error") or "") + done.stderr:
        raise AuthError(envelope.get("error") or done.stderr.strip())
    error = envelope.get("error") or ""
    if "quota" in error.lower() or "429" in done.stderr or "RESOURCE_EXHAUSTED" in done.stderr:
        raise TransientError(f"quota exhausted: {(error or done.stderr).strip()[:200]}")
    if done.returncode != 0 or status != "SUCCESS":
        raise ProviderError(f"agy exit {done.returncode}, status {status}")
    folder = brain_dir() / (envelope.get("conversation_id") or "-")
    images = sorted(folder.glob("*.jpg")) + sorted(folder.glob("*.png"))
    if len(images) != 1:
        raise OutputMissingError(f"expected exactly one image in {folder}, found {len(images)}")
    return Path(shutil.copy(images[0], workdir / images[0].name))
