//! Configuration: the TOML file (providers, profiles), where keys come
//! from, and turning names into providers and run profiles.

pub mod file;
pub mod keys;
/// Learning a local server's window and tools; a detected server as a provider.
pub mod learn;
pub mod load;
pub mod mcp;
pub mod resolve;
/// Checking a parsed file's rules across fields.
pub mod validate;
pub mod web;

pub use file::{
    ConfigError, ConfigFile, KeySource, NamedKeySource, PriceEntry, ProfileEntry, ProviderEntry,
    RememberedCommand, TrustedHooks,
};
pub use keys::{KeyError, OsKeychain, SecretStore};
pub use mcp::{McpServerEntry, SecretValue};
pub use resolve::ProviderOverrides;
pub use validate::{compact_at_permille, max_cost_micro_usd, validate};
pub use web::WebEntry;
