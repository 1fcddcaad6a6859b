//! Removing what a sandbox holds without following a link: every folder on the way is
//! opened from the one before it with `O_NOFOLLOW | O_DIRECTORY`, starting at the
//! sandbox root, and the file is unlinked from the last one's descriptor. A sandbox
//! whose `home`, `.gemini` or `antigravity-cli` is a link (an adapter reusing the
//! user's profile, a crafted stale folder) loses nothing behind the link; the link
//! itself goes with the folder (`std::fs::remove_dir_all` removes links, never what
//! they point at).

use nix::fcntl::{openat, OFlag, AT_FDCWD};
use nix::sys::stat::Mode;
use nix::unistd::{unlinkat, UnlinkatFlags};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

/// The folders from a sandbox root to the copied sign-in token.
const TOKEN_FOLDERS: [&str; 3] = ["home", super::PROFILE_DIRS[0], super::PROFILE_DIRS[1]];

/// The folder `name` in the folder open as `dir`; `None` when it is a link, not a
/// folder, or absent.
fn open_sub(dir: BorrowedFd<'_>, name: &str) -> Option<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    openat(dir, name, flags, Mode::empty()).ok()
}

/// The folder at `path`, opened without following a link in its last part; `None`
/// when that part is a link, not a folder, or absent.
pub fn open_dir(path: &Path) -> Option<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    openat(AT_FDCWD, path, flags, Mode::empty()).ok()
}

/// Removes the sign-in token `--credentials copy` put into the sandbox open as
/// `root`, when every folder on its way is a real folder of the sandbox.
pub fn remove_token_at(root: BorrowedFd<'_>) {
    let mut dir: Option<OwnedFd> = None;
    for name in TOKEN_FOLDERS {
        let next = match &dir {
            None => open_sub(root, name),
            Some(d) => open_sub(d.as_fd(), name),
        };
        let Some(next) = next else { return };
        dir = Some(next);
    }
    if let Some(profile) = dir {
        let _ = unlinkat(
            profile.as_fd(),
            super::TOKEN_FILE,
            UnlinkatFlags::NoRemoveDir,
        );
    }
}

/// [`remove_token_at`] for the sandbox at `root` (itself not a link).
pub fn remove_token(root: &Path) {
    if let Some(dir) = open_dir(root) {
        remove_token_at(dir.as_fd());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_that_is_a_link_goes_and_what_it_names_stays() {
        let root = tempfile::tempdir().expect("root");
        let outside = tempfile::tempdir().expect("outside");
        let real = outside.path().join("token");
        std::fs::write(&real, "real").expect("write");
        let profile = root.path().join("home/.gemini/antigravity-cli");
        std::fs::create_dir_all(&profile).expect("mkdir");
        let link = profile.join(super::super::TOKEN_FILE);
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        remove_token(root.path());
        assert!(std::fs::symlink_metadata(&link).is_err(), "the link goes");
        assert!(real.is_file(), "the file it named stays");
    }

    #[test]
    fn a_root_that_is_a_link_is_not_entered() {
        let outside = tempfile::tempdir().expect("outside");
        let token = outside
            .path()
            .join("home/.gemini/antigravity-cli/antigravity-oauth-token");
        std::fs::create_dir_all(token.parent().expect("profile")).expect("mkdir");
        std::fs::write(&token, "real").expect("write");
        let parent = tempfile::tempdir().expect("parent");
        let link = parent.path().join("agy-harness-link");
        std::os::unix::fs::symlink(outside.path(), &link).expect("symlink");
        remove_token(&link);
        assert!(token.is_file());
    }
}
