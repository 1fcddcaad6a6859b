//! Whether a process is alive, and which processes belong to a sandbox: every process
//! a sandbox starts inherits [`MARKER_ENV`], whose value names the sandbox.
//!
//! Reads `/proc`, so it works on Linux; elsewhere [`is_running`] falls back to
//! signal 0 and nothing carries a marker.

use agy_protocol::env::AGY_HARNESS_SANDBOX;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// The environment variable every process of a sandbox inherits; its value is the
/// sandbox path, so a sweep can find strays of exactly that sandbox.
pub const MARKER_ENV: &str = AGY_HARNESS_SANDBOX;

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// The state letter (`R`, `S`, `Z`, …).
    pub state: char,
    /// The parent's pid.
    pub ppid: u32,
    /// The process group.
    pub pgid: u32,
    /// When the process started, in clock ticks after boot (field 22).
    pub start: u64,
}

/// Reads `/proc/<pid>/stat`; `None` when the process is gone or procfs is missing.
pub(crate) fn proc_stat(pid: u32) -> Option<ProcStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything, `)` included.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    // Fields 6 to 21 (session … itrealvalue) stand between the group and the start.
    let start = fields.nth(16)?.parse().ok()?;
    Some(ProcStat {
        state,
        ppid,
        pgid,
        start,
    })
}

/// When the live process `pid` started, in clock ticks after boot (`/proc/<pid>/stat`
/// field 22); `None` when it is gone, a zombie, or procfs is missing. A pid with its
/// start time names one process: a pid the kernel gave again has another start.
pub fn start_time(pid: u32) -> Option<u64> {
    proc_stat(pid)
        .filter(|s| !matches!(s.state, 'Z' | 'X'))
        .map(|s| s.start)
}

/// Every pid under `/proc`.
pub(crate) fn all_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .collect()
}

/// True when `pid` is a live process (not a zombie); with `marker`, only when it also
/// carries the sandbox marker (so a reused pid is not mistaken for ours).
pub fn is_running(pid: u32, marker: Option<&str>) -> bool {
    if !std::path::Path::new("/proc/self").exists() {
        return marker.is_none()
            && i32::try_from(pid)
                .map(|p| kill(Pid::from_raw(p), None).is_ok())
                .unwrap_or(false);
    }
    match proc_stat(pid) {
        Some(s) if !matches!(s.state, 'Z' | 'X') => marker.is_none_or(|m| has_marker(pid, m)),
        _ => false,
    }
}

fn has_marker(pid: u32, marker: &str) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let needle = format!("{MARKER_ENV}={marker}");
    env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
}

/// Every live process carrying `marker`, except this one.
pub fn marked_processes(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    all_pids()
        .into_iter()
        .filter(|pid| *pid != me && is_running(*pid, Some(marker)))
        .collect()
}

/// Every live member of process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    all_pids()
        .into_iter()
        .filter(|pid| {
            proc_stat(*pid).is_some_and(|s| s.pgid == pgid && !matches!(s.state, 'Z' | 'X'))
        })
        .collect()
}

/// Every live descendant of `root` (children, their children, …), nearest first.
pub fn descendants(root: u32) -> Vec<u32> {
    let stats: Vec<(u32, ProcStat)> = all_pids()
        .into_iter()
        .filter_map(|pid| proc_stat(pid).map(|s| (pid, s)))
        .collect();
    let mut found = vec![root];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        let children: Vec<u32> = stats
            .iter()
            .filter(|(pid, s)| s.ppid == parent && !found.contains(pid))
            .map(|(pid, _)| *pid)
            .collect();
        found.extend(children);
        next += 1;
    }
    found.remove(0);
    found.retain(|pid| {
        stats
            .iter()
            .any(|(p, s)| p == pid && !matches!(s.state, 'Z' | 'X'))
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_and_carries_no_marker() {
        let me = std::process::id();
        assert!(is_running(me, None));
        assert!(!is_running(me, Some("/no/such/sandbox")));
        assert_eq!(
            proc_stat(me).map(|s| s.ppid),
            u32::try_from(nix::unistd::getppid().as_raw()).ok()
        );
    }

    #[test]
    fn a_child_is_a_descendant_and_a_member_of_its_group() {
        let mut child = std::process::Command::new("/bin/sleep")
            .arg("30")
            .spawn()
            .expect("spawns");
        let pid = child.id();
        assert!(descendants(std::process::id()).contains(&pid));
        let pgid = proc_stat(pid).map(|s| s.pgid).expect("stat");
        assert!(group_members(pgid).contains(&pid));
        let _ = child.kill();
        let _ = child.wait();
        assert!(!is_running(pid, None));
    }

    #[test]
    fn start_time_is_field_22_and_gone_with_the_process() {
        let me = std::process::id();
        // The test binary's name holds no space, so a plain split finds field 22.
        let stat = std::fs::read_to_string("/proc/self/stat").expect("stat");
        let field_22: u64 = stat
            .split(' ')
            .nth(21)
            .and_then(|f| f.parse().ok())
            .expect("22");
        assert_eq!(start_time(me), Some(field_22));
        let mut child = std::process::Command::new("/bin/sleep")
            .arg("30")
            .spawn()
            .expect("spawns");
        let pid = child.id();
        assert!(start_time(pid).is_some_and(|t| t >= field_22));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(start_time(pid), None);
    }
}
