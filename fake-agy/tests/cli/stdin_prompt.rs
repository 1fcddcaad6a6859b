//! The prompt on stdin: no prompt flag with a piped stdin (from 1.1.1), `--print ""`
//! by version, `--input-format text`, and what a greedy `-p` leaves of stdin
//! (docs/agy-versions.md `StdinPrompt`, `EmptyPrintRefused`; docs/agy-reference.md §1.5).

use crate::support::*;
use agy_protocol::env::FAKE_AGY_VERSION;

const NO_TTY: &str = "CLI error: bubbletea: error opening TTY: bubbletea: could not open TTY: open /dev/tty: no such device or address\n";

fn envelope(stdout: &[u8]) -> serde_json::Value {
    serde_json::from_slice(stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(stdout)))
}

// A client that hands agy the prompt on piped stdin without `-p` (antigravity-cli issue
// #582, 1.1.1) ran into the fake's "interactive UI is not simulated", exit 70.
#[test]
fn a_piped_prompt_without_p_runs_a_turn() {
    for version in ["1.1.9", "1.2.6", "1.3.2"] {
        let sb = Sandbox::new();
        let out = sb.detached(
            &["--output-format", "json"],
            &[(FAKE_AGY_VERSION, version)],
            Some(b"say hi\n"),
        );
        assert_eq!(out.status.code(), Some(0), "{version}: {out:?}");
        let env = envelope(&out.stdout);
        assert_eq!(env["status"], "SUCCESS", "{version}");
        assert_eq!(env["response"], "hi\n", "{version}");
        assert_eq!(env["num_turns"], 1);
        let rec = &sb.journal()[0];
        assert_eq!(
            rec.stdin.lines.len(),
            1,
            "{version}: the prompt line is journalled"
        );
        assert_eq!(
            rec.mode,
            Some(agy_protocol::script::RunMode::Json),
            "{version}: the journal names the print run, not the interactive UI"
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_prompt_of_several_lines_is_read_to_the_end_of_stdin() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["--output-format", "stream-json"])
        .write_stdin("Here is the diff.\n\nReply with exactly: REVIEWED\n")
        .assert()
        .success();
    let events = json_lines(&out.get_output().stdout);
    let result = events.last().expect("result");
    assert_eq!(result["event"], "result");
    assert_eq!(result["result"]["response"], "REVIEWED\n");
}

#[test]
fn input_format_text_is_print_mode() {
    // The help lists `--input-format (text, stream-json) (default text)`.
    let sb = Sandbox::new();
    let piped = sb
        .cmd()
        .args(["--input-format", "text", "--output-format", "json"])
        .write_stdin("reply PIPED")
        .assert()
        .success();
    assert_eq!(envelope(&piped.get_output().stdout)["response"], "PIPED\n");
    let flagged = sb
        .cmd()
        .args(["--input-format=text", "-p", "reply FLAGGED"])
        .assert()
        .success();
    assert_eq!(flagged.get_output().stdout, b"FLAGGED\n");
}

#[test]
fn an_empty_stdin_without_p_starts_the_interactive_ui() {
    // ga-1.3.2-no-tty: `agy` with nothing on stdin and no terminal.
    let sb = Sandbox::new();
    let out = sb.detached(&["--output-format", "json"], &[], Some(b"\n"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), NO_TTY);
    assert!(out.stdout.is_empty());
}

#[test]
fn before_1_1_1_no_prompt_flag_starts_the_interactive_ui() {
    let sb = Sandbox::new();
    let out = sb.detached(
        &["--output-format", "json"],
        &[(FAKE_AGY_VERSION, "1.0.16")],
        Some(b"say hi\n"),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), NO_TTY);
}

#[test]
fn interactive_flag_without_a_terminal_fails_to_open_one() {
    // multica-ai/multica PR #4663: `agy -i` failed without a TTY (1.0.13).
    let sb = Sandbox::new();
    let out = sb.detached(&["-i", "hello"], &[], None);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), NO_TTY);
}

#[test]
fn an_empty_print_flag_is_refused_from_1_1_1_and_reads_stdin_before() {
    // antigravity-cli issue #582: through 1.1.0 `--print ""` read the prompt from
    // stdin; 1.1.1 answers `empty prompt`.
    let sb = Sandbox::new();
    let refused = sb
        .cmd()
        .args(["--print", "", "--output-format", "json"])
        .write_stdin("reply IGNORED\n")
        .assert()
        .code(1);
    let out = refused.get_output();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: empty prompt\n"
    );
    let env = envelope(&out.stdout);
    assert_eq!(
        (env["status"].as_str(), env["error"].as_str()),
        (Some("ERROR"), Some("empty prompt"))
    );

    let old = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.0.16")
        .args(["--print", "", "--output-format", "json"])
        .write_stdin("reply READ\n")
        .assert()
        .success();
    assert_eq!(envelope(&old.get_output().stdout)["response"], "READ\n");
}

#[test]
fn a_greedy_p_runs_the_flag_it_swallowed_as_the_prompt_and_ignores_stdin() {
    // nyldn/claude-octopus PR #620: `printf 'Reply with exactly: OK' | agy --print
    // --dangerously-skip-permissions …` answered about the swallowed flag, stdin ignored
    // (1.1.1 changelog: no stdin is read when a prompt is given by flag).
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "--print",
            "--sandbox",
            "--dangerously-skip-permissions",
            "--output-format",
            "stream-json",
        ])
        .write_stdin("Reply with exactly: OK\n")
        .assert()
        .success();
    let events = json_lines(&out.get_output().stdout);
    assert_eq!(events[0]["event"], "init");
    assert_eq!(events[0]["init"]["permission_mode"], "always-proceed");
    let result = events.last().expect("result");
    assert_eq!(result["result"]["status"], "SUCCESS");
    assert_eq!(
        result["result"]["response"], "Done.\n",
        "the prompt is `--sandbox`, not the piped instruction"
    );
}

// agy reads a piped prompt to its end and runs it as the turn (`StdinPrompt`,
// antigravity-cli issue #582); signed out, that turn is what fails sign-in. A fake that
// failed before reading left its client's write of the prompt racing its exit (agy-connect
// 0.1.3: `ProcessCrash: stdin pipe broken`, clients/agy-connect).
#[test]
fn signed_out_a_piped_prompt_is_read_before_the_turn_fails() {
    for version in ["1.1.9", "1.2.13", "1.3.2"] {
        let sb = Sandbox::new();
        let out = sb.detached(
            &[],
            &[
                (FAKE_AGY_VERSION, version),
                (agy_protocol::env::FAKE_AGY_SIGNED_OUT, "1"),
            ],
            Some(b"user: say hi\n"),
        );
        assert_eq!(out.status.code(), Some(1), "{version}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .ends_with(": authentication failed or timed out\n"),
            "{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rec = &sb.journal()[0];
        assert_eq!(rec.stdin.lines.len(), 1, "{version}: the prompt was read");
    }
}
