//! `house.toml`: the crates and their direction, the floors inside them,
//! the limits, and today's debt.

use serde::Deserialize;

/// The whole declaration.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct House {
    pub limits: Limits,
    #[serde(rename = "crate")]
    pub crates: Vec<CrateDecl>,
    /// Every directory under it holding a `Cargo.toml` must be a declared crate.
    #[serde(default)]
    pub crates_home: Option<String>,
    #[serde(default)]
    pub floors: Vec<Floors>,
    pub application: Option<ApplicationHome>,
    pub ui: Option<Ui>,
    pub mock: Option<Mock>,
    #[serde(default)]
    pub debt: Vec<Debt>,
}

/// Longest production function and file, in lines.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub function_lines: usize,
    pub file_lines: usize,
}

/// One crate of ours. Paths are relative to the repository root.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrateDecl {
    pub name: String,
    /// Walked for function and file lengths.
    pub dir: String,
    /// Defaults to `{dir}/Cargo.toml`.
    pub manifest: Option<String>,
    /// The module tree's root folder; defaults to `{dir}/src`.
    pub src: Option<String>,
    /// The crates of ours it may depend on.
    #[serde(default)]
    pub may_use: Vec<String>,
}

impl CrateDecl {
    pub fn manifest(&self) -> String {
        self.manifest
            .clone()
            .unwrap_or_else(|| format!("{}/Cargo.toml", self.dir))
    }

    pub fn src(&self) -> String {
        self.src
            .clone()
            .unwrap_or_else(|| format!("{}/src", self.dir))
    }
}

/// The floors of one folder: each file imports only its own floor or lower.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Floors {
    #[serde(rename = "crate")]
    pub krate: String,
    pub dir: String,
    /// Floor 0 first; the names are the files' stems (`mod.rs` is the door).
    pub floor: Vec<Vec<String>>,
}

/// Where `impl Application` blocks may live.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApplicationHome {
    #[serde(rename = "crate")]
    pub krate: String,
    pub home: String,
}

/// The UI's sources, measured by file length.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ui {
    pub dirs: Vec<String>,
    pub extensions: Vec<String>,
    /// File names (exact) or name suffixes (`*.test.ts`) left out.
    pub exclude_names: Vec<String>,
    /// Folder names whose files are left out (`fixtures`).
    pub exclude_dirs: Vec<String>,
}

/// The UI mock: only the fixture player and the recorded fixtures.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mock {
    pub dir: String,
    /// Files of the player, relative to `dir`.
    pub player: Vec<String>,
    /// The recorded fixtures' folder, relative to `dir`.
    pub fixtures: String,
}

/// A violation that exists today, listed so that it can only go away.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Debt {
    pub kind: String,
    #[serde(default)]
    pub files: Vec<String>,
    pub file: Option<String>,
    pub function: Option<String>,
    pub lines: Option<usize>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub reason: String,
}

/// Parses `house.toml`'s text.
pub fn parse(text: &str) -> Result<House, String> {
    toml::from_str(text).map_err(|e| format!("house.toml: {e}"))
}
