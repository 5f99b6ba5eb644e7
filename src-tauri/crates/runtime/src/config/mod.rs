//! Configuration: the TOML file (providers, profiles), where keys come
//! from, and turning names into providers and run profiles.

pub mod file;
pub mod keys;
pub mod mcp;
pub mod resolve;

pub use file::{
    max_cost_micro_usd, ConfigError, ConfigFile, KeySource, NamedKeySource, PriceEntry,
    ProfileEntry, ProviderEntry,
};
pub use keys::{KeyError, OsKeychain, SecretStore};
pub use mcp::{McpServerEntry, SecretValue};
pub use resolve::ProviderOverrides;
