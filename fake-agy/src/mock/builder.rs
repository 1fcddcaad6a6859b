//! [`MockAgyBuilder`]: which fake-agy, which script, which agy version.

use super::error::MockError;
use super::sandbox::MockAgy;
use agy_protocol::diag::SourceFile;
use agy_protocol::env::{
    FAKE_AGY_BIN, FAKE_AGY_CALIBRATION, FAKE_AGY_TIME_SCALE, FAKE_AGY_VERSION,
};
use agy_protocol::script::{parse_script, render_script, Script};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable: the fake-agy binary a [`MockAgy`] runs when the builder is
/// given none (`cargo install fake-agy` puts one on `PATH`, which is the last resort).
pub const ENV_FAKE_AGY_BIN: &str = FAKE_AGY_BIN;

// The mock's constructors live beside the builder they use, so the sandbox does not
// depend on the builder that lays it out.
impl MockAgy {
    /// A builder: script, agy version, fake-agy binary.
    pub fn builder() -> MockAgyBuilder {
        MockAgyBuilder::default()
    }

    /// A mock acting out agy's default behaviour (no script).
    pub fn start() -> Result<MockAgy, MockError> {
        MockAgyBuilder::default().start()
    }
}

/// Builds a [`MockAgy`]; every setting is optional.
#[derive(Debug, Clone, Default)]
pub struct MockAgyBuilder {
    fake_agy: Option<PathBuf>,
    script: Option<String>,
    typed: Option<Script>,
    version: Option<String>,
    calibration: Option<PathBuf>,
    time_scale: Option<f64>,
}

impl MockAgyBuilder {
    /// The fake-agy binary (default: `$FAKE_AGY_BIN`, else `fake-agy` on `PATH`). In
    /// fake-agy's own tests: `env!("CARGO_BIN_EXE_fake-agy")`.
    pub fn fake_agy(mut self, bin: impl Into<PathBuf>) -> Self {
        self.fake_agy = Some(bin.into());
        self
    }

    /// The script as TOML (docs/script-format.md); checked when the sandbox starts.
    pub fn script_toml(mut self, toml: impl Into<String>) -> Self {
        self.script = Some(toml.into());
        self.typed = None;
        self
    }

    /// The script as typed rules and steps ([`agy_protocol::script`]).
    pub fn script(mut self, script: Script) -> Self {
        self.typed = Some(script);
        self.script = None;
        self
    }

    /// The agy version fake-agy models (`FAKE_AGY_VERSION`, e.g. `1.2.16`).
    pub fn agy_version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// A calibration file (docs/calibration-format.md) fake-agy presents as agy, over
    /// the version (`FAKE_AGY_CALIBRATION`): what `agy-harness calibrate … --out
    /// agy.toml` wrote from your own agy. Read when the sandbox starts; a relative path
    /// is from the current folder.
    pub fn calibration(mut self, file: impl Into<PathBuf>) -> Self {
        self.calibration = Some(file.into());
        self
    }

    /// Multiplies every scripted delay (`FAKE_AGY_TIME_SCALE`; default 1).
    pub fn time_scale(mut self, factor: f64) -> Self {
        self.time_scale = Some(factor);
        self
    }

    /// Lays the sandbox out; without a script fake-agy acts out agy's default behaviour.
    pub fn start(self) -> Result<MockAgy, MockError> {
        let fake_agy = locate_fake_agy(
            self.fake_agy.as_deref(),
            std::env::var_os(ENV_FAKE_AGY_BIN),
            std::env::var_os("PATH"),
        )?;
        let script = match (self.script, self.typed) {
            (Some(text), _) => Some(check_script(text)?),
            (None, Some(typed)) => {
                Some(render_script(&typed).map_err(|e| MockError::Render(e.to_string()))?)
            }
            (None, None) => None,
        };
        let mut knobs: Vec<(&'static str, String)> = Vec::new();
        if let Some(v) = self.version {
            knobs.push((FAKE_AGY_VERSION, v));
        }
        if let Some(file) = self.calibration {
            knobs.push((FAKE_AGY_CALIBRATION, check_calibration(&file)?));
        }
        if let Some(f) = self.time_scale {
            knobs.push((FAKE_AGY_TIME_SCALE, f.to_string()));
        }
        MockAgy::lay_out(&fake_agy, script.as_deref(), &knobs)
    }
}

/// The script text when it parses; every problem located otherwise.
fn check_script(text: String) -> Result<String, MockError> {
    parse_script(&SourceFile::new("script.toml", text.as_str()))
        .map_err(|d| MockError::Script(d.to_string()))?;
    Ok(text)
}

/// The calibration's absolute path when it reads cleanly; every problem located
/// otherwise.
fn check_calibration(file: &Path) -> Result<String, MockError> {
    agy_protocol::calibration::read_calibration(file)
        .map_err(|d| MockError::Calibration(d.to_string()))?;
    let absolute = std::path::absolute(file).map_err(super::error::io(format!(
        "find the calibration `{}`",
        file.display()
    )))?;
    Ok(absolute.display().to_string())
}

/// The first of: the builder's binary, `$FAKE_AGY_BIN`, `fake-agy` on `PATH`.
fn locate_fake_agy(
    given: Option<&Path>,
    env: Option<OsString>,
    path: Option<OsString>,
) -> Result<PathBuf, MockError> {
    let env = env.map(PathBuf::from);
    let on_path = path.and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("fake-agy"))
            .find(|p| p.is_file())
    });
    let mut tried = Vec::new();
    let env_name = format!("${ENV_FAKE_AGY_BIN}");
    for (what, candidate) in [
        ("the builder's `fake_agy`", given.map(Path::to_path_buf)),
        (env_name.as_str(), env),
        ("`fake-agy` on PATH", on_path),
    ] {
        match candidate {
            Some(p) if p.is_file() => return Ok(p),
            Some(p) => tried.push(format!("{what} `{}` is not a file", p.display())),
            None => tried.push(format!("no {what}")),
        }
    }
    Err(MockError::FakeAgyNotFound {
        tried: format!(
            "{}; install it with `cargo install fake-agy` or set {ENV_FAKE_AGY_BIN}",
            tried.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_error_is_located() {
        let err = check_script("[[invocation]]\nsteps = [{ defualt = true }]\n".into())
            .expect_err("rejects");
        assert!(err.to_string().contains("script.toml:2:"), "{err}");
    }

    #[test]
    fn a_missing_binary_names_every_place_tried() {
        let err = locate_fake_agy(
            Some(Path::new("/no/such/fake-agy")),
            None,
            Some("/no/such/bin".into()),
        )
        .expect_err("missing");
        let text = err.to_string();
        assert!(text.contains("/no/such/fake-agy"), "{text}");
        assert!(text.contains("cargo install fake-agy"), "{text}");
    }

    #[test]
    fn the_builders_binary_comes_before_the_environment_and_path() {
        let me = std::env::current_exe().expect("test binary");
        let found = locate_fake_agy(Some(&me), Some("/elsewhere".into()), None).expect("found");
        assert_eq!(found, me);
        let err = locate_fake_agy(None, Some("/no/such/env-agy".into()), None).expect_err("none");
        assert!(
            err.to_string().contains("$FAKE_AGY_BIN `/no/such/env-agy`"),
            "{err}"
        );
    }
}
