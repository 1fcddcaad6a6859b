"""A small print-mode client of agy: one `agy -p … --output-format json` per question.

The code under test in this example; it knows nothing about agy-conformance.
"""
import json
import subprocess


class AgyError(Exception):
    """agy did not answer: a failed run, an ERROR envelope, or output that is no envelope."""


def ask(prompt, *, model=None, agy="agy", timeout_s=60):
    """agy's answer to `prompt`."""
    argv = [agy, "-p", prompt, "--output-format", "json"]
    if model:
        argv += ["--model", model]
    done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=timeout_s)
    try:
        envelope = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AgyError(f"agy exit {done.returncode}: stdout is not a JSON envelope: {done.stderr.strip()}")
    if done.returncode != 0 or envelope.get("status") != "SUCCESS":
        raise AgyError(f"agy exit {done.returncode}, status {envelope.get('status')}: "
                       f"{envelope.get('error') or done.stderr.strip()}")
    return envelope.get("response") or ""
