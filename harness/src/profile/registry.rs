//! The registration of every profile: one line per profile, the one `match` on a
//! profile name in the harness.

use super::unit::{Oracle, ProfileUnit};
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

/// The unit whose contract `oracle` is: each oracle has one profile.
pub fn by_oracle(oracle: Oracle) -> &'static ProfileUnit {
    match oracle {
        Oracle::ImageProvider => &super::oneshot::UNIT,
        Oracle::PersistentDriver => &super::session::UNIT,
        Oracle::Restore => &super::acp::UNIT,
        Oracle::TextClient => &super::text::UNIT,
        Oracle::ToolResult => &super::mcp::UNIT,
        Oracle::EditorAgent => &super::acp_agent::UNIT,
    }
}

/// Every profile's unit, in catalogue order.
pub fn units() -> impl Iterator<Item = &'static ProfileUnit> {
    Profile::ALL.into_iter().map(unit)
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
    fn each_oracle_is_the_oracle_of_its_own_unit() {
        for o in [
            Oracle::ImageProvider,
            Oracle::PersistentDriver,
            Oracle::Restore,
            Oracle::TextClient,
            Oracle::ToolResult,
            Oracle::EditorAgent,
        ] {
            assert_eq!(by_oracle(o).oracle, o);
        }
        for u in units() {
            assert_eq!(by_oracle(u.oracle).profile, u.profile);
        }
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
