//! `agy-harness check` on an `mcp` adapter config: start the server, list its tools
//! with their arguments (from each tool's input schema), and say which tool is missing
//! when `[mcp] tool` or `continue_tool` names one the server does not offer.

use super::mcp::start_server;
use super::mcp_error::ServerError;
use crate::adapter_config::AdapterConfig;
use crate::profile::Client;
use rmcp::model::{JsonObject, Tool};
use std::time::Duration;

/// The tools the server offers, each as `signature` writes it, or what is wrong with
/// it; the server starts in `check`'s sandbox with the adapter's command (taken from
/// `config` here) and the environment `env` the caller set.
pub async fn check_mcp_server(
    config: &AdapterConfig,
    sandbox: &crate::sandbox::Sandbox,
    env: &[(String, String)],
    within: Duration,
) -> Result<Vec<String>, ServerError> {
    let Some(table) = &config.mcp else {
        return Err(ServerError::NoTable);
    };
    let served = config.adapter.profiles.iter().copied().find(|p| {
        matches!(
            crate::profile::unit(*p).reach,
            crate::profile::Reach::Driverless {
                client: Client::Mcp,
            }
        )
    });
    let command = match served {
        Some(profile) => config.driverless_command(Client::Mcp, profile),
        None => config.adapter.command.clone(),
    };
    let listed = tokio::time::timeout(within, async {
        let launch = crate::launch::Launch::in_sandbox(sandbox, &command)
            .map_err(|_| ServerError::EmptyCommand)?
            .sandbox_env(env);
        let mut server = start_server(&launch).await?;
        let tools = server
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| ServerError::ListFailed(e.to_string()));
        let _ = server
            .service
            .close_with_timeout(Duration::from_secs(2))
            .await;
        tools
    })
    .await
    .map_err(|_| ServerError::ListTimeout {
        command: command.join(" "),
        within,
    })??;
    let names: Vec<String> = listed.iter().map(|t| t.name.to_string()).collect();
    for tool in std::iter::once(&table.tool).chain(&table.continue_tool) {
        if !names.contains(tool) {
            return Err(ServerError::NoSuchTool {
                tool: tool.clone(),
                offered: names,
            });
        }
    }
    Ok(listed.iter().map(signature).collect())
}

/// A tool with its arguments as its input schema gives them, required ones first as
/// the schema lists them: `agy(prompt: string, model?: string)`. An argument's type is
/// its schema's `type` (several joined by `|`), or `any`.
pub fn signature(tool: &Tool) -> String {
    let schema: &JsonObject = &tool.input_schema;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|n| n.as_str()).collect())
        .unwrap_or_default();
    let mut args: Vec<(bool, String)> = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let needed = required.contains(&name.as_str());
                    let mark = if needed { "" } else { "?" };
                    (!needed, format!("{name}{mark}: {}", type_of(prop)))
                })
                .collect()
        })
        .unwrap_or_default();
    // Stable: required first, each group in the schema's order.
    args.sort_by_key(|(optional, _)| *optional);
    let args: Vec<String> = args.into_iter().map(|(_, a)| a).collect();
    format!("{}({})", tool.name, args.join(", "))
}

/// A property schema's `type`: one name, several joined by `|`, or `any`.
fn type_of(prop: &serde_json::Value) -> String {
    match prop.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        Some(serde_json::Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(|t| t.as_str()).collect();
            names.join("|")
        }
        _ => "any".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_signature_lists_its_arguments_required_first() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "model": { "type": "string" },
                "prompt": { "type": "string" },
                "timeout_s": { "type": ["number", "null"] },
                "extra": {}
            },
            "required": ["prompt"]
        });
        let serde_json::Value::Object(schema) = schema else {
            panic!("an object");
        };
        let tool = Tool::new("agy", "asks agy", schema);
        assert_eq!(
            signature(&tool),
            "agy(prompt: string, model?: string, timeout_s?: number|null, extra?: any)"
        );
    }

    #[tokio::test]
    async fn a_config_without_an_mcp_table_is_refused_before_a_server_starts() {
        let mut config = AdapterConfig::reference(std::path::Path::new("/nonexistent/server"), &[]);
        config.mcp = None;
        let sandbox = crate::sandbox::Sandbox::create(None).expect("sandbox");
        let err = check_mcp_server(&config, &sandbox, &[], Duration::from_secs(5)).await;
        assert_eq!(err, Err(ServerError::NoTable));
    }
}
