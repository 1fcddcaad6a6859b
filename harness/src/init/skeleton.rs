//! The files `agy-harness init` writes: an adapter config and a driver skeleton in one
//! language, whose op functions are the ops of one profile (docs/driver-protocol.md).

use crate::profile::{Client, Reach};
use crate::scenario::Profile;
use clap::ValueEnum;
use std::path::PathBuf;

/// The config file's name, in the target folder.
pub use crate::adapter_config::ADAPTER_CONFIG_FILE as CONFIG_FILE;
/// The driver's folder, in the target folder.
pub const DRIVER_DIR: &str = "agy-driver";

/// The language of the driver skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Language {
    /// Python 3 (`agy-driver/driver.py`).
    Python,
    /// Node 20, JavaScript with JSDoc types (`agy-driver/driver.mjs`).
    Node,
    /// Rust with serde_json (`agy-driver/`, a Cargo package).
    Rust,
}

/// One file to write, relative to the target folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StarterFile {
    /// Path under the target folder.
    pub path: PathBuf,
    /// Contents.
    pub text: String,
    /// Whether to mark it executable.
    pub executable: bool,
}

struct Templates {
    driver: &'static str,
    stub: &'static str,
    dispatch: &'static str,
    driver_file: &'static str,
}

impl Language {
    fn templates(self) -> Templates {
        match self {
            Language::Python => Templates {
                driver: include_str!("../../templates/init/python/driver.py"),
                stub: include_str!("../../templates/init/python/stub.py"),
                dispatch: "    \"__OP__\": __FUNCTION__,\n",
                driver_file: "driver.py",
            },
            Language::Node => Templates {
                driver: include_str!("../../templates/init/node/driver.mjs"),
                stub: include_str!("../../templates/init/node/stub.mjs"),
                dispatch: "  __OP__: __FUNCTION__,\n",
                driver_file: "driver.mjs",
            },
            Language::Rust => Templates {
                driver: include_str!("../../templates/init/rust/main.rs"),
                stub: include_str!("../../templates/init/rust/stub.rs"),
                dispatch: "        \"__OP__\" => __FUNCTION__(req),\n",
                driver_file: "src/main.rs",
            },
        }
    }

    /// The op's function name in this language (`op_acp_new`, `opAcpNew`).
    fn function(self, op: &str) -> String {
        match self {
            Language::Python | Language::Rust => format!("op_{op}"),
            Language::Node => std::iter::once("op".to_string())
                .chain(op.split('_').map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect())
                        .unwrap_or_default()
                }))
                .collect(),
        }
    }

    /// The config's `command` (TOML) and the comment line above `[adapter]`.
    fn command(self) -> (String, String) {
        match self {
            Language::Python => (
                format!("[\"python3\", \"{DRIVER_DIR}/driver.py\"]"),
                String::new(),
            ),
            Language::Node => (
                format!("[\"node\", \"{DRIVER_DIR}/driver.mjs\"]"),
                String::new(),
            ),
            Language::Rust => (
                format!("[\"./{DRIVER_DIR}/target/debug/agy-driver\"]"),
                format!(
                    "# Build the driver before a run: cargo build --manifest-path {DRIVER_DIR}/Cargo.toml\n"
                ),
            ),
        }
    }
}

/// `[mcp]` of a driverless config: the tool and its arguments, to be filled in.
const MCP_TABLE: &str = "
# The tool that runs agy, as your server's `tools/list` names it, and its arguments.
[mcp]
tool             = \"ask_agy\"
prompt_arg       = \"prompt\"
# model_arg        = \"model\"          # the argument that takes a model, if any
# conversation_arg = \"conversation\"   # calls with the same value continue a conversation
# timeout_arg      = \"timeout_s\"      # the argument that takes a timeout in seconds
";

/// What the adapter of a driverless profile reached over `client` is to the harness:
/// an MCP `server` or an ACP `agent`.
pub fn role(client: Client) -> &'static str {
    match client {
        Client::Mcp => "server",
        Client::Acp => "agent",
    }
}

/// Whether `init` writes a driver for `profile`: not for a driverless one.
pub fn writes_driver(profile: Profile) -> bool {
    matches!(crate::profile::unit(profile).reach, Reach::Driver)
}

/// The config of a driverless profile, reached over `client`.
fn driverless_config(profile: Profile, client: Client, name: &str) -> StarterFile {
    let (protocol, table) = match client {
        Client::Mcp => ("MCP", MCP_TABLE),
        Client::Acp => ("ACP", ""),
    };
    let text = include_str!("../../templates/init/driverless.toml")
        .replace("__CLIENT_TABLE__", table)
        .replace("__ROLE__", role(client))
        .replace("__CLIENT__", protocol)
        .replace("__PROFILE__", profile.as_str())
        .replace("__NAME__", name)
        .replace("__CONFIG__", CONFIG_FILE);
    StarterFile {
        path: CONFIG_FILE.into(),
        text,
        executable: false,
    }
}

/// The config and the driver skeleton for `profile` in `language` (the config alone for
/// a driverless profile); `name` names the adapter in reports and in the driver's
/// `hello`.
pub fn render(profile: Profile, language: Language, name: &str) -> Vec<StarterFile> {
    let t = language.templates();
    let fill = |text: &str, op: &str, doc: &str| {
        text.replace("__FUNCTION__", &language.function(op))
            .replace("__OP__", op)
            .replace("__DOC__", doc)
    };
    // The ops a profile's driver answers besides `hello` and `shutdown`, each with its
    // arguments and result as docs/driver-protocol.md gives them.
    let ops = || crate::profile::unit(profile).ops();
    let stubs: String = ops().map(|o| fill(t.stub, o.name, o.shape)).collect();
    let dispatch: String = ops().map(|o| fill(t.dispatch, o.name, o.shape)).collect();
    // The name lands in TOML and code strings: keep it to characters none of them escape.
    let name: String = name
        .chars()
        .filter(|c| c.is_alphanumeric() || " -_.".contains(*c))
        .collect();
    if let Reach::Driverless { client } = crate::profile::unit(profile).reach {
        return vec![driverless_config(profile, client, &name)];
    }
    let common = |text: &str| {
        text.replace("__PROFILE__", profile.as_str())
            .replace("__NAME__", &name)
            .replace("__CONFIG__", CONFIG_FILE)
            .replace("__DRIVER_DIR__", DRIVER_DIR)
    };
    let driver = common(t.driver)
        .replace("__STUBS__", &stubs)
        .replace("__DISPATCH__", &dispatch);
    let (command, build) = language.command();
    let config = common(include_str!("../../templates/init/adapter.toml"))
        .replace("__COMMAND__", &command)
        .replace("__BUILD__", &build);
    let mut files = vec![
        StarterFile {
            path: CONFIG_FILE.into(),
            text: config,
            executable: false,
        },
        StarterFile {
            path: PathBuf::from(DRIVER_DIR).join(t.driver_file),
            text: driver,
            executable: language != Language::Rust,
        },
    ];
    if language == Language::Rust {
        files.push(StarterFile {
            path: PathBuf::from(DRIVER_DIR).join("Cargo.toml"),
            // `.in`: a folder holding a `Cargo.toml` is left out of the packaged crate.
            text: common(include_str!("../../templates/init/rust/Cargo.toml.in")),
            executable: false,
        });
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter_config::parse_adapter_config;
    use agy_protocol::diag::SourceFile;
    use std::path::Path;

    const LANGUAGES: [Language; 3] = [Language::Python, Language::Node, Language::Rust];

    #[test]
    fn every_starter_config_parses_with_its_profile() {
        for profile in Profile::ALL {
            for language in LANGUAGES {
                let files = render(profile, language, "my repo");
                let src = SourceFile::new(CONFIG_FILE, files[0].text.clone());
                let config = parse_adapter_config(&src, Path::new("/repo"))
                    .unwrap_or_else(|d| panic!("{profile} {language:?}:\n{d}"));
                assert_eq!(config.adapter.profiles, vec![profile]);
                assert_eq!(config.adapter.name, "my repo");
            }
        }
    }

    #[test]
    fn the_skeleton_has_one_function_per_op_of_its_profile_and_no_placeholder() {
        let placeholder = regex::Regex::new("__[A-Z_]+__").expect("regex");
        for profile in Profile::ALL {
            for language in LANGUAGES {
                for file in render(profile, language, "x") {
                    assert!(
                        !placeholder.is_match(&file.text),
                        "{}: a placeholder is left",
                        file.path.display()
                    );
                }
                if !writes_driver(profile) {
                    assert_eq!(
                        render(profile, language, "x").len(),
                        1,
                        "{profile}: config only"
                    );
                    continue;
                }
                let driver = &render(profile, language, "x")[1].text;
                for op in crate::profile::unit(profile).ops() {
                    let function = language.function(op.name);
                    assert!(driver.contains(&function), "{language:?} lacks {function}");
                }
            }
        }
    }

    #[test]
    fn node_functions_are_camel_case() {
        assert_eq!(
            Language::Node.function("acp_restart_agent"),
            "opAcpRestartAgent"
        );
        assert_eq!(Language::Python.function("acp_new"), "op_acp_new");
    }

    #[test]
    fn a_name_cannot_break_out_of_its_strings() {
        let files = render(Profile::Oneshot, Language::Python, "a\"b\\c\n");
        assert!(
            files[0].text.contains("name     = \"abc\""),
            "{}",
            files[0].text
        );
    }
}
