//! `agy-harness check`: its arguments, and scenario files (and an adapter config)
//! checked without running anything.

use crate::adapter_config::{check_expected_failures, load_adapter_config, AdapterConfig};
use crate::catalogue_run::load_and_select;
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::launch::{stand_in_fakes, Launch};
use crate::options::ScenarioArgs;
use crate::sandbox::Sandbox;
use crate::scenario::Selection;
use clap::Args;
use std::path::PathBuf;

/// An environment a sandbox made.
type Env = Vec<(String, String)>;

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

/// The sandbox `check` starts a driverless adapter in, as a run would: fake-agy as
/// `agy` and fake-agy-acp as `agy_acp_server` first on `PATH` (stubs that refuse to
/// run when one is not found), and the environment a scenario's driver gets, with the
/// config's `env`. Dropping it kills every process the adapter left.
fn check_sandbox(config: &AdapterConfig) -> Result<(Sandbox, Vec<(String, String)>), HarnessError> {
    let no_sandbox = |e: std::io::Error| {
        HarnessError::could_not_run(format!("failed to create the sandbox of the check: {e}"))
    };
    let fake = crate::binaries::fake_agy_at(None).ok();
    let sandbox = Sandbox::create(fake.as_deref()).map_err(no_sandbox)?;
    let mut env = sandbox.env(None, 1.0);
    let fake_acp = crate::locate::locate_binary(
        crate::locate::FAKE_AGY_ACP_BIN,
        agy_protocol::env::AGY_HARNESS_FAKE_AGY_ACP,
        "fake-agy-acp",
    )
    .ok()
    .filter(|p| crate::fake_identity::verify_fake(p, crate::locate::FAKE_AGY_ACP_BIN).is_ok());
    if let Some(acp) = fake_acp {
        sandbox
            .install_acp_agent(&acp, None, &mut env)
            .map_err(no_sandbox)?;
    }
    stand_in_fakes(&sandbox).map_err(no_sandbox)?;
    env.extend(
        config
            .adapter
            .env
            .iter()
            .filter(|(k, _)| !agy_protocol::env::is_sandbox_owned(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok((sandbox, env))
}

/// `check` of a driverless adapter: its server starts and offers what the config names.
async fn check_driverless(config: &AdapterConfig, sandbox: &Sandbox, env: &Env) -> i32 {
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
    match crate::bridge::check_mcp_server(config, sandbox, env, config.timeouts.startup.0).await {
        Ok(tools) => {
            // One tool a line, with its arguments: what `[mcp]`'s `*_arg` keys name.
            println!("MCP server offers:");
            tools.iter().for_each(|t| println!("  {t}"));
            exit_code::ALL_CONFORM
        }
        Err(e) => HarnessError::bad_input(e.to_string()).report(),
    }
}

/// For each driverless profile of `config`: starts the adapter and prints what it
/// advertises (an ACP agent's `initialize` result, within the start-up timeout).
async fn list_capabilities(config: &AdapterConfig, sandbox: &Sandbox, env: &Env) -> i32 {
    for &profile in &config.adapter.profiles {
        let crate::profile::Reach::Driverless { client } = crate::profile::unit(profile).reach
        else {
            continue;
        };
        if client != crate::profile::Client::Acp {
            continue;
        }
        let command = config.adapter.command_for(profile);
        let started = match Launch::in_sandbox(sandbox, &command) {
            Ok(launch) => {
                let launch = launch.sandbox_env(env);
                crate::bridge::acp_agent::capabilities(&launch, config.timeouts.startup.0).await
            }
            Err(e) => Err(e.into()),
        };
        match started {
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

/// `check` of a driverless adapter in a sandbox of its own.
async fn check_adapter(config: &AdapterConfig) -> i32 {
    let (sandbox, env) = match check_sandbox(config) {
        Ok(made) => made,
        Err(e) => return e.report(),
    };
    let tools = check_driverless(config, &sandbox, &env).await;
    let capabilities = list_capabilities(config, &sandbox, &env).await;
    drop(sandbox);
    tools.max(capabilities)
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
            let started = check_adapter(&config).await;
            let offers = if args.infer {
                crate::offers_check::infer_and_print(&config, args.fake_agy.as_deref()).await
            } else {
                exit_code::ALL_CONFORM
            };
            started.max(offers)
        }
        Err(d) => {
            eprint!("{d}");
            HarnessError::bad_input(format!("{} problem(s) in `{}`", d.len(), path.display()))
                .report()
        }
    }
}
