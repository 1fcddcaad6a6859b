"""ai-hats-agy 0.2.0 (the `agy` provider plugin of the ai-hats framework): its flows as its
record says they go against real agy.

An automated sub-agent run is `agy [--model M] --output-format json -p META_PROMPT`
(provider.py:326-331, assembled as ai_hats/subagent_runner.py:214-216 does), run to its
end; its transcript is then read from
`brain/<conversation>/.system_generated/logs/transcript.jsonl` (provider.py:83-105,
parser.py:1-6).
"""

import json
import subprocess
from pathlib import Path

from ai_hats.paths import tool_home
from ai_hats_agy.parser import AgyParser
from ai_hats_agy.provider import AgyProvider
from flowkit import flow, main, workdir

PONG = "Reply with exactly the word pong."


def run(model: str | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    provider = AgyProvider()
    flags = provider.model_flags(model) if model else []
    argv = provider.get_run_command(provider.get_cli_command() + flags, PONG)
    proc = subprocess.run(argv, cwd=workdir(), capture_output=True, text=True, timeout=60)
    try:
        return proc, json.loads(proc.stdout)
    except ValueError:
        return proc, {}


@flow("automate-run", expect={"exit_code": 0, "status": "SUCCESS", "response": "pong"},
      cite="provider.py:326-331 (--output-format json -p); ai_hats/subagent_runner.py:214-216")
def automate_run():
    proc, env = run()
    return {"exit_code": proc.returncode, "status": env.get("status"),
            "response": str(env.get("response", "")).strip()}


@flow("model-choice", expect={"exit_code": 0, "status": "SUCCESS"}, since="1.1.27",
      cite="ai_hats/providers.py:330-332 (model_flags: --model M); ai_hats/subagent_runner.py:214")
def model_choice():
    proc, env = run("gemini-3.8-flash-high")
    return {"exit_code": proc.returncode, "status": env.get("status")}


@flow("transcript-of-the-run", expect={"transcript_found": True, "turns": 1, "user_input": PONG},
      cite="provider.py:83-105: brain/<provider_session_id>/.system_generated/logs/transcript.jsonl; "
           "parser.py:1-6 and 370-416 (a USER_INPUT line opens a turn)")
def transcript():
    # The exact path resolve_transcript looks at first (provider.py:92-97); the framework's
    # own resolve_transcript of ai-hats 0.14.0 lacks the `end_ts` the plugin passes it.
    _, env = run()
    brain = tool_home("gemini", "GEMINI_CONFIG_DIR") / "antigravity-cli" / "brain"
    path = brain / str(env.get("conversation_id")) / ".system_generated" / "logs" / "transcript.jsonl"
    if not path.is_file():
        return {"transcript_found": False}
    # The plugin's own parser (parser.py:232-267); no trace.log beside it.
    parsed = AgyParser().parse(path, Path(workdir()) / "trace.log")
    return {"transcript_found": True, "turns": len(parsed.turns),
            "user_input": parsed.turns[0].user_input if parsed.turns else None}


if __name__ == "__main__":
    main()
