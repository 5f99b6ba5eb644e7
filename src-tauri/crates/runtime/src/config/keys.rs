//! API keys live in the OS keychain (or an environment variable named in
//! the config). They are read only to build a provider and never written
//! to SQLite, config files, logs or errors.

use bearagent_providers::ApiKey;

const SERVICE: &str = "dev.bearagent.providers";

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("the OS keychain is not available: {0}")]
    Unavailable(String),
    #[error("no key is stored in the OS keychain for provider {0:?}")]
    Missing(String),
    #[error("environment variable {0} is not set")]
    EnvMissing(String),
}

/// Where keys are kept. The real one is the OS keychain.
pub trait SecretStore: Send + Sync {
    fn get(&self, provider: &str) -> Result<ApiKey, KeyError>;
    fn set(&self, provider: &str, key: &str) -> Result<(), KeyError>;
    fn delete(&self, provider: &str) -> Result<(), KeyError>;
    fn contains(&self, provider: &str) -> bool {
        self.get(provider).is_ok()
    }
}

/// The OS keychain (Secret Service on Linux, Keychain on macOS, Credential
/// Manager on Windows).
pub struct OsKeychain;

fn unavailable(e: keyring::Error) -> KeyError {
    // The keyring error never contains the secret itself.
    KeyError::Unavailable(e.to_string())
}

impl SecretStore for OsKeychain {
    fn get(&self, provider: &str) -> Result<ApiKey, KeyError> {
        let entry = keyring::Entry::new(SERVICE, provider).map_err(unavailable)?;
        match entry.get_password() {
            Ok(key) => Ok(ApiKey::new(key)),
            Err(keyring::Error::NoEntry) => Err(KeyError::Missing(provider.to_owned())),
            Err(e) => Err(unavailable(e)),
        }
    }

    fn set(&self, provider: &str, key: &str) -> Result<(), KeyError> {
        keyring::Entry::new(SERVICE, provider)
            .and_then(|e| e.set_password(key))
            .map_err(unavailable)
    }

    fn delete(&self, provider: &str) -> Result<(), KeyError> {
        match keyring::Entry::new(SERVICE, provider).and_then(|e| e.delete_credential()) {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }
}

/// A key from an environment variable.
pub fn key_from_env(variable: &str) -> Result<ApiKey, KeyError> {
    match std::env::var(variable) {
        Ok(v) if !v.is_empty() => Ok(ApiKey::new(v)),
        _ => Err(KeyError::EnvMissing(variable.to_owned())),
    }
}

/// Keys in memory, for tests of the layers above.
#[cfg(test)]
#[derive(Default)]
pub struct MemoryKeys(std::sync::Mutex<std::collections::HashMap<String, String>>);

#[cfg(test)]
impl SecretStore for MemoryKeys {
    fn get(&self, provider: &str) -> Result<ApiKey, KeyError> {
        self.0
            .lock()
            .unwrap()
            .get(provider)
            .map(|k| ApiKey::new(k.clone()))
            .ok_or_else(|| KeyError::Missing(provider.to_owned()))
    }
    fn set(&self, provider: &str, key: &str) -> Result<(), KeyError> {
        self.0.lock().unwrap().insert(provider.into(), key.into());
        Ok(())
    }
    fn delete(&self, provider: &str) -> Result<(), KeyError> {
        self.0.lock().unwrap().remove(provider);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Talks to the real Secret Service. `scripts/test.sh` runs the tests
    /// inside a D-Bus session with an unlocked gnome-keyring, so this is a
    /// real round trip there; elsewhere it says why it cannot run.
    #[test]
    fn the_os_keychain_round_trips_a_key() {
        let name = format!("bearagent-test-{}", std::process::id());
        if let Err(KeyError::Unavailable(why)) = OsKeychain.set(&name, "sk-test-roundtrip") {
            assert!(
                std::env::var_os("BEARAGENT_REQUIRE_KEYCHAIN").is_none(),
                "the keychain is required here but unavailable: {why}"
            );
            eprintln!("skipping: no Secret Service ({why})");
            return;
        }
        let key = OsKeychain.get(&name).unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert!(OsKeychain.contains(&name));
        OsKeychain.delete(&name).unwrap();
        assert!(matches!(OsKeychain.get(&name), Err(KeyError::Missing(_))));
    }

    #[test]
    fn a_missing_env_variable_is_named_without_any_value() {
        let err = key_from_env("BEARAGENT_SURELY_UNSET_VARIABLE").unwrap_err();
        assert_eq!(
            err.to_string(),
            "environment variable BEARAGENT_SURELY_UNSET_VARIABLE is not set"
        );
    }
}
