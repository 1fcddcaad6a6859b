//! The signed-out state (no credentials in agy's data directory): `models` and every
//! turn fail authentication, as recorded (docs/agy-versions.md, "Signed out").

use crate::exit_code;
use crate::run::print_run::{classify, report_pre_turn_error, Request};
use crate::run::stdin_prompt;
use crate::session::Session;
use agy_protocol::calibration::Stream;

/// The error text of the result (pl-1.2.13-signed-out-stream, ut-1.3.2-signed-out).
pub const AUTH_ERROR: &str = "authentication failed or timed out";

/// Acts out the signed-out answer when the invocation needs an account; returns false
/// for one that does not (`--version`, `update`, usage errors …), which then runs as
/// usual.
pub fn answer(s: &mut Session) -> bool {
    match classify(s) {
        Request::Models => {
            // pl-1.2.13-models-signed-out; on stdout before 1.1.18
            // (fp-1.1.7-models-signed-out, `SignedOutModelsStderr`).
            s.out().stderr_line("Fetching available models...");
            let text = "Error: Please sign in to view available models. Launch the CLI without arguments to sign in.";
            if s.setup().calibration().signed_out.models_error_stream == Stream::Stderr {
                s.out().stderr_line(text);
            } else {
                s.out().stdout_line(text);
            }
            s.set_exit_code(exit_code::TURN_FAILED);
            true
        }
        Request::StdinPrompt { or_ui } => {
            // agy reads a piped prompt to its end and runs it as the turn (`StdinPrompt`,
            // antigravity-cli issue #582); that turn is what fails sign-in. An empty
            // stdin starts the interactive UI as when signed in.
            let prompt = stdin_prompt::read(s);
            if prompt.trim().is_empty() && or_ui {
                return false;
            }
            fail_turn(s);
            true
        }
        Request::Turn | Request::Persistent | Request::Usage | Request::Credits => {
            fail_turn(s);
            true
        }
        _ => false,
    }
}

/// stderr `Error: authentication required. …` and `error: authentication failed or timed
/// out`, a lone ERROR envelope or `result` (no `init`), exit 1. A persistent session
/// answers at once, before reading stdin (**unverified**: the captures piped one line).
fn fail_turn(s: &mut Session) {
    let line = s.setup().calibration().signed_out.auth_error.clone();
    s.out().stderr_line(&line);
    report_pre_turn_error(s, AUTH_ERROR);
}
