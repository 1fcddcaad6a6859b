"""A small image provider that drives `agy` headlessly, as ADR 0013 decided.

This is the adapter under test: it knows nothing about the harness. See driver.py for
the few lines that let agy-harness call it.
"""
import glob
import json
import os
import shutil
import subprocess


class ProviderError(Exception):
    """Base of the adapter's errors."""

    retryable = False


class ProviderTimeoutError(ProviderError):
    retryable = True


class ProviderTransientError(ProviderError):
    retryable = True


class ProviderOutputMissingError(ProviderError):
    pass


class ProviderAuthError(ProviderError):
    pass


class ProviderPermanentError(ProviderError):
    pass


QUOTA_WORDS = ("429", "RESOURCE_EXHAUSTED")


BRAIN = os.path.join(os.path.expanduser("~"), ".gemini", "antigravity-cli", "brain")


def images_in(folder):
    return sorted(p for ext in ("jpg", "jpeg", "png")
                  for p in glob.glob(os.path.join(folder, f"*.{ext}")))


def looks_like_jpeg(path):
    """A cheap stand-in for Pillow: SOI at the start, EOI at the end, a frame header."""
    with open(path, "rb") as f:
        data = f.read()
    return (
        data[:2] == b"\xff\xd8"
        and data.rstrip(b"\x00")[-2:] == b"\xff\xd9"
        and any(m in data for m in (b"\xff\xc0", b"\xff\xc1", b"\xff\xc2"))
    )


class AntigravityProvider:
    def __init__(self, binary="agy", workdir=".", time_scale=1.0, store=None):
        self.binary = binary
        self.workdir = os.path.abspath(workdir)
        self.time_scale = time_scale
        self.store = store or os.path.join(self.workdir, "assets")

    def generate(self, prompt, aspect=None, timeout_s=600, model=None, effort=None,
                 skip_permissions=False, reference_dirs=()):
        words = {"16:9": "16:9 widescreen", "1:1": "square 1:1"}.get(aspect or "", aspect)
        full_prompt = (
            "Call generate_image exactly once. Do not run shell commands or other tools.\n"
            + (f"Aspect ratio: {words}.\n" if words else "")
            + prompt
        )
        argv = [self.binary, "-p", full_prompt, "--output-format", "json",
                "--add-dir", self.workdir]
        for d in reference_dirs:
            argv += ["--add-dir", d]
        argv += ["--print-timeout", f"{int(timeout_s)}s"]
        if skip_permissions:
            argv.append("--dangerously-skip-permissions")
        if model:
            argv += ["--model", model]
        if effort:
            argv += ["--effort", effort]
        before = set(os.listdir(BRAIN)) if os.path.isdir(BRAIN) else set()
        try:
            proc = subprocess.Popen(argv, cwd=self.workdir, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except FileNotFoundError:
            raise ProviderPermanentError(
                f"`{self.binary}` not found: install Antigravity CLI (agy) and put it on PATH")
        try:
            out, err = proc.communicate(timeout=(timeout_s + 30) * self.time_scale)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise ProviderTimeoutError(f"agy ran past {timeout_s}s + 30s and was killed")
        return self._classify(proc.returncode, out, err, before)

    def _classify(self, code, out, err, before=frozenset()):
        try:
            env = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise ProviderPermanentError(f"agy exit {code}: stdout is not a JSON envelope")
        status = env.get("status")
        response = env.get("response") or ""
        total = (env.get("usage") or {}).get("total_tokens", 0)
        brain = os.path.join(BRAIN, env.get("conversation_id") or "-")
        images = images_in(brain)
        if status == "SUCCESS" and not images and os.path.isdir(BRAIN):
            # agy >= 1.2.16: the image-generator subagent saves the image in its own
            # conversation's folder, which the envelope does not name.
            for d in sorted(set(os.listdir(BRAIN)) - set(before)):
                if os.path.join(BRAIN, d) != brain:
                    images += images_in(os.path.join(BRAIN, d))
        if code == 0 and status == "SUCCESS" and len(images) == 1 and looks_like_jpeg(images[0]):
            os.makedirs(self.store, exist_ok=True)
            dest = os.path.join(self.store, os.path.basename(images[0]))
            shutil.copyfile(images[0], dest)
            return dest
        # The error table, in its order: the timeout row before the missing-output row.
        if status == "SUCCESS" and not response and total == 0 and not images:
            raise ProviderTimeoutError("agy print timeout (empty SUCCESS)")
        if status == "SUCCESS" and not images and any(w in response for w in QUOTA_WORDS):
            raise ProviderTransientError("image quota exhausted: " + response[:120])
        if status == "SUCCESS":
            raise ProviderOutputMissingError(
                f"expected exactly one image that opens in {brain}, found {len(images)}")
        if status in ("CANCELED", "INTERRUPTED"):
            raise ProviderTransientError(f"agy status {status}")
        if status == "ERROR" and "authentication" in (env.get("error") or ""):
            raise ProviderAuthError(env.get("error"))
        raise ProviderPermanentError(f"agy status {status}: {env.get('error') or ''}".strip())
