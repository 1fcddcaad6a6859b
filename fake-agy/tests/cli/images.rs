//! Images in the brain dir: real JPEGs of the S3 sizes, scripted counts, corrupt files.

use crate::support::{jpeg_size, json_lines, Sandbox};
use agy_protocol::env::FAKE_AGY_VERSION;

fn image_run(sb: &Sandbox, prompt: &str) -> String {
    let out = sb
        .cmd()
        .args(["-p", prompt, "--output-format", "json"])
        .assert()
        .success();
    json_lines(&out.get_output().stdout)[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string()
}

#[test]
fn widescreen_prompt_gives_one_1376_by_768_jpeg() {
    let sb = Sandbox::new();
    let id = image_run(
        &sb,
        "generate an image of a purple hexagon, 16:9 widescreen",
    );
    let files = sb.brain_files(&id);
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0]
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name")
        .to_string();
    assert!(
        regex::Regex::new(r"^purple_hexagon_\d{13}\.jpg$")
            .expect("re")
            .is_match(&name),
        "{name}"
    );
    assert_eq!(jpeg_size(&files[0]), (1376, 768));
    let rec = &sb.journal()[0];
    assert!(
        rec.files.iter().any(|f| f.path.ends_with(&name)),
        "journal lists the image"
    );
}

#[test]
fn no_ratio_gives_a_square_image() {
    let sb = Sandbox::new();
    let id = image_run(&sb, "draw a red circle");
    let files = sb.brain_files(&id);
    assert_eq!(jpeg_size(&files[0]), (1024, 1024));
}

#[test]
fn scripted_images_two_sized_one_corrupt_one_png() {
    let sb = Sandbox::new();
    let out = sb
        .scripted(
            r#"
[[invocation]]
steps = [
  { image = { count = 2, width = 64, height = 32, name = "pair" } },
  { image = { corrupt = true, name = "broken" } },
  { image = { format = "png", width = 8, height = 8, name = "flat" } },
  { envelope = {} },
]
"#,
        )
        .args(["-p", "x", "--output-format", "json"])
        .assert()
        .success();
    let id = json_lines(&out.get_output().stdout)[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    let files = sb.brain_files(&id);
    let names: Vec<String> = files
        .iter()
        .map(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(files.len(), 4, "{names:?}");
    let pairs: Vec<_> = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("pair_"))
        .collect();
    assert_eq!(pairs.len(), 2);
    for p in pairs {
        assert_eq!(jpeg_size(p), (64, 32));
    }
    let broken = files
        .iter()
        .find(|p| p.to_string_lossy().contains("broken_"))
        .expect("corrupt file");
    let bytes = std::fs::read(broken).expect("read");
    assert!(
        zune_jpeg::JpegDecoder::new(bytes.as_slice())
            .decode()
            .is_err(),
        "corrupt must not decode"
    );
    let png = files
        .iter()
        .find(|p| p.extension().and_then(|e| e.to_str()) == Some("png"))
        .expect("png");
    assert!(std::fs::read(png).expect("png").starts_with(b"\x89PNG"));
}

#[test]
fn image_quota_in_prose_leaves_only_empty_subfolders() {
    // docs/spike-records.md S7 correction: SUCCESS, real usage, no image, 429 only in prose.
    let sb = Sandbox::new();
    let out = sb
        .scripted(
            &std::fs::read_to_string(
                crate::support::workspace()
                    .join("scenarios/agy-scripts/image-quota-429-in-success-prose.toml"),
            )
            .expect("script"),
        )
        .args([
            "-p",
            "generate an image of a cat",
            "--output-format",
            "json",
        ])
        .assert()
        .success();
    let env = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(env["status"], "SUCCESS");
    assert!(env["response"]
        .as_str()
        .unwrap_or("")
        .contains("429 Too Many Requests"));
    let id = env["conversation_id"].as_str().expect("id");
    assert!(sb.brain_files(id).is_empty());
    assert!(sb.app_dir().join("brain").join(id).join("scratch").is_dir());
}

/// An image prompt under `version`, its stdout lines.
fn bicycle_run(sb: &Sandbox, version: &str, format: &str) -> Vec<serde_json::Value> {
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, version)
        .args(["-p", "draw a red bicycle", "--output-format", format])
        .assert()
        .success();
    json_lines(&out.get_output().stdout)
}

#[test]
fn from_1_2_16_the_image_generator_subagent_writes_the_image_into_its_own_brain_dir() {
    // cp-1.2.16-image-subagent: subagent step, delegation message, system_message; the
    // image belongs to the child conversation.
    let sb = Sandbox::new();
    let lines = bicycle_run(&sb, "1.2.16", "stream-json");
    let parent = lines[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    let kinds: Vec<String> = lines
        .iter()
        .filter_map(|l| l["step_update"]["step_type"].as_str())
        .map(String::from)
        .collect();
    assert!(!kinds.contains(&"tool".to_string()), "{kinds:?}");
    let done = lines
        .iter()
        .find(|l| {
            l["step_update"]["step_type"] == "subagent" && l["step_update"]["state"] == "DONE"
        })
        .expect("a subagent DONE step");
    let info = &done["step_update"]["subagent_info"]["subagents"][0];
    assert_eq!(info["type_name"], "image-generator");
    let child = info["conversation_id"].as_str().expect("child id");
    assert_ne!(child, parent);
    assert!(info["log_uri"]
        .as_str()
        .is_some_and(|u| u.starts_with("file://") && u.contains(child)));
    assert!(
        sb.brain_files(&parent).is_empty(),
        "parent dir holds no image"
    );
    let files = sb.brain_files(child);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(jpeg_size(&files[0]), (1024, 1024));
    let system = kinds.iter().position(|k| k == "system_message");
    let subagent = kinds.iter().position(|k| k == "subagent");
    assert!(subagent < system && system.is_some(), "{kinds:?}");
    let result = lines.last().expect("result");
    assert!(result["result"]["response"]
        .as_str()
        .is_some_and(|r| r.starts_with("I have delegated")));
}

#[test]
fn before_1_2_16_the_run_calls_generate_image_itself() {
    let sb = Sandbox::new();
    let id = bicycle_run(&sb, "1.2.13", "json")[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    assert_eq!(sb.brain_files(&id).len(), 1);
}
