//! A profile's oracle: what any correct adapter of its contract does, for the cases
//! `fuzz` generates and for the reproductions `repro` builds from a bug report. Each
//! profile's folder implements it and its unit holds it, so `fuzz` and `repro` reach a
//! profile's contract without asking which profile they run.

use super::repro_kit::case::ReproCase;
use super::repro_kit::evidence::Evidence;
use super::repro_kit::plan::Plan;
use agy_protocol::profile::Profile;
use proptest::strategy::BoxedStrategy;
use std::fmt::Debug;
use std::sync::Arc;

/// The oracle of a profile's contract.
pub trait ContractOracle: Debug + Sync {
    /// The cases `fuzz` generates, each rendered with the expectations this oracle
    /// writes; `None` for a contract with no generator yet.
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>>;

    /// The plan of a reproduction: the ops to send and what any correct adapter shows.
    fn plan(&self, case: &ReproCase) -> Plan;

    /// What a bug report lacks that could trigger a bug of this contract, said when
    /// the adapter passes the reproduction; `None` when nothing in particular.
    fn missing_evidence(&self, e: &Evidence, case: &ReproCase) -> Option<&'static str> {
        let _ = (e, case);
        None
    }
}

/// A generated case: what agy (or the ACP agent) does, and the ops sent.
pub trait FuzzCase: Debug + Send + Sync {
    /// The scenario file of `profile`, named `name`, with `comment` lines on top.
    fn render(&self, profile: Profile, name: &str, description: &str, comment: &[String])
        -> String;
}

/// A generated case as strategies yield it.
pub type SharedCase = Arc<dyn FuzzCase>;

/// A generated case type as `fuzz` holds it: `$name($case)`, rendered by `$render`
/// (`fn(Profile, &$case, name, description, comment) -> String`). Its `Debug` is the
/// `case:` comment of a finding.
macro_rules! fuzz_case {
    ($(#[$doc:meta])* $name:ident($case:ty) => $render:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(pub $case);

        impl $crate::profile::FuzzCase for $name {
            fn render(
                &self,
                profile: agy_protocol::profile::Profile,
                name: &str,
                description: &str,
                comment: &[String],
            ) -> String {
                $render(profile, &self.0, name, description, comment)
            }
        }
    };
}
pub(crate) use fuzz_case;

/// `case` as a [`SharedCase`].
pub fn shared(case: impl FuzzCase + 'static) -> SharedCase {
    Arc::new(case)
}
