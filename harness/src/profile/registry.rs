//! The registration of every profile: one line per profile, the one `match` on a
//! profile name in the harness.

use super::unit::{ProfileUnit, Reach};
use agy_protocol::profile::AgyRun;
use agy_protocol::profile::Profile;

/// The profile `init` writes a starter for when none is named.
pub const DEFAULT: Profile = Profile::Oneshot;

/// The unit of `profile`. A new profile is a new folder beside [`super::oneshot`] and
/// its line here; the compiler asks for the line once `Profile` has the variant.
pub fn unit(profile: Profile) -> &'static ProfileUnit {
    match profile {
        Profile::Oneshot => &super::oneshot::UNIT,
        Profile::Session => &super::session::UNIT,
        Profile::Acp => &super::acp::UNIT,
        Profile::Text => &super::text::UNIT,
        Profile::Mcp => &super::mcp::UNIT,
        Profile::AcpAgent => &super::acp_agent::UNIT,
    }
}

/// Every profile's unit, in catalogue order.
pub fn units() -> impl Iterator<Item = &'static ProfileUnit> {
    Profile::ALL.into_iter().map(unit)
}

/// The profile a bug report is reproduced under when none is named, by how the agy it
/// shows ran: the first profile in catalogue order whose driver runs agy so (print runs:
/// `oneshot`, a stream-json process: `session`, an ACP transcript: `acp`).
pub fn reproduced_as(run: AgyRun) -> Profile {
    units()
        .find(|u| u.reach == Reach::Driver && u.agy() == run)
        .map_or(DEFAULT, |u| u.profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_registered_under_its_own_name() {
        for p in Profile::ALL {
            assert_eq!(unit(p).profile, p);
            assert_eq!(unit(p).scenarios, p.as_str());
        }
    }

    #[test]
    fn a_report_is_reproduced_under_the_profile_that_runs_agy_as_it_shows() {
        assert_eq!(reproduced_as(AgyRun::PrintPerRequest), Profile::Oneshot);
        assert_eq!(reproduced_as(AgyRun::StreamJsonSession), Profile::Session);
        assert_eq!(reproduced_as(AgyRun::AcpServer), Profile::Acp);
    }

    #[test]
    fn every_unit_has_a_contract_with_sources() {
        for u in units() {
            assert!(!u.contract.is_empty(), "{}", u.profile);
            for line in u.contract {
                assert!(!line.source.is_empty(), "{}: {}", u.profile, line.rule);
            }
        }
    }
}
