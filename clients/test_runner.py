"""runner.py's report of one flow: a flow that broke is shown, not a crash of the run."""
import contextlib
import io
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402


class ShowTest(unittest.TestCase):
    def test_a_broken_flow_is_shown_with_what_it_left(self):
        # Regression: a flow that timed out has no `cite` or `expect`; show() raised
        # KeyError and ended the whole suite's run.
        record = {"flow": "ask", "applies": True, "as_real": False,
                  "observed": {"flow_broke": True, "timed_out": True, "stderr": ""}}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            runner.show(record, "unexpected", None)
        text = out.getvalue()
        self.assertIn("the flow broke", text)
        self.assertIn('"timed_out": true', text)


if __name__ == "__main__":
    unittest.main()
