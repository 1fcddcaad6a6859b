//! The owner file of a sandbox: which sandbox folder it belongs to (the marker its
//! processes carry, which is the folder's path) and, for a person looking, which
//! harness process made it. The harness that made the sandbox holds an exclusive
//! `flock` on this file for as long as the sandbox lives ([`Held`]); the kernel drops
//! that lock when the process ends, however it ends. A later harness takes a sandbox
//! for stale only when it gets the lock itself ([`Owner::try_lock`]): a pid proves
//! nothing across pid namespaces (a run in a container sharing the temp folder) and can
//! be given again, a lock held on a shared file system can. A kept sandbox loses the
//! file, so it is never removed.

use nix::fcntl::{Flock, FlockArg, OFlag};
use nix::sys::stat::Mode;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::BorrowedFd;
use std::path::Path;

/// The file's name in the sandbox root.
pub const OWNER_FILE: &str = ".agy-harness-owner";

/// The first line of every owner file: what wrote it, and in which format. Version 1
/// files (owners proven dead by a pid) are not read: their owners held no lock.
const HEADER: &str = "agy-harness sandbox owner v2";

/// The most of an owner file read: a longer one is not ours.
const MAX_BYTES: u64 = 8192;

/// What an owner file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The pid of the harness that made the sandbox, as its pid namespace saw it: for
    /// a person looking, never taken as proof that it runs or is gone.
    pub pid: u32,
    /// The marker the sandbox's processes carry (`AGY_HARNESS_SANDBOX`): the path of
    /// the sandbox folder itself.
    pub marker: String,
}

/// The owner file of a live sandbox, opened and exclusively locked by its harness; the
/// lock goes when this is dropped or the process ends.
#[derive(Debug)]
pub struct Held {
    _lock: Flock<File>,
}

impl Owner {
    /// This process as the owner of the sandbox whose processes carry `marker`.
    pub fn this_process(marker: &str) -> Owner {
        Owner {
            pid: std::process::id(),
            marker: marker.to_string(),
        }
    }

    /// The file's text.
    pub fn render(&self) -> String {
        format!("{HEADER}\npid {}\nmarker {}\n", self.pid, self.marker)
    }

    /// Reads the text [`Owner::render`] writes; `None` for anything else (another
    /// version's file, a cut one, one with a line more or less).
    pub fn parse(text: &str) -> Option<Owner> {
        let body = text.strip_suffix('\n')?;
        let mut lines = body.split('\n');
        if lines.next()? != HEADER {
            return None;
        }
        let pid = lines.next()?.strip_prefix("pid ")?.parse().ok()?;
        let marker = lines.next()?.strip_prefix("marker ")?;
        if marker.is_empty() || lines.next().is_some() {
            return None;
        }
        Some(Owner {
            pid,
            marker: marker.to_string(),
        })
    }

    /// Writes the file into `root` and keeps it locked: the lock is taken on a part
    /// file before it is written and renamed over the owner file, so no sweep ever
    /// finds the file whole and unlocked while this sandbox lives. `None` on a file
    /// system without `flock`: then no owner file is written, and no sweep removes
    /// the sandbox.
    pub fn claim(&self, root: &Path) -> io::Result<Option<Held>> {
        let part = root.join(format!("{OWNER_FILE}.part"));
        // std opens with O_CLOEXEC: no child inherits the descriptor and with it the lock.
        let file = File::create_new(&part)?;
        let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => lock,
            Err((_, nix::errno::Errno::ENOLCK | nix::errno::Errno::EOPNOTSUPP)) => {
                let _ = std::fs::remove_file(&part);
                return Ok(None);
            }
            Err((_, errno)) => return Err(errno.into()),
        };
        lock.write_all(self.render().as_bytes())?;
        std::fs::rename(&part, root.join(OWNER_FILE))?;
        Ok(Some(Held { _lock: lock }))
    }

    /// The owner file in the folder open as `root`, opened without following a link
    /// or blocking on a FIFO, when it is a regular file that parses.
    pub fn read_at(root: BorrowedFd<'_>) -> Option<(Owner, File)> {
        let flags = OFlag::O_RDONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let fd = nix::fcntl::openat(root, OWNER_FILE, flags, Mode::empty()).ok()?;
        let file = File::from(fd);
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        let mut text = String::new();
        (&file).take(MAX_BYTES).read_to_string(&mut text).ok()?;
        Some((Owner::parse(&text)?, file))
    }

    /// The owner file in `root`, when it is a regular file that parses.
    #[cfg(test)]
    pub fn read(root: &Path) -> Option<Owner> {
        use std::os::fd::AsFd;
        let dir = super::removal::open_dir(root)?;
        Owner::read_at(dir.as_fd()).map(|(owner, _)| owner)
    }

    /// The lock on an owner file `file`, when no live process holds it: proof that the
    /// harness that made the sandbox has ended. `None` while any process anywhere
    /// holds it (an owner in another pid namespace, another sweep removing it now).
    pub fn try_lock(file: File) -> Option<Flock<File>> {
        Flock::lock(file, FlockArg::LockExclusiveNonblock).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_claimed_file_cannot_be_locked_until_its_owner_lets_go() {
        let root = tempfile::tempdir().expect("root");
        let held = Owner::this_process("/s/agy-harness-x")
            .claim(root.path())
            .expect("claims");
        let open = || File::open(root.path().join(OWNER_FILE)).expect("opens");
        // flock locks belong to an open file: a second open, even in this process,
        // meets the lock as another process would.
        assert!(Owner::try_lock(open()).is_none(), "the owner holds it");
        drop(held);
        assert!(Owner::try_lock(open()).is_some(), "an ended owner does not");
        assert!(!root.path().join(format!("{OWNER_FILE}.part")).exists());
    }

    #[test]
    fn a_cut_or_foreign_file_does_not_parse() {
        let whole = "agy-harness sandbox owner v2\npid 12345\nmarker /t/agy-harness-a\n";
        assert_eq!(
            Owner::parse(whole),
            Some(Owner {
                pid: 12345,
                marker: "/t/agy-harness-a".into()
            })
        );
        for bad in [
            &whole[..whole.len() - 1],
            "agy-harness sandbox owner v2\npid 12345\nmar",
            "agy-harness sandbox owner v1\npid 12345\nstart 678\nmarker /t/a\n",
            "pid 12345\nmarker /t/a\n",
            "agy-harness sandbox owner v2\npid 12345\nmarker \n",
            "agy-harness sandbox owner v2\npid -1\nmarker /t/a\n",
            "",
        ] {
            assert_eq!(Owner::parse(bad), None, "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn render_and_parse_round_trip(pid: u32, marker in "/[^\n]{0,40}") {
            let owner = Owner { pid, marker };
            prop_assert_eq!(Owner::parse(&owner.render()), Some(owner));
        }

        #[test]
        fn parse_never_panics_and_no_cut_file_parses(text in "[ -~\n]{0,120}", cut in 0usize..120) {
            let _ = Owner::parse(&text);
            let owner = Owner { pid: 7, marker: "/m".into() };
            let full = owner.render();
            let cut = cut.min(full.len() - 1);
            prop_assert_eq!(Owner::parse(&full[..cut]), None);
        }
    }
}
