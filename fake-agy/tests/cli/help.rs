//! The help fake-agy prints lists only what it accepts: every flag of `agy -h`, on every
//! modelled version, parses, and every value a flag's row lists (`(text, stream-json)`,
//! `(low|medium|high)`) runs without being refused as unknown or invalid.

use crate::support::*;
use agy_protocol::command_line::{parse_args, CliError};
use agy_protocol::env::{FAKE_AGY_TURN_DURATION, FAKE_AGY_VERSION};
use agy_protocol::MODELLED_VERSIONS;

/// The listed flags of a root usage: `(name, text)` per row.
fn rows(usage: &str) -> Vec<(String, String)> {
    usage
        .lines()
        .skip_while(|l| !l.starts_with("Usage of agy:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let l = l.trim_start();
            let (name, text) = l.split_once(char::is_whitespace)?;
            Some((name.to_string(), text.trim().to_string()))
        })
        .collect()
}

/// The values a row lists: a parenthesised group of two or more plain words.
fn listed(text: &str) -> Vec<String> {
    text.split('(')
        .filter_map(|g| g.split_once(')').map(|(inner, _)| inner))
        .map(|inner| {
            inner
                .split(['|', ','])
                .map(|v| v.trim().to_string())
                .collect::<Vec<_>>()
        })
        .find(|items| {
            items.len() > 1
                && items
                    .iter()
                    .all(|i| !i.is_empty() && i.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        })
        .unwrap_or_default()
}

/// The argv that gives `flag` a value its parser takes: none for a bool flag.
fn sample(flag: &str) -> Option<&'static str> {
    let with = |v: &str| parse_args(&[flag.to_string(), v.to_string()]);
    match parse_args(&[flag.to_string()]) {
        Ok(_) => None,
        Err(CliError::Usage(m)) if m.starts_with("flag needs an argument") => {
            ["x", "1m"].into_iter().find(|v| with(v).is_ok())
        }
        Err(e) => panic!("`{flag}` is listed in the help but the parser says {e:?}"),
    }
}

/// Why the run refused its flag (or, `strict`, its listed value), if it did. A value the
/// help does not list (`--model x`) may fail its own validation; its flag may not.
fn refused(out: &std::process::Output, strict: bool) -> Option<String> {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let code = out.status.code();
    let refusal = stderr.contains("not defined")
        || stderr.contains("unknown command")
        || (strict && stderr.contains("invalid"))
        || matches!(code, Some(2) | Some(70) | None);
    refusal.then(|| format!("exit {code:?}: {stderr}"))
}

#[test]
fn every_flag_and_value_the_help_lists_is_accepted() {
    let mut versions: Vec<String> = MODELLED_VERSIONS.iter().map(|v| v.to_string()).collect();
    versions.push("1.3.3".into()); // the last recorded help (ng-1.3.3-help)
    let sb = Sandbox::new();
    let mut problems = Vec::new();
    for version in &versions {
        let env = [
            (FAKE_AGY_VERSION, version.as_str()),
            (FAKE_AGY_TURN_DURATION, "0s"),
        ];
        let help = sb.detached(&["-h"], &env, None);
        let usage = String::from_utf8_lossy(&help.stderr).to_string();
        let listed_rows = rows(&usage);
        assert!(listed_rows.len() > 10, "{version}: {usage}");
        for (flag, text) in listed_rows {
            let values = listed(&text);
            let runs: Vec<Vec<String>> = match (sample(&flag), values.is_empty()) {
                (None, _) => vec![vec![flag.clone()]],
                (Some(v), true) => vec![vec![flag.clone(), v.to_string()]],
                (Some(_), false) => values
                    .iter()
                    .map(|v| vec![flag.clone(), v.clone()])
                    .collect(),
            };
            let strict = !values.is_empty();
            for mut argv in runs {
                // stream-json output meets `--input-format stream-json`'s requirement; a
                // later `--output-format` under test overrides it.
                argv.splice(
                    0..0,
                    ["--output-format".to_string(), "stream-json".to_string()],
                );
                argv.extend(["-p".to_string(), "hi".to_string()]);
                let args: Vec<&str> = argv.iter().map(String::as_str).collect();
                let out = sb.detached(&args, &env, None);
                if let Some(why) = refused(&out, strict) {
                    problems.push(format!("{version} agy {}: {why}", argv.join(" ")));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
