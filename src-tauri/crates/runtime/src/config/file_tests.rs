use super::*;
use crate::config::load::{load, parse, save};

const GOOD: &str = r#"
version = 1

[providers.claude]
protocol = "anthropic"
base_url = "https://api.anthropic.com"
model = "claude-sonnet-4-5"
key = { env = "ANTHROPIC_API_KEY" }

[providers.local]
protocol = "openai-chat"
base_url = "http://127.0.0.1:8080"
model = "qwen"
key = "none"

[profiles.careful]
provider = "claude"
approval = "ask"
max_model_calls = 20
"#;

fn p() -> &'static Path {
    Path::new("/cfg/config.toml")
}

#[test]
fn a_valid_file_parses() {
    let c = parse(p(), GOOD).unwrap();
    assert_eq!(
        c.providers["claude"].key,
        KeySource::Env {
            env: "ANTHROPIC_API_KEY".into()
        }
    );
    assert_eq!(
        c.providers["local"].key,
        KeySource::Named(NamedKeySource::None)
    );
    assert_eq!(c.profiles["careful"].max_model_calls, Some(20));
    assert_eq!(c.providers["local"].tool_mode, ToolMode::Native);
}

#[test]
fn a_provider_can_use_json_text_tool_mode_and_a_bad_mode_names_the_field() {
    let json_text = GOOD.replace(
        "model = \"qwen\"",
        "model = \"qwen\"\ntool_mode = \"json-text\"",
    );
    let c = parse(p(), &json_text).unwrap();
    assert_eq!(c.providers["local"].tool_mode, ToolMode::JsonText);
    // Saved back, the mode is kept (and a native one stays implicit).
    let saved = toml::to_string(&c).unwrap();
    assert!(saved.contains("tool_mode = \"json-text\""), "{saved}");
    assert_eq!(saved.matches("tool_mode").count(), 1, "{saved}");

    let bad = GOOD.replace("model = \"qwen\"", "model = \"qwen\"\ntool_mode = \"xml\"");
    let err = parse(p(), &bad).unwrap_err().to_string();
    assert!(err.starts_with("/cfg/config.toml:"), "{err}");
    assert!(err.contains("expected `native` or `json-text`"), "{err}");
    assert!(err.contains("providers.local.tool_mode"), "{err}");
}

#[test]
fn unknown_keys_name_file_line_and_field() {
    let text = GOOD.replace(
        "max_model_calls = 20",
        "max_model_calls = 20\nmax_modle_calls = 3",
    );
    let err = parse(p(), &text).unwrap_err().to_string();
    assert!(err.starts_with("/cfg/config.toml:20:"), "{err}");
    assert!(err.contains("max_modle_calls"), "{err}");
}

#[test]
fn bad_values_name_the_field() {
    let wrong_type = GOOD.replace("max_model_calls = 20", "max_model_calls = \"lots\"");
    let err = parse(p(), &wrong_type).unwrap_err().to_string();
    assert!(err.contains("/cfg/config.toml:19:"), "{err}");
    assert!(
        err.contains("field `profiles.careful.max_model_calls`"),
        "{err}"
    );
    let bad_url = GOOD.replace("http://127.0.0.1:8080", "127.0.0.1:8080");
    let err = parse(p(), &bad_url).unwrap_err().to_string();
    assert!(err.contains("providers.local.base_url"), "{err}");
    let bad_protocol = GOOD.replace("\"openai-chat\"", "\"openai\"");
    assert!(parse(p(), &bad_protocol).is_err());
    let unknown_provider = GOOD.replace("provider = \"claude\"", "provider = \"nobody\"");
    let err = parse(p(), &unknown_provider).unwrap_err().to_string();
    assert!(err.contains("profiles.careful.provider"), "{err}");
    let zero = GOOD.replace("max_model_calls = 20", "max_model_calls = 0");
    assert!(parse(p(), &zero)
        .unwrap_err()
        .to_string()
        .contains("greater than 0"));
    let no_key = GOOD.replace("key = \"none\"", "");
    assert!(parse(p(), &no_key)
        .unwrap_err()
        .to_string()
        .contains("providers.local.key"));
}

#[test]
fn a_newer_config_is_refused_and_never_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let newer = "version = 2\n[shiny]\nthing = true\n";
    std::fs::write(&path, newer).unwrap();
    assert!(matches!(
        load(&path),
        Err(ConfigError::NewerVersion { found: 2, .. })
    ));
    assert!(save(&path, &ConfigFile::default()).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), newer);
}

#[test]
fn saving_round_trips_and_a_missing_file_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/config.toml");
    assert_eq!(load(&path).unwrap(), ConfigFile::default());
    let config = parse(p(), GOOD).unwrap();
    save(&path, &config).unwrap();
    assert_eq!(load(&path).unwrap(), config);
}

#[test]
fn a_price_and_a_cost_limit_parse_and_bad_ones_name_the_field() {
    let priced = GOOD
        .replace(
            "model = \"qwen\"",
            "model = \"qwen\"\nprice = { input_per_mtok = 0.5, output_per_mtok = 1.5 }",
        )
        .replace(
            "max_model_calls = 20",
            "max_model_calls = 20\nmax_cost = 2.5",
        );
    let c = parse(p(), &priced).unwrap();
    let price = c.providers["local"].price.unwrap().to_price().unwrap();
    assert_eq!(price.input_micro_usd_per_mtok, 500_000);
    assert_eq!(price.cached_input_micro_usd_per_mtok, None);
    assert_eq!(c.profiles["careful"].max_cost, Some(2.5));
    // No price by default: unknown cost, never a price of 0.
    assert!(parse(p(), GOOD).unwrap().providers["claude"]
        .price
        .is_none());

    for bad in [
        "price = { input_per_mtok = -1.0, output_per_mtok = 1.5 }",
        "price = { input_per_mtok = nan, output_per_mtok = 1.5 }",
        "price = { input_per_mtok = 1.0, output_per_mtok = 1.0, cached_input_per_mtok = -0.1 }",
    ] {
        let text = GOOD.replace("model = \"qwen\"", &format!("model = \"qwen\"\n{bad}"));
        let err = parse(p(), &text).unwrap_err().to_string();
        assert!(err.contains("providers.local.price"), "{bad}: {err}");
    }
    for bad in [
        "price = { input_per_mtok = \"cheap\", output_per_mtok = 1.5 }",
        "price = { input_per_mtok = 1.0 }",
        "price = { input_per_mtok = 1.0, output_per_mtok = 1.0, extra = 1 }",
    ] {
        let text = GOOD.replace("model = \"qwen\"", &format!("model = \"qwen\"\n{bad}"));
        let err = parse(p(), &text).unwrap_err().to_string();
        assert!(err.contains("/cfg/config.toml:"), "{bad}: {err}");
    }
    for bad in ["0", "-2", "0.0000001", "inf"] {
        let text = GOOD.replace(
            "max_model_calls = 20",
            &format!("max_model_calls = 20\nmax_cost = {bad}"),
        );
        let err = parse(p(), &text).unwrap_err().to_string();
        assert!(err.contains("profiles.careful.max_cost"), "{bad}: {err}");
    }
}

#[test]
fn command_settings_parse_and_bad_ones_name_the_field() {
    let with = |extra: &str| {
        GOOD.replace(
            "max_model_calls = 20",
            &format!("max_model_calls = 20\n{extra}"),
        )
    };
    let c = parse(
        p(),
        &with("sandbox = \"off\"\nnetwork = true\ncommand_timeout_secs = 30\ntoolchain_dirs = [\".cargo\"]\ncommand_env = [\"CARGO_TERM_COLOR\"]\ncommand_rules = [{ prefix = \"cargo test\", decision = \"allow\" }, { prefix = \"cargo fetch\", decision = \"allow-network\" }]"),
    )
    .unwrap();
    let careful = &c.profiles["careful"];
    assert_eq!(careful.sandbox.as_deref(), Some("off"));
    assert_eq!(
        careful.command_rules.as_ref().unwrap()[1].decision,
        bearagent_kernel::RuleDecision::AllowNetwork
    );
    assert_eq!(
        careful.command_rules.as_ref().unwrap()[0].prefix,
        "cargo test"
    );
    for (bad, field) in [
        ("sandbox = \"maybe\"", "sandbox"),
        ("command_timeout_secs = 0", "command_timeout_secs"),
        ("toolchain_dirs = [\"/etc\"]", "toolchain_dirs"),
        ("toolchain_dirs = [\"../x\"]", "toolchain_dirs"),
        ("command_env = [\"1BAD\"]", "command_env"),
        (
            "command_rules = [{ prefix = \"\", decision = \"deny\" }]",
            "command_rules",
        ),
        (
            "command_rules = [{ prefix = \"rm; ls\", decision = \"deny\" }]",
            "command_rules",
        ),
        // An MCP tool has no sandbox network to open.
        (
            "mcp_rules = { everything = \"allow-network\" }",
            "mcp_rules",
        ),
    ] {
        let err = parse(p(), &with(bad)).unwrap_err().to_string();
        assert!(
            err.contains(&format!("profiles.careful.{field}")),
            "{bad}: {err}"
        );
    }
    let err = parse(
        p(),
        &with("command_rules = [{ prefix = \"rm\", decision = \"never\" }]"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("/cfg/config.toml:"), "{err}");
}

#[test]
fn a_context_window_and_compaction_settings_parse_and_bad_ones_name_the_field() {
    let set = |provider_extra: &str, profile_extra: &str| {
        GOOD.replace(
            "model = \"qwen\"",
            &format!("model = \"qwen\"\n{provider_extra}"),
        )
        .replace(
            "max_model_calls = 20",
            &format!("max_model_calls = 20\n{profile_extra}"),
        )
    };
    let c = parse(p(), &set("context_window = 32000", "compact_at = 0.7")).unwrap();
    assert_eq!(c.providers["local"].context_window, Some(32_000));
    let (profile, _, _) = crate::config::resolve::profile(&c, "careful").unwrap();
    assert_eq!(profile.context.compact_at_permille, Some(700));
    let off = parse(p(), &set("", "compact = false")).unwrap();
    let (profile, _, _) = crate::config::resolve::profile(&off, "careful").unwrap();
    assert_eq!(profile.context.compact_at_permille, None);
    let (default, _, _) =
        crate::config::resolve::profile(&parse(p(), GOOD).unwrap(), "careful").unwrap();
    assert_eq!(default.context.compact_at_permille, Some(850));
    for (provider_extra, profile_extra, field) in [
        ("context_window = 10", "", "providers.local.context_window"),
        (
            "context_window = 99999999999",
            "",
            "providers.local.context_window",
        ),
        ("", "compact_at = 1.5", "profiles.careful.compact_at"),
        ("", "compact_at = 0.0", "profiles.careful.compact_at"),
        ("", "compact_at = nan", "profiles.careful.compact_at"),
    ] {
        let err = parse(p(), &set(provider_extra, profile_extra))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(field),
            "{provider_extra}{profile_extra}: {err}"
        );
        assert!(err.contains("/cfg/config.toml:"), "{err}");
    }
    assert!(parse(p(), &set("", "compact = \"no\"")).is_err());
}
