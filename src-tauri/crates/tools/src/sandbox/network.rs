//! What a command sees and is told when the sandbox's network is off (the
//! default): package managers are switched to offline mode, so a cached
//! build works and an uncached dependency fails at once instead of after
//! many seconds of DNS retries; and a failure whose output reads like a
//! refused network access gets a note naming the setting that allows it.

/// Set in a sandboxed command's environment when its network is off (the
/// profile's own variables still override them). Each makes a common tool
/// use its local cache only and fail fast, naming what is not cached.
pub const OFFLINE_ENV: &[(&str, &str)] = &[
    // cargo: `--offline` for every command (resolves from ~/.cargo/registry).
    ("CARGO_NET_OFFLINE", "true"),
    // npm, and pnpm, which reads npm's settings: the cache or ENOTCACHED.
    ("npm_config_offline", "true"),
    ("npm_config_update_notifier", "false"),
    ("npm_config_audit", "false"),
    ("npm_config_fund", "false"),
    // ~/.npm is read-only: npm writes its debug logs to the private /tmp
    // instead of printing "Log files were not written" on every command.
    ("npm_config_logs_dir", "/tmp/npm-logs"),
    // yarn 2+.
    ("YARN_ENABLE_OFFLINE_MODE", "1"),
    // pip: local files and --find-links only, no index, no version check.
    ("PIP_NO_INDEX", "1"),
    ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    // uv.
    ("UV_OFFLINE", "1"),
    // go: modules from the module cache only; go.mod may be completed
    // from it instead of failing on a missing requirement.
    ("GOPROXY", "off"),
    ("GOFLAGS", "-mod=mod"),
    // Hugging Face libraries: cached models only.
    ("HF_HUB_OFFLINE", "1"),
];

/// Package caches under the home folder, writable (when they exist) for a
/// command with the network on, so `cargo fetch`, `npm install`, `pip
/// install` and `go mod download` can fill them; read-only otherwise.
/// Never `~/.cargo/bin` or a config file: only downloaded packages.
pub const NETWORK_CACHE_DIRS: &[&str] = &[
    ".cargo/registry",
    ".cargo/git",
    ".npm",
    ".cache/pip",
    "go/pkg/mod",
];

/// Said on every sandboxed command's result while the network is off.
pub const NETWORK_OFF: &str = "network off in the sandbox";

/// What allows the network, for the model and the user: for one command
/// (an approval with the network, a rule deciding `allow-network`) or for
/// every command of the profile.
pub const NETWORK_SETTING: &str = "the user can allow it for this command (approve it with the \
     network, or a command rule `allow-network`) or for every command (`network = true` in the \
     profile's commands settings)";

/// Output fragments (lowercase) of tools refused the network, or told to
/// stay offline by [`OFFLINE_ENV`]: DNS and socket errors, then each
/// package manager's offline-mode failure.
const NETWORK_FAILURE_SIGNS: &[&str] = &[
    "could not resolve host",
    "eai_again",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "address family not supported",
    "failed to establish a new connection",
    // cargo with CARGO_NET_OFFLINE
    "offline mode",
    "--offline was specified",
    // npm offline
    "enotcached",
    "only-if-cached",
    // pip with PIP_NO_INDEX
    "(from versions: none)",
    // go with GOPROXY=off
    "goproxy=off",
    // uv offline
    "network connectivity is disabled",
];

/// Whether `output` reads like a command that needed the network and was
/// refused it (or was told to stay offline).
pub fn looks_like_network_failure(output: &[u8]) -> bool {
    let text = String::from_utf8_lossy(output).to_ascii_lowercase();
    NETWORK_FAILURE_SIGNS.iter().any(|sign| text.contains(sign))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_failure_messages_are_recognised() {
        for output in [
            "warning: spurious network error (3 tries remaining): [6] Couldn't resolve host name (Could not resolve host: index.crates.io)",
            "npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
            "WARNING: Retrying ... Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'",
            "OSError: [Errno 97] Address family not supported by protocol",
            "curl: (7) Couldn't connect to server: Network is unreachable",
            "error: no matching package named `serde` found\nnote: offline mode (via `--offline`) can sometimes cause surprising resolution failures",
            "npm error code ENOTCACHED\nnpm error request to https://registry.npmjs.org/left-pad failed: cache mode is 'only-if-cached' but no cached response is available.",
            "ERROR: Could not find a version that satisfies the requirement six (from versions: none)",
            "go: example.com/m@v1.0.0: module lookup disabled by GOPROXY=off",
        ] {
            assert!(looks_like_network_failure(output.as_bytes()), "{output}");
        }
    }

    #[test]
    fn ordinary_failures_are_not_network_failures() {
        for output in [
            "test result: FAILED. 3 passed; 1 failed",
            "error[E0308]: mismatched types",
            "AssertionError: expected 2, got 3",
            "sh: 1: nosuchtool: not found",
            "",
        ] {
            assert!(!looks_like_network_failure(output.as_bytes()), "{output}");
        }
    }

    #[test]
    fn offline_variables_are_valid_names_set_once() {
        let mut names: Vec<&str> = OFFLINE_ENV.iter().map(|(name, _)| *name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a variable is set twice");
        for (name, value) in OFFLINE_ENV {
            assert!(!name.is_empty() && !name.contains('=') && !value.is_empty());
        }
    }
}
