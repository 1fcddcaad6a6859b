//! One scenario's run as the ops and the judge see it: the scenario, the settings,
//! the sandbox, the driver's environment and the time scale.

use super::settings::RunSettings;
use crate::driver_client::{DriverClient, DriverError};
use crate::profile::Reach;
use crate::report::Status;
use crate::sandbox::Sandbox;
use crate::scenario::{Profile, Scenario};
use agy_protocol::driver::RequestOp;
use std::time::Duration;

/// How a run of the ops ended: `Ok`, or the status and note that cut it short.
pub(super) type Ended = Result<(), (Status, String)>;

/// Why a scenario's driver could not be started and greeted; the words are those a
/// report shows for the scenario that could not run.
#[derive(Debug, thiserror::Error)]
pub(super) enum StartError {
    /// The driver's process did not start.
    #[error(transparent)]
    Spawn(DriverError),
    /// The driver did not answer `hello` in time, or exited before it did.
    #[error("driver did not answer `hello`: {0}")]
    Hello(#[source] DriverError),
    /// The driver's `hello` names the profiles it implements, and not the scenario's.
    #[error("driver says it implements {:?}, not `{profile}`", names(.offered))]
    WrongProfile {
        /// The profiles `hello` names.
        offered: Vec<Profile>,
        /// The scenario's profile.
        profile: Profile,
    },
}

/// The names of `profiles`, as a list.
fn names(profiles: &[Profile]) -> Vec<&'static str> {
    profiles.iter().map(|p| p.as_str()).collect()
}

/// One scenario's run.
pub(super) struct Ctx<'a> {
    pub(super) s: &'a Scenario,
    pub(super) settings: &'a RunSettings,
    pub(super) sandbox: &'a Sandbox,
    pub(super) env: Vec<(String, String)>,
    pub(super) scale: f64,
}

impl Ctx<'_> {
    pub(super) fn scaled(&self, d: Duration) -> Duration {
        d.mul_f64(self.scale) + self.settings.config.timeouts.slack.0
    }

    /// What an op's reply may take beyond its time-scaled bound because of timeouts
    /// the adapter declares it cannot scale (`[timeouts] kill_grace_s`,
    /// `scales_timeout_s = false`). Only ops that carry `timeout_s` wait that long.
    pub(super) fn unscaled_extra(&self, req: &RequestOp) -> Duration {
        let t = &self.settings.config.timeouts;
        let timeout_s = match req {
            RequestOp::Generate {
                timeout_s: Some(t), ..
            }
            | RequestOp::ToolCall {
                timeout_s: Some(t), ..
            } => t,
            RequestOp::Ask(ask) => &ask.timeout_s,
            _ => return Duration::ZERO,
        };
        let mut extra = t.kill_grace_s.get();
        if !t.scales_timeout_s {
            extra += timeout_s.max(0.0) * (1.0 - self.scale).max(0.0);
        }
        Duration::try_from_secs_f64(extra).unwrap_or(Duration::ZERO)
    }

    pub(super) async fn start_driver(&self) -> Result<DriverClient, StartError> {
        let t = &self.settings.config.timeouts;
        let config = &self.settings.config;
        let command = match crate::profile::unit(self.s.meta.profile).reach {
            Reach::Driverless { client } => crate::bridge::driver_command_with(
                client,
                &config.bridge_options(client),
                &config.driverless_command(client, self.s.meta.profile),
            ),
            Reach::Driver => config.adapter.command.clone(),
        };
        let mut d = DriverClient::start(
            &command,
            &self.env,
            &self.sandbox.work(),
            &self.sandbox.driver_stderr(),
        )
        .map_err(StartError::Spawn)?;
        let hello = d
            .call(RequestOp::Hello {}, t.startup.0)
            .await
            .map_err(StartError::Hello)?;
        let profile = self.s.meta.profile;
        let offered = hello.result.profiles;
        if !offered.is_empty() && !offered.contains(&profile) {
            return Err(StartError::WrongProfile { offered, profile });
        }
        Ok(d)
    }
}
