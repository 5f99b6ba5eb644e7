//! What a command sees of the user's home folder besides the profile's
//! toolchain folders: the version managers its PATH points into, bound
//! read-only so `python3` inside is the one the user's shell runs; the
//! tools' configuration files, read-only, unless one looks like it holds
//! a credential; and never the credential files of [`CREDENTIALS`], even
//! inside a folder that is bound.

use std::path::{Path, PathBuf};

/// Tool configuration under the home folder, readable so tools inside
/// behave as in the user's terminal (files or folders; missing ones are
/// skipped; a file that looks like it holds a credential is not passed).
pub const CONFIG_FILES: &[&str] = &[
    ".gitconfig",
    ".config/git",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".cargo/config.toml",
    ".cargo/config",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".tool-versions",
    ".config/mise/config.toml",
];

/// Credentials under the home folder: never readable by a command, also
/// when a bound folder holds them (`~/.cargo` holds `credentials.toml`).
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".git-credentials",
    ".config/git/credentials",
    ".netrc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".pypirc",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".terraform.d/credentials.tfrc.json",
    ".password-store",
    ".local/share/keyrings",
];

/// The variables naming a toolchain's home, passed into a command when
/// set (rustup sets them for every program it starts).
pub const TOOL_HOME_VARS: [&str; 2] = ["RUSTUP_HOME", "CARGO_HOME"];

/// Lowercase fragments of a line that sets a secret: npm's `_authToken`,
/// `_auth` and `_password`, cargo's registry `token`, git's
/// `extraheader`, any password, and a URL with `user:password@`.
const CREDENTIAL_SIGNS: &[&str] = &[
    "_authtoken",
    "_auth",
    "_password",
    "password",
    "token",
    "secret",
    "extraheader",
    "authorization",
];

/// Whether a configuration file's text looks like it holds a credential
/// (then the whole file is withheld: a filtered copy could still leak).
pub fn looks_like_credential(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim().to_ascii_lowercase();
        if line.starts_with('#') || line.starts_with(';') {
            return false;
        }
        CREDENTIAL_SIGNS.iter().any(|sign| line.contains(sign)) || url_with_password(&line)
    })
}

/// `scheme://user:password@host` anywhere in `line`.
fn url_with_password(line: &str) -> bool {
    line.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', ' ', '"', '\'']).next().unwrap_or("");
        authority
            .split_once('@')
            .is_some_and(|(user, _)| user.contains(':'))
    })
}

/// What becomes of the configuration files: bound read-only, hidden
/// (inside a bound folder, looking like a credential), or withheld (not
/// bound for looking like one; invisible in the empty home anyway).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ConfigFiles {
    pub bind: Vec<PathBuf>,
    pub hide: Vec<PathBuf>,
    pub withheld: Vec<PathBuf>,
}

/// Sorts `configs` into [`ConfigFiles`]. A folder is bound whole, with its
/// files that look like credentials hidden; a path inside one of `bound`
/// (already visible) is only checked.
pub(crate) fn config_files(configs: &[PathBuf], bound: &[PathBuf]) -> ConfigFiles {
    let mut out = ConfigFiles::default();
    for config in configs {
        let files: Vec<PathBuf> = if config.is_dir() {
            std::fs::read_dir(config)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.is_file())
                .collect()
        } else if config.is_file() {
            vec![config.clone()]
        } else {
            continue;
        };
        // Unreadable here means unreadable inside too: not a leak.
        let secret = |file: &PathBuf| {
            std::fs::read(file)
                .is_ok_and(|bytes| looks_like_credential(&String::from_utf8_lossy(&bytes)))
        };
        let (secrets, clean): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(secret);
        let seen = bound.iter().any(|dir| config.starts_with(dir));
        if config.is_dir() || seen {
            if !seen {
                out.bind.push(config.clone());
            }
            out.hide.extend(secrets);
        } else if clean.is_empty() {
            out.withheld.extend(secrets);
        } else {
            out.bind.push(config.clone());
        }
    }
    out
}

/// Toolchain and version-manager roots under the home folder. A PATH
/// entry inside one makes the whole root readable: shims and `current`
/// links point into the versions kept beside them.
pub const TOOLCHAIN_ROOTS: &[&str] = &[
    ".pyenv",
    ".nvm",
    ".asdf",
    ".local/share/mise",
    ".rbenv",
    ".sdkman",
    ".local/bin",
    ".cargo/bin",
    ".rustup",
    ".volta",
    ".bun",
    ".deno",
    ".local/share/pnpm",
    "go/bin",
    ".conda",
    "miniconda3",
    "anaconda3",
    "miniforge3",
];

/// `entry` relative to `home` (given as is, or canonical when it is a
/// symlink), when it lies under it.
pub(crate) fn under_home<'a>(entry: &'a Path, home: &Path) -> Option<&'a Path> {
    entry.strip_prefix(home).ok().or_else(|| {
        let canonical = std::fs::canonicalize(home).ok()?;
        entry.strip_prefix(canonical).ok()
    })
}

/// The roots of [`TOOLCHAIN_ROOTS`] (as paths under `home`) that entries
/// of the user's `path` point into, each once, in PATH order.
pub fn toolchain_roots_on_path(home: &Path, path: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for entry in path {
        let Some(relative) = under_home(entry, home) else {
            continue;
        };
        let root = TOOLCHAIN_ROOTS
            .iter()
            .map(Path::new)
            .find(|root| relative.starts_with(root));
        if let Some(root) = root.map(|root| home.join(root)) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_configuration_are_recognised() {
        for text in [
            "//registry.npmjs.org/:_authToken=npm_abc",
            "_auth = dXNlcjpwYXNz",
            "[registries.corp]\ntoken = \"cio_123\"",
            "[http]\n\textraHeader = AUTHORIZATION: basic abc",
            "[url \"https://me:ghp_abc@github.com/\"]\n\tinsteadOf = https://github.com/",
            "index-url = https://user:pw@pypi.corp/simple",
        ] {
            assert!(looks_like_credential(text), "{text}");
        }
        for text in [
            "[user]\n\tname = A\n\temail = a@example.com",
            "registry=https://registry.npmjs.org/",
            "[alias]\nb = \"build\"\n[net]\ngit-fetch-with-cli = true",
            "[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/",
            "# token = commented out",
            "index-url = https://pypi.corp/simple",
        ] {
            assert!(!looks_like_credential(text), "{text}");
        }
    }

    #[test]
    fn path_entries_into_version_managers_name_their_roots() {
        let home = Path::new("/home/u");
        let path: Vec<PathBuf> = [
            "/home/u/.pyenv/plugins/pyenv-virtualenv/shims",
            "/home/u/.pyenv/shims",
            "/home/u/.nvm/versions/node/v20.1.0/bin",
            "/home/u/.local/share/mise/shims",
            "/home/u/.sdkman/candidates/java/current/bin",
            "/home/u/.secret-tool/bin",
            "/usr/local/bin",
            "/home/u/.local/bin",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        let roots = toolchain_roots_on_path(home, &path);
        let expected: Vec<PathBuf> = [
            ".pyenv",
            ".nvm",
            ".local/share/mise",
            ".sdkman",
            ".local/bin",
        ]
        .into_iter()
        .map(|root| home.join(root))
        .collect();
        assert_eq!(roots, expected);
    }
}
