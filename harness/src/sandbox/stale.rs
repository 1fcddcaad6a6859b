//! Sandboxes of runs that ended without removing them (a harness killed with SIGKILL,
//! a machine that lost power): the first sandbox a harness makes in a folder removes,
//! in that folder, each `agy-harness-*` sandbox whose owner file names a process that
//! is gone, after killing whatever still carries its marker. A folder without an owner
//! file that parses (another program's, an older kit's, a kept sandbox), a live
//! owner's, another user's, and anything behind a symlink are left alone.

use super::owner::Owner;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The name every sandbox folder starts with; the rest is `tempfile`'s random part
/// (no `-`, unlike the `agy-harness-<uid>-<name>-…` folders of the built-in catalogue).
pub const SANDBOX_PREFIX: &str = "agy-harness-";

/// The folders this process has swept already.
static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Sweeps `parent` the first time this process makes a sandbox there, and says on
/// stderr how many stale sandboxes it removed (nothing when none).
pub fn sweep_once(parent: &Path) {
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if !swept
            .get_or_insert_with(HashSet::new)
            .insert(parent.to_path_buf())
        {
            return;
        }
    }
    let removed = sweep_stale(parent);
    if removed > 0 {
        eprintln!(
            "agy-harness: removed {removed} sandbox folder{} left by ended runs under {}",
            if removed == 1 { "" } else { "s" },
            parent.display()
        );
    }
}

/// Removes every stale sandbox in `parent` (see the module doc); returns how many.
pub fn sweep_stale(parent: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| is_sandbox_name(&e.file_name().to_string_lossy()))
        .filter_map(|e| stale_owner(&e.path()).map(|owner| (e.path(), owner)))
        .filter(|(root, owner)| remove_stale(root, owner))
        .count()
}

/// `agy-harness-` and a random part without `-`.
fn is_sandbox_name(name: &str) -> bool {
    name.strip_prefix(SANDBOX_PREFIX)
        .is_some_and(|rest| !rest.is_empty() && !rest.contains('-'))
}

/// The owner of `root` when `root` is a real folder of this user, not a symlink, whose
/// owner file parses and names a process that is gone.
fn stale_owner(root: &Path) -> Option<Owner> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(root).ok()?;
    if !meta.is_dir() || meta.uid() != nix::unistd::geteuid().as_raw() {
        return None;
    }
    Owner::read(root).filter(|owner| !owner.is_alive())
}

/// Kills what still carries the sandbox's marker, removes the copied token first,
/// then the folder; true when this call removed it.
fn remove_stale(root: &Path, owner: &Owner) -> bool {
    agy_process::sweep_marked(&owner.marker, Duration::from_secs(2));
    super::remove_token(root);
    std::fs::remove_dir_all(root).is_ok()
}

#[cfg(test)]
mod tests {
    use super::super::owner::OWNER_FILE;
    use super::*;
    use agy_process::MARKER_ENV;
    use std::process::{Child, Command, Stdio};

    /// A process that waits on its stdin, carrying `marker` when given.
    fn waiting(marker: Option<&str>) -> Child {
        let mut cmd = Command::new("/bin/cat");
        cmd.stdin(Stdio::piped()).stdout(Stdio::null());
        if let Some(m) = marker {
            cmd.env(MARKER_ENV, m);
        }
        cmd.spawn().expect("spawns cat")
    }

    /// A sandbox folder in `parent` owned by `pid`, as the harness writes it.
    fn sandbox_of(parent: &Path, name: &str, pid: u32) -> (PathBuf, Owner) {
        let root = parent.join(name);
        let token = root.join("home/.gemini/antigravity-cli");
        std::fs::create_dir_all(&token).expect("mkdir");
        std::fs::write(token.join("antigravity-oauth-token"), "secret").expect("token");
        let owner = Owner {
            pid,
            start: agy_process::start_time(pid).expect("running"),
            marker: root.display().to_string(),
        };
        owner.write(&root).expect("owner");
        (root, owner)
    }

    #[test]
    fn a_dead_owners_sandbox_goes_with_its_processes_and_the_rest_stays() {
        let parent = tempfile::tempdir().expect("parent");
        let mut owner = waiting(None);
        let (stale, _) = sandbox_of(parent.path(), "agy-harness-dead01", owner.id());
        let mut stray = waiting(Some(&stale.display().to_string()));
        owner.kill().expect("SIGKILL");
        owner.wait().expect("reaped");
        let (live, _) = sandbox_of(parent.path(), "agy-harness-live01", std::process::id());
        let foreign = parent.path().join("agy-harness-noowner");
        std::fs::create_dir_all(&foreign).expect("mkdir");
        let catalogue = parent.path().join("agy-harness-1000-scenarios-00ff");
        std::fs::create_dir_all(&catalogue).expect("mkdir");
        std::fs::copy(stale.join(OWNER_FILE), catalogue.join(OWNER_FILE)).expect("copy");

        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!stale.exists(), "the dead owner's sandbox is removed");
        let status = stray.wait().expect("the stray ends");
        assert!(!status.success(), "the stray was killed: {status:?}");
        assert!(
            live.join(OWNER_FILE).is_file(),
            "a live owner's sandbox stays"
        );
        assert!(foreign.is_dir(), "a folder without an owner file stays");
        assert!(
            catalogue.is_dir(),
            "the catalogue's folders are not sandboxes"
        );
        assert_eq!(sweep_stale(parent.path()), 0);
    }

    #[test]
    fn a_symlink_to_a_stale_sandbox_is_not_followed() {
        let outside = tempfile::tempdir().expect("outside");
        let parent = tempfile::tempdir().expect("parent");
        let mut owner = waiting(None);
        let (stale, _) = sandbox_of(outside.path(), "agy-harness-dead02", owner.id());
        owner.kill().expect("SIGKILL");
        owner.wait().expect("reaped");
        let link = parent.path().join("agy-harness-link02");
        std::os::unix::fs::symlink(&stale, &link).expect("symlink");
        assert_eq!(sweep_stale(parent.path()), 0);
        assert!(stale.join(OWNER_FILE).is_file(), "the target outside stays");
        assert!(std::fs::symlink_metadata(&link).is_ok(), "the link stays");
    }
}
