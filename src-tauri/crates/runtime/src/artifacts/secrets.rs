//! Files an export leaves out: what the workspace keeps out of git for
//! good reason (environment files, keys) may be restorable locally, but a
//! run handed to someone else must not carry it.

use bearagent_kernel::{EventEnvelope, EventPayload};

/// A file whose versions an export leaves out: environment files, keys,
/// credential stores (the user's workspace may hold them; a shared export
/// must not).
pub fn looks_secret(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    name == ".env"
        || name.starts_with(".env.")
        || name.ends_with(".env")
        || [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"]
            .iter()
            .any(|ext| name.ends_with(ext))
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("credentials")
        || name.starts_with("secrets")
        || [".npmrc", ".pypirc", ".netrc", ".git-credentials"].contains(&name.as_str())
}

/// The versions of secret-looking files that a run's events reference.
pub(crate) fn secret_hashes(
    events: &[EventEnvelope],
) -> std::collections::BTreeSet<bearagent_kernel::ContentHash> {
    let mut out = std::collections::BTreeSet::new();
    for e in events {
        if let Some((path, restored, replaced)) = e.payload.review_versions() {
            if looks_secret(path) {
                out.extend(restored.iter().chain(replaced).cloned());
            }
            continue;
        }
        let (path, hashes): (&str, Vec<&Option<bearagent_kernel::ContentHash>>) = match &e.payload {
            EventPayload::ArtifactRecorded {
                path,
                before_hash,
                after_hash,
                ..
            } => (path, vec![before_hash, after_hash]),
            EventPayload::EffectIntended {
                path, before_hash, ..
            } => (path, vec![before_hash]),
            _ => continue,
        };
        if looks_secret(path) {
            out.extend(hashes.into_iter().flatten().cloned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn environment_files_and_keys_look_secret_and_code_does_not() {
        for p in [
            ".env",
            "app/.env.local",
            "prod.env",
            "certs/server.key",
            "id_rsa",
            "config/credentials.json",
            ".npmrc",
        ] {
            assert!(looks_secret(p), "{p}");
        }
        for p in [
            "src/env.rs",
            "README.md",
            ".envrc.example.md",
            "keys.py",
            "environment.yml",
        ] {
            assert!(!looks_secret(p), "{p}");
        }
    }
}
