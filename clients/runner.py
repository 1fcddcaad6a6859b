"""Runs every client's flows against fake-agy, per modelled agy version, and scores them.

Usage: python3 clients/runner.py [CLIENT…] [--versions V,V…] [--json PATH]

For each client folder (clients/<name>/client.toml) and each agy version it supports
(every version of `agy_protocol::MODELLED_VERSIONS` from its `since` on), each flow runs
in its own sandbox: a fresh HOME, TMPDIR and working folder, fake-agy first on PATH as
`agy` (fake-agy-acp as `agy_acp_server`), `FAKE_AGY_VERSION` set. No process outlives a
flow: every process that carries the flow's sandbox marker in its environment is killed
when the flow ends, and one found is a difference of its own.

A flow is *as with real agy* when every fact its client's record expects was observed.
A difference is expected only when the client's `[[known]]` table triages it (a bug of
the client's own, or agy behaviour the record leaves unverified); any other difference,
and a triaged difference that no longer shows, is unexpected: exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import client_file

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "clients"
FLOW_TIMEOUT_S = 90
# Flows run at once (CLIENTS_JOBS overrides).
JOBS = int(os.environ.get("CLIENTS_JOBS", "3"))


def modelled_versions() -> tuple[list[str], str]:
    """The fake's built-in versions and its default, as protocol/src/version.rs spells them."""
    text = (ROOT / "protocol/src/version.rs").read_text()
    block = text.split("pub const MODELLED_VERSIONS", 1)[1].split("];", 1)[0]
    versions = [".".join(m) for m in re.findall(r"AgyVersion::new\((\d+), (\d+), (\d+)\)", block)]
    default = re.search(r"pub const DEFAULT: AgyVersion = AgyVersion::new\((\d+), (\d+), (\d+)\)", text)
    if not versions or default is None:
        sys.exit("clients: cannot read the modelled versions from protocol/src/version.rs")
    return versions, ".".join(default.groups())


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))


def load_client(folder: Path, venv: Path) -> dict:
    """The client's file, or exit 2 naming every problem in it (nothing runs)."""
    client = {"folder": folder}
    data, problems = client_file.load(folder / "client.toml", flow_names(client, venv))
    if problems:
        print("\n\n".join(map(str, problems)), file=sys.stderr)
        sys.exit(2)
    client.update(data)
    return client


def sandbox_env(box: Path, version: str, venv: Path, target: Path) -> dict[str, str]:
    for sub in ("home", "tmp", "work", "bin"):
        (box / sub).mkdir()
    (box / "bin/agy").symlink_to(target / "fake-agy")
    (box / "bin/agy_acp_server").symlink_to(target / "fake-agy-acp")
    return {
        "PATH": f"{box / 'bin'}:{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(box / "home"),
        "TMPDIR": str(box / "tmp"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(CLIENTS),
        "FAKE_AGY_VERSION": version,
        "CLIENTS_WORKDIR": str(box / "work"),
        "CLIENTS_SANDBOX": str(box),
        "NO_COLOR": "1",
    }


def leftovers(marker: str) -> list[int]:
    """Processes whose environment carries this flow's sandbox marker."""
    needle = f"CLIENTS_SANDBOX={marker}\0".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if needle in Path(f"/proc/{pid}/environ").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def reap(marker: str) -> list[str]:
    """Kill whatever the flow left running; name each process found."""
    names = []
    for pid in leftovers(marker):
        try:
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
    return names


def run_flow(client: dict, flow: str, version: str, venv: Path, target: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="clients-") as tmp:
        box = Path(tmp)
        env = sandbox_env(box, version, venv, target)
        cmd = [str(venv / "bin/python"), str(client["folder"] / "flows.py"), flow]
        proc = subprocess.Popen(cmd, env=env, cwd=box / "work", stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=FLOW_TIMEOUT_S)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            timed_out = True
        left = reap(str(box))
    lines = out.decode(errors="replace").strip().splitlines()
    try:
        record = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        record = {"flow": flow, "applies": True, "as_real": False,
                  "observed": {"flow_broke": True, "timed_out": timed_out,
                               "stderr": err.decode(errors="replace")[-1500:]}}
    if left and record.get("applies"):
        record["observed"]["left_running"] = left
        record["as_real"] = False
    return record


def triage(client: dict, flow: str, version: str) -> dict | None:
    for known in client.get("known", []):
        if known["flow"] != flow:
            continue
        versions = known.get("versions", "all")
        if versions == "all" or version in versions:
            return known
    return None


def judge(client: dict, record: dict, version: str) -> str:
    """`as-real`, `expected` (a triaged difference), `unexpected` or `stale` triage."""
    known = triage(client, record["flow"], version)
    if record["as_real"]:
        return "stale" if known else "as-real"
    return "expected" if known else "unexpected"


def client_versions(client: dict, modelled: list[str], only: list[str] | None) -> list[str]:
    since = client["client"].get("since")
    chosen = [v for v in modelled if since is None or vkey(v) >= vkey(since)]
    return [v for v in chosen if only is None or v in only]


def flow_names(client: dict, venv: Path) -> list[str]:
    out = subprocess.run([str(venv / "bin/python"), str(client["folder"] / "flows.py"), "--list"],
                         env={"PYTHONPATH": str(CLIENTS), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def show(record: dict, verdict: str, known: dict | None) -> None:
    if verdict == "as-real":
        return
    # A flow that broke (timed out, printed no record) has no `cite` and no `expect`.
    print(f"    {verdict:10} {record['flow']}  ({record.get('cite', 'the flow broke: no record')})")
    if verdict in ("unexpected", "stale") or os.environ.get("CLIENTS_VERBOSE"):
        print(f"      expected: {json.dumps(record.get('expect'))}")
        print(f"      observed: {json.dumps(record.get('observed'))[:1500]}")
    if known:
        print(f"      triaged:  {known['kind']}: {known['evidence']}")


def run_client(client: dict, versions: list[str], default: str, venv: Path, target: Path,
               results: list[dict]) -> bool:
    name = client["client"]["name"]
    clean = True
    flows = flow_names(client, venv)
    # Flows are independent sandboxes that mostly wait on their processes: run a few at
    # once, report in order.
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        runs = {(v, f): pool.submit(run_flow, client, f, v, venv, target) for v in versions for f in flows}
    for version in versions:
        records = [runs[(version, f)].result() for f in flows]
        applied = [r for r in records if r.get("applies")]
        verdicts = [judge(client, r, version) for r in applied]
        matched = sum(1 for r in applied if r["as_real"])
        bugs = sum(1 for r, v in zip(applied, verdicts)
                   if v == "expected" and triage(client, r["flow"], version)["kind"] == "client bug")
        mark = " (default)" if version == default else ""
        print(f"  {name} @ agy {version}{mark}: {matched + bugs}/{len(applied)} flows as with real agy"
              f" ({matched} as the client expects)")
        for r, v in zip(applied, verdicts):
            show(r, v, triage(client, r["flow"], version))
            known = triage(client, r["flow"], version)
            results.append({"client": name, "version": version, "flow": r["flow"],
                            "verdict": v, "as_real": r["as_real"],
                            "kind": known["kind"] if known and v == "expected" else None,
                            "record": r})
        clean &= "unexpected" not in verdicts and "stale" not in verdicts
    return clean


def print_summary(results: list[dict]) -> None:
    """The suite's figures: flows as with real agy, and every difference by its triage.

    A difference triaged as the client's own bug is a flow where fake-agy did what agy's
    record says (the client expected otherwise): it counts as with real agy. A fake
    infidelity, an unverified behaviour and an unexpected difference do not.
    """
    total = len(results)
    count = lambda pred: sum(1 for r in results if pred(r))  # noqa: E731
    matched = count(lambda r: r["as_real"])
    client_bugs = count(lambda r: r["kind"] == "client bug")
    fake = count(lambda r: r["kind"] == "fake infidelity")
    unverified = count(lambda r: r["kind"] == "unverified")
    bad = count(lambda r: r["verdict"] in ("unexpected", "stale"))
    same = matched + client_bugs
    print(f"clients: {same}/{total} flows as with real agy ({100 * same / max(total, 1):.1f}%): "
          f"{matched} as the client expects, {client_bugs} the client's own bug; "
          f"{fake} fake infidelity, {unverified} unverified, {bad} unexpected")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clients", nargs="*", help="client folders' names (default: all)")
    ap.add_argument("--versions", help="comma-separated agy versions (default: all the client supports)")
    ap.add_argument("--json", type=Path, help="write every flow's record here")
    ap.add_argument("--venv", type=Path, default=ROOT / "target/clients-venv")
    ap.add_argument("--target", type=Path, default=ROOT / "target/debug")
    args = ap.parse_args()
    modelled, default = modelled_versions()
    only = args.versions.split(",") if args.versions else None
    folders = sorted(p.parent for p in CLIENTS.glob("*/client.toml"))
    if args.clients:
        folders = [f for f in folders if f.name in args.clients]
    results: list[dict] = []
    clean = True
    for folder in folders:
        client = load_client(folder, args.venv)
        clean &= run_client(client, client_versions(client, modelled, only), default,
                            args.venv, args.target, results)
    print_summary(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
