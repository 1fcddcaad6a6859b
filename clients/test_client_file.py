"""client_file: every problem of a client.toml is reported with its place and a hint."""

import tempfile
import unittest
from pathlib import Path

import client_file

GOOD = """[client]
name = "x"
registry = "pypi"
package = "x"
version = "1.0.0"
licence = "MIT"
shape = "print json"

[[known]]
flow = "ask"
kind = "client bug"
evidence = "x.py:1"
"""


def problems(text: str, flows=("ask",)) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "client.toml"
        path.write_text(text)
        return [str(p).replace(str(path), "client.toml") for p in client_file.load(path, list(flows))[1]]


class ClientFileTest(unittest.TestCase):
    def test_a_good_file_has_no_problem(self):
        self.assertEqual(problems(GOOD), [])

    def test_an_unknown_key_is_reported_at_its_line_with_the_closest_name(self):
        found = problems(GOOD.replace("licence =", "licnce ="))
        self.assertIn("unknown key `licnce`\n  --> client.toml:6:1", found[0])
        self.assertIn("did you mean `licence`?", found[0])
        self.assertIn("missing key `licence`", found[1])

    def test_every_bad_known_entry_is_reported(self):
        text = GOOD.replace('kind = "client bug"', 'kind = "clinet bug"') + GOOD[GOOD.index("[[known]]"):].replace(
            'flow = "ask"', 'flow = "aks"')
        found = problems(text)
        self.assertEqual(len(found), 2, found)
        self.assertIn("client.toml:11:1", found[0])
        self.assertIn("did you mean `client bug`?", found[0])
        self.assertTrue(any("no flow `aks`" in p and "client.toml:14:1" in p for p in found), found)

    def test_invalid_toml_names_its_line_and_column(self):
        found = problems(GOOD.replace('name = "x"', 'name = "x'))
        self.assertEqual(len(found), 1)
        self.assertIn("client.toml:2:", found[0])


if __name__ == "__main__":
    unittest.main()
