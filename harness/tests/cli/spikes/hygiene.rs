//! No process outlives its probe run: not agy, not what agy started in a session of its
//! own.

use agy_harness::spike::{parse_spike, run_probe, Target};
use agy_process::is_running;
use agy_protocol::diag::SourceFile;
use std::os::unix::fs::PermissionsExt;

#[tokio::test(flavor = "multi_thread")]
async fn a_child_that_escaped_the_group_is_gone_when_the_run_ends() {
    let dir = tempfile::tempdir().expect("dir");
    let pidfile = dir.path().join("child.pid");
    let agy = dir.path().join("agy");
    std::fs::write(
        &agy,
        format!(
            // The child writes its pid only once it is in a session of its own, and the
            // script waits for that, so the child has left the group before agy exits.
            "#!/bin/sh\nsetsid sh -c 'echo $$ > {p}.tmp && mv {p}.tmp {p} && exec sleep 300' </dev/null >/dev/null 2>&1 &\nwhile [ ! -s {p} ]; do :; done\necho '{{\"status\":\"SUCCESS\"}}'\n",
            p = pidfile.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&agy, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let spike = parse_spike(&SourceFile::new(
        "S9.toml",
        "[spike]\nid = \"S9\"\ntitle = \"t\"\nquestion = \"q\"\n[[probe]]\nname = \"p\"\nargv = [\"-p\", \"x\", \"--output-format\", \"json\"]\n",
    ))
    .unwrap_or_else(|d| panic!("{d}"));
    let target = Target::fake(agy, agy_protocol::TimeScale::ONE);
    let runs = run_probe("S9", &spike.probes[0], &target, None).await;
    assert_eq!(runs[0].exit_code, Some(0), "{:?}", runs[0]);
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .expect("the stand-in wrote its child's pid")
        .trim()
        .parse()
        .expect("pid");
    assert!(
        !is_running(pid, None),
        "the escaped child {pid} outlived the run"
    );
}
