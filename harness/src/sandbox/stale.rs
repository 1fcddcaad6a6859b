//! Sandboxes of runs that ended without removing them (a harness killed with SIGKILL,
//! a machine that lost power): the first sandbox a harness makes in a folder removes,
//! in that folder, each `agy-harness-*` sandbox that is provably stale, after killing
//! whatever still carries its marker. Provably stale means all of:
//!
//! - the folder is a real, private folder of this user (opened with `O_NOFOLLOW`, so a
//!   link is never entered);
//! - its owner file parses and names that very folder: its marker has the folder's
//!   name and is the same folder, not a link to it (a `cp -a` copy's file names the
//!   original, a crafted file another sandbox: both are left, and the marker of another
//!   folder's processes is never used to kill);
//! - the sweep gets the exclusive `flock` on the owner file, which the harness that made
//!   the sandbox holds for the sandbox's whole life: the kernel releases it only when
//!   that process ends, in whichever pid namespace it ran (see `owner`).
//!
//! Everything else (another program's folder, an older kit's, a kept sandbox without
//! an owner file, another user's, a live owner's) is left alone. The removal goes
//! through descriptors from the folder: the copied token first, never through a link.

use super::owner::Owner;
use super::removal;
use nix::fcntl::Flock;
use nix::sys::stat::{fstat, FileStat};
use std::collections::HashSet;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
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
        .filter(|e| sweep_one(&e.path()))
        .count()
}

/// `agy-harness-` and a random part without `-`.
fn is_sandbox_name(name: &str) -> bool {
    name.strip_prefix(SANDBOX_PREFIX)
        .is_some_and(|rest| !rest.is_empty() && !rest.contains('-'))
}

/// Removes the sandbox at `root` when it is stale: kills what still carries its
/// marker, removes the copied token, then the folder, all while holding its owner's
/// lock (so two sweeps never remove one folder); true when this call removed it.
fn sweep_one(root: &Path) -> bool {
    let Some(dir) = removal::open_dir(root) else {
        return false;
    };
    let Some((owner, _lock)) = stale_owner(root, dir.as_fd()) else {
        return false;
    };
    agy_process::sweep_marked(&owner.marker, Duration::from_secs(2));
    removal::remove_token_at(dir.as_fd());
    // Still the folder checked (not renamed and replaced meanwhile): std removes a
    // link found in its place, or in it, never what the link names.
    let Ok(now) = fstat(dir.as_fd()) else {
        return false;
    };
    is_folder(root, &now) && std::fs::remove_dir_all(root).is_ok()
}

/// The owner of the folder open as `dir` (at `root`) and its lock, when the folder is
/// private to this user, its owner file names it, and that file's lock is free.
fn stale_owner(root: &Path, dir: BorrowedFd<'_>) -> Option<(Owner, Flock<File>)> {
    let stat = fstat(dir).ok()?;
    let private = stat.st_mode & 0o077 == 0;
    if !private || stat.st_uid != nix::unistd::geteuid().as_raw() {
        return None;
    }
    let (owner, file) = Owner::read_at(dir)?;
    let names_it = Path::new(&owner.marker).file_name() == root.file_name()
        && is_folder(Path::new(&owner.marker), &stat);
    if !names_it {
        return None;
    }
    Some((owner, Owner::try_lock(file)?))
}

/// True when `path` (its last part not followed) is the folder `stat` describes.
fn is_folder(path: &Path, stat: &FileStat) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.is_dir() && m.dev() == stat.st_dev && m.ino() == stat.st_ino)
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

    /// Ends `child` and says whether it was still running until then.
    fn was_running(mut child: Child) -> bool {
        let running = matches!(child.try_wait(), Ok(None));
        let _ = child.kill();
        let _ = child.wait();
        running
    }

    /// The pid of a process that has ended.
    fn dead_pid() -> u32 {
        let mut gone = Command::new("/bin/true").spawn().expect("spawns true");
        gone.wait().expect("reaped");
        gone.id()
    }

    /// A private folder `name` in `parent` holding a copied token and the owner file
    /// `owner` names, as a harness that has ended left it (the file unlocked).
    fn sandbox_with(parent: &Path, name: &str, owner: impl Fn(&Path) -> Owner) -> PathBuf {
        let root = parent.join(name);
        std::fs::create_dir(&root).expect("mkdir");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let profile = root.join("home/.gemini/antigravity-cli");
        std::fs::create_dir_all(&profile).expect("mkdir");
        std::fs::write(profile.join("antigravity-oauth-token"), "secret").expect("token");
        drop(owner(&root).claim(&root).expect("owner"));
        root
    }

    /// [`sandbox_with`] an owner file naming the folder itself and a dead pid.
    fn stale_sandbox(parent: &Path, name: &str) -> PathBuf {
        sandbox_with(parent, name, |root| Owner {
            pid: dead_pid(),
            marker: root.display().to_string(),
        })
    }

    #[test]
    fn an_unlocked_sandbox_goes_with_its_processes_and_the_rest_stays() {
        let parent = tempfile::tempdir().expect("parent");
        let stale = stale_sandbox(parent.path(), "agy-harness-dead01");
        let stray = waiting(Some(&stale.display().to_string()));
        let live = stale_sandbox(parent.path(), "agy-harness-live01");
        let _held = Owner::this_process(&live.display().to_string())
            .claim(&live)
            .expect("a live owner");
        let foreign = parent.path().join("agy-harness-noowner");
        std::fs::create_dir_all(&foreign).expect("mkdir");
        let catalogue = parent.path().join("agy-harness-1000-scenarios-00ff");
        std::fs::create_dir_all(&catalogue).expect("mkdir");
        std::fs::copy(stale.join(OWNER_FILE), catalogue.join(OWNER_FILE)).expect("copy");

        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!stale.exists(), "the ended owner's sandbox is removed");
        assert!(!was_running(stray), "its stray was killed");
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
        let stale = stale_sandbox(outside.path(), "agy-harness-dead02");
        let link = parent.path().join("agy-harness-link02");
        std::os::unix::fs::symlink(&stale, &link).expect("symlink");
        assert_eq!(sweep_stale(parent.path()), 0);
        assert!(stale.join(OWNER_FILE).is_file(), "the target outside stays");
        assert!(std::fs::symlink_metadata(&link).is_ok(), "the link stays");
    }

    #[test]
    fn a_stale_sandbox_whose_home_links_to_a_real_home_keeps_that_homes_token() {
        let parent = tempfile::tempdir().expect("parent");
        let outside = tempfile::tempdir().expect("outside");
        let token = outside
            .path()
            .join(".gemini/antigravity-cli/antigravity-oauth-token");
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "real token").expect("token");
        let stale = stale_sandbox(parent.path(), "agy-harness-home03");
        std::fs::remove_dir_all(stale.join("home")).expect("rm");
        std::os::unix::fs::symlink(outside.path(), stale.join("home")).expect("symlink");
        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!stale.exists(), "the stale sandbox and its link go");
        assert_eq!(
            std::fs::read_to_string(&token).ok().as_deref(),
            Some("real token")
        );
    }

    #[test]
    fn an_owner_file_naming_another_folder_kills_nothing_and_removes_nothing() {
        let parent = tempfile::tempdir().expect("parent");
        let elsewhere = tempfile::tempdir().expect("elsewhere");
        let victim_marker = elsewhere
            .path()
            .join("agy-harness-victim")
            .display()
            .to_string();
        let victim = waiting(Some(&victim_marker));
        let crafted = sandbox_with(parent.path(), "agy-harness-craft04", |_| Owner {
            pid: dead_pid(),
            marker: victim_marker.clone(),
        });
        assert_eq!(sweep_stale(parent.path()), 0);
        assert!(
            was_running(victim),
            "a process of another marker is never killed"
        );
        assert!(crafted.join("home").is_dir(), "the folder is left");
    }

    #[test]
    fn a_copy_of_a_sandbox_stays_when_the_original_is_swept() {
        let parent = tempfile::tempdir().expect("parent");
        let original = stale_sandbox(parent.path(), "agy-harness-orig05");
        let copy = parent.path().join("agy-harness-copy05");
        let copied = Command::new("cp")
            .arg("-a")
            .arg(&original)
            .arg(&copy)
            .status();
        assert!(copied.is_ok_and(|s| s.success()), "cp -a");
        std::fs::write(copy.join("notes.txt"), "mine").expect("notes");
        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!original.exists(), "the original is stale");
        assert!(
            copy.join("notes.txt").is_file(),
            "its copy names the original: it stays"
        );
    }

    #[test]
    fn a_held_lock_keeps_a_sandbox_whose_pid_is_dead_here() {
        // A run in another pid namespace: its pid means nothing here, its lock does.
        let parent = tempfile::tempdir().expect("parent");
        let root = stale_sandbox(parent.path(), "agy-harness-ns06");
        let marker = root.display().to_string();
        let holder = Owner::try_lock(File::open(root.join(OWNER_FILE)).expect("open"));
        assert!(holder.is_some(), "the other run holds the lock");
        let running = waiting(Some(&marker));
        assert_eq!(sweep_stale(parent.path()), 0);
        assert!(was_running(running), "the other run's process lives");
        assert!(root.join("home").is_dir(), "its sandbox stays");
        drop(holder);
        assert_eq!(sweep_stale(parent.path()), 1, "once it ends, it is stale");
    }
}
