//! oneshot against print-mode stand-ins: argv, outcome rows, kill, concurrency.

use crate::support::*;
use agy_protocol::driver::Outcome;
use agy_protocol::env::AGY_BIN;
use serde_json::json;
use std::path::Path;

/// A caller timeout no stand-in start comes near, for the runs whose class comes from
/// what agy printed.
const STANDIN_START_BOUND_S: f64 = 120.0;

fn generate(timeout_s: f64) -> serde_json::Value {
    json!({"op": "generate", "prompt": "a purple hexagon", "aspect": "16:9", "timeout_s": timeout_s})
}

#[tokio::test]
async fn hello_names_the_driver_and_its_profiles() {
    let sb = Sandbox::new(PRINT_AGY);
    let mut d = sb.driver(&[]);
    let r = d.call(json!({"op": "hello"})).await;
    assert!(r.ok);
    assert_eq!(r.result.driver.as_deref(), Some("agy-reference-adapter"));
    assert_eq!(
        r.result.profiles,
        [
            agy_protocol::Profile::Oneshot,
            agy_protocol::Profile::Session,
            agy_protocol::Profile::Acp,
            agy_protocol::Profile::Text
        ]
    );
    assert!(d.finish().await.success());
}

#[tokio::test]
async fn one_image_is_delivered_as_a_decodable_copy_with_the_adr_argv() {
    let sb = Sandbox::new(PRINT_AGY);
    let mut d = sb.driver(&[]);
    let r = d.call(generate(600.0)).await;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.outcome, Some(Outcome::Success));
    let image = r.result.image.expect("image path");
    assert!(Path::new(&image).starts_with(sb.path("state")), "{image}");
    assert_eq!(decodes_as_jpeg(Path::new(&image)), (64, 36));

    let argv = &sb.argvs()[0];
    let work = sb.path("work").display().to_string();
    assert_eq!(argv[0], "-p");
    assert!(argv[1].contains("16:9 widescreen"), "{}", argv[1]);
    assert_eq!(
        argv[2..],
        [
            "--output-format",
            "json",
            "--add-dir",
            &work,
            "--print-timeout",
            "600s"
        ]
    );
    assert_eq!(sb.events("start")[0]["cwd"], json!(work));
    assert!(d.finish().await.success());
}

#[tokio::test]
async fn outcome_rows_reach_the_harness_with_class_and_retryable() {
    let cases = [
        (
            "print-timeout",
            Outcome::Timeout,
            true,
            "ProviderTimeoutError",
        ),
        ("quota", Outcome::Transient, true, "ProviderTransientError"),
        ("auth", Outcome::Auth, false, "ProviderAuthError"),
        (
            "garbage",
            Outcome::Permanent,
            false,
            "ProviderPermanentError",
        ),
        (
            "two-images",
            Outcome::OutputMissing,
            false,
            "ProviderOutputMissingError",
        ),
    ];
    for (mode, class, retryable, name) in cases {
        let mut sb = Sandbox::new(PRINT_AGY);
        sb.set("STANDIN_MODE", mode);
        let mut d = sb.driver(&[]);
        // The class comes from what the stand-in prints, not from the clock: a caller
        // timeout of one second let a stand-in slow to start on a loaded machine be
        // classed a timeout.
        let r = d.call(generate(STANDIN_START_BOUND_S)).await;
        assert!(!r.ok, "{mode}: {r:?}");
        assert_eq!(r.outcome, Some(class), "{mode}");
        assert_eq!(r.retryable, Some(retryable), "{mode}");
        assert_eq!(
            r.error.as_ref().map(|e| e.name.as_str()),
            Some(name),
            "{mode}"
        );
        assert!(d.finish().await.success());
    }
}

#[tokio::test]
async fn faults_turn_the_same_runs_into_the_bugs() {
    let cases = [
        (
            "print-timeout",
            "missing-output-before-timeout",
            Outcome::OutputMissing,
        ),
        ("print-timeout", "trusts-success", Outcome::Success),
        ("quota", "no-quota-detection", Outcome::OutputMissing),
        ("two-images", "first-of-many-images", Outcome::Success),
    ];
    for (mode, fault, class) in cases {
        let mut sb = Sandbox::new(PRINT_AGY);
        sb.set("STANDIN_MODE", mode);
        let mut d = sb.driver(&[fault]);
        let r = d.call(generate(STANDIN_START_BOUND_S)).await;
        assert_eq!(r.outcome, Some(class), "{fault}: {r:?}");
        assert!(d.finish().await.success());
    }
}

#[tokio::test]
async fn skip_permissions_appears_only_when_asked_or_under_its_fault() {
    let sb = Sandbox::new(PRINT_AGY);
    let mut d = sb.driver(&[]);
    d.call(generate(1.0)).await;
    let mut req = generate(1.0);
    req["settings"] = json!({"skip_permissions": true, "model": "m", "effort": "low"});
    d.call(req).await;
    d.finish().await;
    let mut faulty = Sandbox::new(PRINT_AGY);
    faulty.set("STANDIN_LOG", &sb.path("agy.log").display().to_string());
    let mut d = faulty.driver(&["skip-permissions-by-default"]);
    d.call(generate(1.0)).await;
    d.finish().await;

    let argvs = sb.argvs();
    let has = |i: usize| {
        argvs[i]
            .iter()
            .any(|a| a == "--dangerously-skip-permissions")
    };
    assert!(!has(0));
    assert!(has(1));
    assert_eq!(
        argvs[1][argvs[1].len() - 5..],
        [
            "--dangerously-skip-permissions",
            "--model",
            "m",
            "--effort",
            "low"
        ]
    );
    assert!(has(2));
    assert!(argvs
        .iter()
        .flatten()
        .all(|a| a != "--conversation" && a != "--continue"));
}

#[tokio::test]
async fn a_hung_agy_is_killed_with_its_process_group_and_reported_as_a_retryable_timeout() {
    let mut sb = Sandbox::new(PRINT_AGY);
    // Scaled deadline: (1 s + 30 s) × 0.1 = 3.1 s, ample for the stand-in to start its child.
    sb.set("STANDIN_MODE", "hang");
    let mut d = sb.driver(&[]);
    let r = d.call(generate(1.0)).await;
    assert_eq!(r.outcome, Some(Outcome::Timeout), "{r:?}");
    assert_eq!(r.retryable, Some(true));
    let agy = sb.pids()[0];
    let grandchild = sb.events("grandchild")[0]["child"].as_i64().expect("pid") as i32;
    assert!(gone(agy).await, "agy {agy} survived");
    assert!(gone(grandchild).await, "its child {grandchild} survived");
    // SIGKILL, not SIGTERM: the stand-in traps TERM and would have logged it.
    assert!(sb.events("signal").is_empty());
    d.finish().await;
}

#[tokio::test]
async fn a_missing_binary_is_permanent_with_an_install_hint() {
    let mut sb = Sandbox::new(PRINT_AGY);
    sb.set(AGY_BIN, "/nonexistent/agy");
    let mut d = sb.driver(&[]);
    let r = d.call(generate(1.0)).await;
    assert_eq!(
        (r.outcome, r.retryable),
        (Some(Outcome::Permanent), Some(false))
    );
    let message = r.error.expect("error").message;
    assert!(message.contains("install Antigravity CLI"), "{message}");
    d.finish().await;
}

#[tokio::test]
async fn at_most_two_generations_run_at_once() {
    let mut sb = Sandbox::new(PRINT_AGY);
    sb.set("STANDIN_MODE", "barrier");
    let mut d = sb.driver(&[]);
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(d.send(generate(60.0)).await);
    }
    for id in ids.iter().rev() {
        let r = d.reply(*id).await;
        assert!(r.ok, "{r:?}");
    }
    let counts = std::fs::read_to_string(sb.path("agy.log.running")).expect("counter");
    let high: Vec<u32> = counts
        .split_whitespace()
        .map(|n| n.parse().expect("int"))
        .collect();
    assert_eq!(high, [0, 2], "running now / high-water mark");
    d.finish().await;
}

#[tokio::test]
async fn a_request_line_that_is_not_utf8_is_skipped() {
    let sb = Sandbox::new(PRINT_AGY);
    let mut d = sb.driver(&[]);
    d.raw(b"\xff\xfe\n").await;
    let r = d.call(json!({"op": "hello"})).await;
    assert!(r.ok);
    d.finish().await;
}
