//! The secret classes a redactor of agy's output must remove, one plant each, checked
//! on whole text and on text streamed line by line: none may reach an artefact.

use agy_protocol::redact::{Identity, LineRedactor, Redactor};

/// (class, planted text, the part that must not survive).
const CLASSES: [(&str, &str, &str); 32] = [
    ("google oauth access token", "token ya29.a0AfB_byC-1234567890abcdefGHIJ here", "a0AfB_byC-1234567890abcdefGHIJ"),
    ("google oauth refresh token", "refresh 1//0gABCdefGHIjklMNOpqrSTUvwx-yz0123456789", "0gABCdefGHIjklMNOpqrSTUvwx-yz0123456789"),
    ("gcp api key", "key=AIzaSyA1234567890abcdefghijklmnopqrstu", "SyA1234567890abcdefghijklmnopqrstu"),
    ("google oauth client secret", "GOCSPX-AbCdEfGhIjKlMnOpQrStUvWxYz12", "AbCdEfGhIjKlMnOpQrStUvWxYz12"),
    ("jwt", "eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6ImEifQ.c2lnbmF0dXJlLXBhcnQ", "eyJlbWFpbCI6ImEifQ"),
    ("anthropic api key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123"),
    ("openai project key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("github token", "ghs_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"),
    ("github fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("slack token", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOp", "1234567890123-AbCdEfGhIjKlMnOp"),
    ("slack webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("aws access key id", "id AKIAIOSFODNN7ABCDEFG ok", "IOSFODNN7ABCDEFG"),
    ("aws access key id after a json \\n escape", r#"{"m":"keys:\nAKIAIOSFODNN7ABCDEFG"}"#, "IOSFODNN7ABCDEFG"),
    ("aws access key id after `_`", "AWS_KEY_AKIAIOSFODNN7ABCDEFG", "IOSFODNN7ABCDEFG"),
    ("aws secret access key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"),
    ("private key on one line", "-----BEGIN PRIVATE KEY-----MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-----END PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
    ("private key on several lines", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvQ3c9xQ8jD1ykpLWzqZ\nQ2hlY2tzdW1CbG9ja1NlY29uZExpbmU\n-----END RSA PRIVATE KEY-----\n", "Q2hlY2tzdW1CbG9ja1NlY29uZExpbmU"),
    ("bearer token", "Authorization: Bearer opaque.tok3n~value-42", "opaque.tok3n~value-42"),
    ("basic credentials", "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l"),
    ("json secret field", r#"{"refresh_token": "opaque-refresh-value-42"}"#, "opaque-refresh-value-42"),
    ("environment assignment", "GEMINI_API_KEY=opaque-key-value-42", "opaque-key-value-42"),
    ("password in yaml", "password: hunter2-opaque-value", "hunter2-opaque-value"),
    ("api key as an argument", "agy --api-key opaque-cli-key-42 -p hi", "opaque-cli-key-42"),
    ("url password, https", "https://deploy:s3cret-pass-42@git.example.com/repo.git", "s3cret-pass-42"),
    ("url password, any host", "postgres://admin:pg-pass-value-42@localhost:5432/db", "pg-pass-value-42"),
    ("npm token", "//registry.npmjs.org/:_authToken npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("base64-wrapped token", "creds Z2hwX2FiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1Njc4OQ== end", "Z2hwX2FiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1Njc4OQ"),
    ("e-mail", "mail alice.liddell+agy@example.com now", "alice.liddell+agy"),
    ("e-mail, json-escaped", r"mail alice.liddell\u0040example.com now", "alice.liddell"),
    ("e-mail, url-encoded", "to=alice.liddell%40example.com", "alice.liddell"),
    ("e-mail, url-encoded twice", "to=alice.liddell%2540example.com", "alice.liddell"),
    ("stripe live key", "sk_live_AbCdEfGhIjKlMnOpQrStUv0123", "AbCdEfGhIjKlMnOpQrStUv0123"),
];

fn leaked(out: &[u8], secret: &str) -> bool {
    out.windows(secret.len()).any(|w| w == secret.as_bytes())
}

#[test]
fn no_secret_class_leaks_whole_or_streamed() {
    let redactor = Redactor::new(&Identity::default());
    let mut leaks = Vec::new();
    for (class, text, secret) in CLASSES {
        let whole = redactor.redact_bytes(text.as_bytes());
        let mut lines = LineRedactor::new(redactor.clone());
        let mut streamed = lines.push(text.as_bytes()).concat();
        streamed.extend(lines.finish().unwrap_or_default());
        if leaked(&whole, secret) || leaked(&streamed, secret) {
            leaks.push(format!(
                "{class}: {} | {}",
                String::from_utf8_lossy(&whole),
                String::from_utf8_lossy(&streamed)
            ));
        }
    }
    assert!(
        leaks.is_empty(),
        "{} of {} classes leak:\n{}",
        leaks.len(),
        CLASSES.len(),
        leaks.join("\n")
    );
}

#[test]
fn a_multi_line_key_keeps_its_line_ends() {
    // Regression: only the BEGIN line matched, and it lost its newline, so a recorded
    // trace no longer replayed the bytes agy wrote.
    let text = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvQ3c\nQ2hlY2tzdW0\n-----END RSA PRIVATE KEY-----\nb\n";
    let redactor = Redactor::new(&Identity::default());
    let whole = redactor.redact(text);
    assert_eq!(whole.lines().count(), text.lines().count(), "{whole}");
    assert!(
        whole.ends_with("-----END RSA PRIVATE KEY-----\nb\n"),
        "{whole}"
    );
    let mut lines = LineRedactor::new(redactor);
    let streamed: Vec<u8> = text
        .as_bytes()
        .chunks(7)
        .flat_map(|c| lines.push(c).concat())
        .collect();
    assert_eq!(String::from_utf8_lossy(&streamed), whole);
}
