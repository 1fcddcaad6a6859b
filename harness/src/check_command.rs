//! `agy-harness check`: its arguments, and scenario files (and an adapter config)
//! checked without running anything.

use crate::adapter_config::{check_expected_failures, load_adapter_config};
use crate::catalogue_run::load_and_select;
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::options::ScenarioArgs;
use crate::scenario::Selection;
use clap::Args;
use std::path::PathBuf;

/// `agy-harness check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The scenario files.
    #[command(flatten)]
    pub source: ScenarioArgs,
    /// Also check this adapter config (and that its expected failures name scenarios).
    #[arg(long, value_name = "FILE")]
    pub adapter: Option<PathBuf>,
    /// Run the adapter once on a neutral scenario against fake-agy and print the
    /// `offers = [...]` line that run shows (with `--adapter`).
    #[arg(long, requires = "adapter")]
    pub infer: bool,
    /// The fake-agy binary for `--infer` (default: next to agy-harness).
    #[arg(long, value_name = "BIN", env = agy_protocol::env::AGY_HARNESS_FAKE_AGY)]
    pub fake_agy: Option<PathBuf>,
}

/// `check` of a driverless adapter: its server starts and offers what the config names.
async fn check_driverless(config: &crate::adapter_config::AdapterConfig) -> i32 {
    let mcp = config.adapter.profiles.iter().any(|p| {
        matches!(
            crate::profile::unit(*p).reach,
            crate::profile::Reach::Driverless {
                client: crate::profile::Client::Mcp,
            }
        )
    });
    if !mcp {
        return exit_code::ALL_CONFORM;
    }
    match crate::bridge::check_mcp_server(config, config.timeouts.startup.0).await {
        Ok(tools) => {
            println!("MCP server offers {}", tools.join(", "));
            exit_code::ALL_CONFORM
        }
        Err(e) => HarnessError::bad_input(e.to_string()).report(),
    }
}

/// For each driverless profile of `config`: starts the adapter and prints what it
/// advertises (an ACP agent's `initialize` result).
async fn list_capabilities(
    config: &crate::adapter_config::AdapterConfig,
    path: &std::path::Path,
) -> i32 {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    for &profile in &config.adapter.profiles {
        let crate::profile::Reach::Driverless { client } = crate::profile::unit(profile).reach
        else {
            continue;
        };
        if client != crate::profile::Client::Acp {
            continue;
        }
        let command = config.adapter.command_for(profile);
        match crate::bridge::acp_agent::capabilities(&command, dir).await {
            Ok(init) => println!(
                "{profile} agent `{}` answers initialize:\n{}",
                command.join(" "),
                serde_json::to_string_pretty(&init).unwrap_or_default()
            ),
            Err(e) => {
                return HarnessError::could_not_run(format!(
                    "the {profile} agent `{}` did not initialize: {e}",
                    command.join(" ")
                ))
                .report()
            }
        }
    }
    exit_code::ALL_CONFORM
}

pub(crate) async fn check_command(args: CheckArgs) -> i32 {
    let (selected, names) = match load_and_select(&args.source, &Selection::default()) {
        Ok(loaded) => loaded,
        Err(f) => return f.report(),
    };
    println!("{} scenario(s) are valid", selected.len());
    let Some(path) = args.adapter else {
        return exit_code::ALL_CONFORM;
    };
    let checked = load_adapter_config(&path).and_then(|c| {
        check_expected_failures(&c, names.iter().map(String::as_str))?;
        Ok(c)
    });
    match checked {
        Ok(config) => {
            println!("adapter config `{}` is valid", path.display());
            let tools = check_driverless(&config).await;
            let capabilities = list_capabilities(&config, &path).await;
            let offers = if args.infer {
                crate::offers_check::infer_and_print(&config, args.fake_agy.as_deref()).await
            } else {
                exit_code::ALL_CONFORM
            };
            tools.max(capabilities).max(offers)
        }
        Err(d) => {
            eprint!("{d}");
            HarnessError::bad_input(format!("{} problem(s) in `{}`", d.len(), path.display()))
                .report()
        }
    }
}
