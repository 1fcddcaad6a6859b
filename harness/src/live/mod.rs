//! Live runs against a real agy — only on explicit request, since they spend the user's
//! quota: the guard (`--live`, and `AGY_HARNESS_ALLOW_LIVE=1` in CI), how a run gets
//! credentials, and the wrapper that stands in front of the real binary to count
//! invocations against the budget and keep the same journal fake-agy keeps; with
//! `--record`, the wrapper's capture of each invocation and the recorder joining a
//! scenario's invocations into one trace.

mod capture;
mod credentials;
mod guard;
mod record;
mod run;
mod sign_in;
mod wrapper;

pub(crate) use capture::RECORD_CAP;
pub use credentials::{copy_credentials, Credentials, CredentialsArg, NoHome};
pub use guard::{check_live_allowed, LiveRefused};
pub use record::{LiveRecorder, RecordError, RUN_RECORD_SOURCE};
pub use run::LiveRun;
pub use sign_in::{classify, judge, not_signed_out, probe, probe_with, SignIn, SignInRefused};
pub use wrapper::{is_wrapper_invocation, wrap_agy};
