//! `bearagent config check` and `bearagent providers test NAME`.

use crate::args::ProviderTestArgs;
use crate::exit::{self, Exit};
use bearagent_runtime::config::{KeySource, NamedKeySource};
use bearagent_runtime::Application;

pub fn check(app: &Application) -> Exit {
    let path = app.config_path().display().to_string();
    match app.settings() {
        Ok(settings) => {
            if !app.config_path().exists() {
                println!("{path}: no config file (built-in defaults: profile \"default\", provider \"demo\")");
                return Exit::Succeeded;
            }
            println!("{path}: ok");
            for p in &settings.providers {
                let key = match &p.entry.key {
                    KeySource::Env { env } => format!("key from ${env}"),
                    KeySource::Named(NamedKeySource::Keychain) => "key in the OS keychain".into(),
                    KeySource::Named(NamedKeySource::None) | KeySource::Unset => "no key".into(),
                };
                let present = if matches!(p.entry.key, KeySource::Named(NamedKeySource::None)) {
                    ""
                } else if p.key_present {
                    " (present)"
                } else {
                    " (MISSING)"
                };
                println!(
                    "  provider {:<16} {:<17} {} model {} — {key}{present}",
                    p.name, p.entry.protocol, p.entry.base_url, p.entry.model
                );
            }
            for (name, profile) in &settings.profiles {
                println!(
                    "  profile  {:<16} provider {}",
                    name,
                    profile.provider.as_deref().unwrap_or("(none)")
                );
            }
            Exit::Succeeded
        }
        Err(e) => {
            eprintln!("bearagent: {e}");
            Exit::Usage
        }
    }
}

pub async fn test_provider(app: &Application, args: ProviderTestArgs) -> Exit {
    let overrides = crate::run_cmd::overrides(&args.overrides);
    match app.test_provider(&args.name, &overrides).await {
        Ok(t) if t.ok => {
            println!("ok: {}", t.message);
            Exit::Succeeded
        }
        Ok(t) => {
            println!(
                "failed ({}): {}",
                t.error_class.as_deref().unwrap_or("error"),
                t.message
            );
            Exit::Failed
        }
        Err(e) => exit::report(&e),
    }
}
