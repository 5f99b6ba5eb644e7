//! Shared body of the `prepare` fuzz targets: fuzz bytes become an argument
//! object for one workspace tool, which is prepared against a fixed
//! workspace full of traps (`.git/`, symlinks out of the workspace, dangling
//! and looping symlinks, a large file, odd names).
//!
//! Only the public API is used: the registry, `Tool::prepare`, the tool's
//! `ToolSpec`, and the serialised form of the `PreparedCall` (its `Serialize`
//! impl is what the runtime records), never its fields.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]

use bearagent_tools::{Effect, Registry, Tool, WorkspaceRoot};
use serde_json::{Map, Number, Value};
use std::fs;
use std::path::{Component, Path};
use std::sync::OnceLock;

/// The tools fuzzed, by registry name.
pub const TOOLS: [&str; 5] = [
    "list_dir",
    "read_file",
    "search_text",
    "write_file",
    "edit_file",
];

struct Fixture {
    /// Keeps the temporary directory alive for the whole process.
    _dir: tempfile::TempDir,
    ws: WorkspaceRoot,
    /// `<workspace root>/` and `<its parent>/`, for absolute paths.
    root_slash: String,
    parent_slash: String,
    registry: Registry,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| build_fixture().expect("the fuzz workspace can be created"))
}

/// `<tmp>/outside/…` (not in the workspace) and `<tmp>/ws/…` (the workspace).
fn build_fixture() -> std::io::Result<Fixture> {
    use std::os::unix::fs::symlink;
    let dir = tempfile::Builder::new()
        .prefix("bearagent-tools-fuzz-")
        .tempdir()?;
    let outside = dir.path().join("outside");
    fs::create_dir_all(&outside)?;
    fs::write(outside.join("secret.txt"), "outside the workspace\n")?;
    let root = dir.path().join("ws");
    let put = |rel: &str, content: &[u8]| -> std::io::Result<()> {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, content)
    };
    put("a.txt", b"alpha\nbeta\ngamma\n")?;
    put("empty.txt", b"")?;
    put("bin.dat", b"\x00\x01\x02binary\x00\xff\xfe")?;
    put("with space.txt", b"spaces in the name\n")?;
    put("\u{fc}n\u{ef}c\u{f8}d\u{e9}.md", "ünïcødé\n".as_bytes())?;
    put("sub/b.rs", b"fn main() {}\n")?;
    put("sub/deeper/c.md", b"# deep\n")?;
    put(".gitignore", b"ignored/\n")?;
    put("ignored/x.txt", b"ignored\n")?;
    put(".git/HEAD", b"ref: refs/heads/main\n")?;
    put(".git/config", b"[core]\n")?;
    fs::create_dir_all(root.join(".git/objects"))?;
    fs::create_dir_all(root.join("empty_dir"))?;
    let big: String = (0..40_000)
        .map(|i| format!("line {i} of a large-ish file\n"))
        .collect();
    put("big.txt", big.as_bytes())?;
    symlink("../outside", root.join("link_out"))?;
    symlink("../outside/secret.txt", root.join("link_out_file"))?;
    symlink("/etc", root.join("link_abs"))?;
    symlink("sub", root.join("link_in"))?;
    symlink("a.txt", root.join("link_file"))?;
    symlink("does-not-exist", root.join("link_dangling"))?;
    symlink("link_loop", root.join("link_loop"))?;
    symlink(".git", root.join("link_git"))?;
    symlink("..", root.join("sub/up"))?;
    let ws = WorkspaceRoot::new(&root).map_err(std::io::Error::other)?;
    let root_slash = format!("{}/", ws.path().display());
    let parent_slash = match ws.path().parent() {
        Some(parent) => format!("{}/", parent.display()),
        None => "/".to_owned(),
    };
    Ok(Fixture {
        _dir: dir,
        ws,
        root_slash,
        parent_slash,
        registry: Registry::with_workspace_tools(),
    })
}

/// Prepare one call of `tool` from the fuzz input. A JSON object input is
/// used as is; anything else is decoded into an object whose keys are (mostly)
/// the tool's real parameter names and whose values mix types, numbers at the
/// limits, hostile paths and diff/regex fragments.
pub fn run(tool: &str, data: &[u8]) {
    let fx = fixture();
    let tool = fx.registry.get(tool).expect("a workspace tool");
    let args = match serde_json::from_slice::<Value>(data) {
        Ok(Value::Object(map)) => map,
        _ => build_args(fx, tool.as_ref(), data),
    };
    // Every pattern is fuzzed: `search_text`'s prepare only parses the
    // regex (its compilation happens in execute), so none is slow here.
    check(fx, tool.as_ref(), &args);
}

fn check(fx: &Fixture, tool: &dyn Tool, args: &Map<String, Value>) {
    let spec = tool.spec();
    let call = match tool.prepare(args, &fx.ws) {
        Ok(call) => call,
        Err(e) => {
            // The message goes back to the model: it must say something.
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let _ = format!("{call:?}");
    let value = serde_json::to_value(&call).expect("a prepared call serialises");
    assert_eq!(value["tool"], spec.name.as_str(), "{value}");
    let path = value["args"]["path"].as_str();
    if let Some(path) = path {
        assert_confined(path, &value);
    }
    match spec.effect {
        Effect::ReadOnly => {
            assert_eq!(value["effect"], "read_only", "{value}");
            assert!(value["write_target"].is_null(), "{value}");
        }
        Effect::Writes => {
            // Every writing call names its one target, inside the workspace
            // and outside .git, and its normalised path is that target.
            assert_eq!(value["effect"], "writes", "{value}");
            let rel = value["write_target"]["rel_path"]
                .as_str()
                .unwrap_or_else(|| panic!("a write without a target: {value}"));
            let abs = value["write_target"]["abs_path"]
                .as_str()
                .unwrap_or_else(|| panic!("a write target without abs_path: {value}"));
            assert_confined(rel, &value);
            assert_eq!(path, Some(rel), "{value}");
            assert!(rel != ".", "a write to the workspace root: {value}");
            assert!(
                Path::new(abs).starts_with(fx.ws.path()),
                "write target outside the workspace: {value}"
            );
            assert_eq!(fx.ws.path().join(rel), Path::new(abs), "{value}");
            assert!(
                !Path::new(rel)
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(".git")),
                "a write inside .git: {value}"
            );
        }
        // No workspace tool runs commands through `prepare` alone or acts
        // outside the workspace; run_command has its own tests.
        Effect::RunsCommand | Effect::External => {}
    }
}

/// A normalised path is workspace-relative: not absolute, no `..`, no NUL.
fn assert_confined(rel: &str, value: &Value) {
    assert!(!rel.is_empty(), "empty normalised path: {value}");
    assert!(!rel.contains('\0'), "NUL in normalised path: {value}");
    assert!(
        Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
        "normalised path is not workspace-relative: {value}"
    );
}

/// Reads the fuzz input byte by byte; zeros once it runs out.
struct Input<'a> {
    data: &'a [u8],
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[usize::from(self.byte()) % items.len()]
    }

    fn bytes(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }
}

const PATH_WORDS: &[&str] = &[
    ".",
    "..",
    ".git",
    ".GIT",
    ".Git",
    "a.txt",
    "big.txt",
    "bin.dat",
    "empty.txt",
    "sub",
    "deeper",
    "b.rs",
    "c.md",
    "up",
    "empty_dir",
    "with space.txt",
    "\u{fc}n\u{ef}c\u{f8}d\u{e9}.md",
    "ignored",
    "x.txt",
    "link_out",
    "link_out_file",
    "link_abs",
    "link_in",
    "link_file",
    "link_dangling",
    "link_loop",
    "link_git",
    "secret.txt",
    "HEAD",
    "objects",
    "new.txt",
    "ws",
    "outside",
    "etc",
    "",
    " ",
    "\0",
    "nul\0byte",
    "~",
    "\\",
    "C:",
    "*",
    "a\nb",
    "\u{202e}txt",
    "...",
];

const TEXT_WORDS: &[&str] = &[
    "alpha",
    "beta\n",
    "\n",
    "\r\n",
    " ",
    "--- a/a.txt\n",
    "+++ b/a.txt\n",
    "@@ -1 +1 @@\n",
    "@@ -1,3 +1,3 @@\n",
    "@@ -0,0 +1 @@\n",
    "@@ -1,0 +1,2 @@ ctx\n",
    " alpha\n",
    "-beta\n",
    "+delta\n",
    "\\ No newline at end of file\n",
    "(",
    ")",
    "[a-z]+",
    ".*",
    "\\b",
    "(?i)",
    "{2}",
    "{3,}",
    "\\p{L}",
    "|",
    "^",
    "$",
    "\\",
    "\0",
    "\u{e9}",
    "\u{1f600}",
];

fn build_args(fx: &Fixture, tool: &dyn Tool, data: &[u8]) -> Map<String, Value> {
    let mut input = Input { data };
    let fields: Vec<&str> = tool.spec().parameters["properties"]
        .as_object()
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let n = input.byte() % 7;
    let mut map = Map::new();
    for _ in 0..n {
        let k = usize::from(input.byte()) % (fields.len() + 3);
        let key = match fields.get(k) {
            Some(field) => (*field).to_owned(),
            None => match k - fields.len() {
                0 => "bogus".to_owned(),
                1 => String::new(),
                _ => fields.first().map(|f| f.to_uppercase()).unwrap_or_default(),
            },
        };
        let value = value(fx, &mut input, 2);
        map.insert(key, value);
    }
    map
}

fn value(fx: &Fixture, input: &mut Input<'_>, depth: u8) -> Value {
    match input.byte() % 10 {
        0 => Value::Null,
        1 => Value::Bool(input.byte() & 1 == 1),
        2 => Value::from(input.byte()),
        3 => interesting_number(input),
        4 => Value::String(path(fx, input)),
        5 => Value::String(text(input)),
        6 => {
            let len = usize::from(input.byte());
            Value::String(String::from_utf8_lossy(input.bytes(len)).into_owned())
        }
        7 if depth > 0 => {
            let n = input.byte() % 4;
            Value::Array((0..n).map(|_| value(fx, input, depth - 1)).collect())
        }
        8 if depth > 0 => {
            let n = input.byte() % 3;
            let mut map = Map::new();
            for _ in 0..n {
                let key = text(input);
                map.insert(key, value(fx, input, depth - 1));
            }
            Value::Object(map)
        }
        _ => {
            let mut raw = [0u8; 8];
            let bytes = input.bytes(8);
            raw[..bytes.len()].copy_from_slice(bytes);
            Value::from(u64::from_le_bytes(raw))
        }
    }
}

fn interesting_number(input: &mut Input<'_>) -> Value {
    const INTS: &[i128] = &[
        0,
        1,
        2,
        8,
        9,
        200,
        2000,
        2001,
        5000,
        5001,
        262_144,
        16_777_216,
        16_777_217,
        u32::MAX as i128,
        u32::MAX as i128 + 1,
        u64::MAX as i128,
        -1,
        i64::MIN as i128,
    ];
    const FLOATS: &[f64] = &[1.0, 1.5, -0.0, 1e300, -1e300, 2.5e-308, 4_294_967_296.0];
    let i = usize::from(input.byte()) % (INTS.len() + FLOATS.len());
    match INTS.get(i) {
        Some(&n) => match u64::try_from(n) {
            Ok(u) => Value::from(u),
            Err(_) => Value::from(n as i64),
        },
        None => Number::from_f64(FLOATS[i - INTS.len()]).map_or(Value::Null, Value::Number),
    }
}

/// A path: a prefix (relative, the absolute workspace root, its parent,
/// `/`, `/etc/`…) then up to 5 components from [`PATH_WORDS`] joined by
/// `/` (sometimes `//` or `/./`), sometimes with a trailing `/`.
fn path(fx: &Fixture, input: &mut Input<'_>) -> String {
    let control = input.byte();
    let mut out = match control % 8 {
        0 | 1 => String::new(),
        2 => fx.root_slash.clone(),
        3 => fx.parent_slash.clone(),
        4 => "/".to_owned(),
        5 => "/etc/".to_owned(),
        6 => "./".to_owned(),
        _ => fx.root_slash.trim_end_matches('/').to_owned(),
    };
    let parts = (control >> 3) % 6;
    for i in 0..parts {
        if i > 0 {
            out.push_str(input.pick(&["/", "/", "/", "//", "/./"]));
        }
        out.push_str(input.pick(PATH_WORDS));
    }
    if control >> 6 == 3 {
        out.push('/');
    }
    out
}

/// Text for contents, patterns and diffs: up to 15 [`TEXT_WORDS`].
fn text(input: &mut Input<'_>) -> String {
    let n = input.byte() % 16;
    (0..n).map(|_| input.pick(TEXT_WORDS)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_runs() {
        for name in TOOLS {
            run(name, b"");
            run(name, b"{\"path\":\"a.txt\"}");
            run(name, &[6, 0, 4, 2, 5, 0, 1, 4, 0xc1, 5, 9]);
        }
    }
}
