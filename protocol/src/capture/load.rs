//! Reading the corpus folder: `corpus.toml` and the files it names, bounded.

use super::files::read_bounded;
use super::model::Corpus;
use super::parse::parse_corpus_in;
use crate::diag::{Diagnostic, Diagnostics, SourceFile};
use std::path::Path;

/// The metadata table's name inside the corpus folder.
pub const CORPUS_FILE: &str = "corpus.toml";
/// The largest corpus table read.
pub const MAX_CORPUS_BYTES: u64 = 4 * 1024 * 1024;

/// Reads `<dir>/corpus.toml` and checks every file it names.
pub fn load_corpus(dir: &Path) -> Result<Corpus, Diagnostics> {
    let path = dir.join(CORPUS_FILE);
    let display = path.display().to_string();
    let fail = |message: String, hint: &str| {
        Diagnostics(vec![
            Diagnostic::at_line(display.clone(), 1, 1, message).with_hint(hint.to_string())
        ])
    };
    let bytes = read_bounded(&path, MAX_CORPUS_BYTES).map_err(|e| {
        fail(
            format!("failed to read the corpus: {e}"),
            "name the folder that holds corpus.toml (`--traces DIR`)",
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(
            format!("the corpus is not UTF-8: {e}"),
            "save corpus.toml as UTF-8",
        )
    })?;
    parse_corpus_in(&SourceFile::new(display.clone(), text), Some(dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::read_capture_file;

    fn corpus_dir(files: &[(&str, &[u8])]) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("agy-corpus-{}-{}", std::process::id(), files.len()));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, bytes) in files {
            let p = dir.join(name);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
            std::fs::write(p, bytes).expect("write");
        }
        dir
    }

    const TABLE: &str = r#"[[capture]]
id = "a-1"
agy_version = "1.2.17"
version_from = "readme"
kind = "print-json"
argv = ["agy"]
stdin = []
exit = 0
captured = "unknown"
confidence = "live"
platform = "unknown"
source = { url = "https://example.com/x" }
files = { stdout = "upstream/a.stdout", stderr = "../etc/passwd", log = "upstream/missing.log" }
sha256 = { stdout = "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356", stderr = "0000000000000000000000000000000000000000000000000000000000000000", log = "0000000000000000000000000000000000000000000000000000000000000000" }
shows = "x"
redacted = "none"
"#;

    #[test]
    fn missing_and_escaping_files_are_reported_at_the_files_key() {
        let dir = corpus_dir(&[
            ("corpus.toml", TABLE.as_bytes()),
            ("upstream/a.stdout", b"{}\n"),
        ]);
        let err = load_corpus(&dir).expect_err("rejects");
        assert_eq!(err.len(), 2, "{err}");
        assert!(err.iter().all(|d| d.line == 13), "{err}");
        assert!(
            err.0[0].message.contains("stderr file `../etc/passwd`"),
            "{err}"
        );
        assert!(
            err.0[1].message.contains("log file `upstream/missing.log`"),
            "{err}"
        );
        assert_eq!(
            read_capture_file(&dir, "upstream/a.stdout").expect("reads"),
            b"{}\n"
        );
        assert!(read_capture_file(&dir, "/etc/passwd").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn stored_bytes_that_changed_are_reported_with_both_hashes() {
        let table = TABLE
            .replace(", stderr = \"../etc/passwd\", log = \"upstream/missing.log\"", "")
            .replace(
                ", stderr = \"0000000000000000000000000000000000000000000000000000000000000000\", log = \"0000000000000000000000000000000000000000000000000000000000000000\"",
                "",
            );
        let dir = corpus_dir(&[
            ("corpus.toml", table.as_bytes()),
            ("upstream/a.stdout", b"{} \n"),
        ]);
        let err = load_corpus(&dir).expect_err("rejects");
        assert_eq!(err.len(), 1, "{err}");
        assert!(err.0[0].message.contains("not the"), "{err}");
        assert!(err.0[0].message.contains("stored bytes changed"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_corpus_names_the_flag() {
        let err = load_corpus(Path::new("/nonexistent/corpus-dir")).expect_err("rejects");
        assert!(
            err.0[0].hint.as_deref().unwrap_or("").contains("--traces"),
            "{err}"
        );
    }
}
