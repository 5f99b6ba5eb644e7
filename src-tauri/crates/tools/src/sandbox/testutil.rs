//! A fake machine for the sandbox tests: a workspace (a git repo), a fake
//! home with an SSH key and a toolchain dir, a sibling project, and a
//! BearAgent data folder that must stay hidden.
//!
//! Everything lives under `/var/tmp` (or `$BEARAGENT_SANDBOX_TEST_DIR`), not
//! `/tmp`: the sandbox has its own `/tmp`, so paths under the host's `/tmp`
//! would be invisible anyway and the tests would prove nothing.

use super::{run, CommandOutcome, CommandSpec, SandboxMode, SandboxPolicy};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub const SSH_SECRET: &str = "FAKE-SSH-KEY-6d0b1c";
pub const DATA_SECRET: &str = "FAKE-DATA-FOLDER-e41a";
pub const INNER_SECRET: &str = "FAKE-INNER-DATA-9f27";
pub const CONFIG_SECRET: &str = "FAKE-CONFIG-FILE-33c8";

pub struct Fixture {
    _root: tempfile::TempDir,
    pub workspace: PathBuf,
    pub home: PathBuf,
    pub sibling: PathBuf,
    /// Hidden data folder outside home and workspace.
    pub data: PathBuf,
    /// Hidden folder inside the workspace.
    pub inner_data: PathBuf,
    /// Hidden single file outside home.
    pub config_file: PathBuf,
}

pub fn fixture() -> Fixture {
    let base = std::env::var_os("BEARAGENT_SANDBOX_TEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp"));
    let dir = tempfile::Builder::new()
        .prefix("bearagent-sandbox-")
        .tempdir_in(&base)
        .unwrap_or_else(|error| panic!("cannot create a test folder in {base:?}: {error}"));
    let root = fs::canonicalize(dir.path()).unwrap();
    assert!(
        !root.starts_with("/tmp"),
        "test folder must not be under /tmp"
    );
    let workspace = root.join("workspace");
    let home = root.join("home");
    let sibling = root.join("sibling");
    let data = root.join("data");
    let inner_data = workspace.join(".bearagent");
    let config_file = root.join("bearagent.toml");
    for dir in [
        workspace.join(".git/hooks"),
        home.join(".ssh"),
        home.join(".cargo/bin"),
        sibling.clone(),
        data.clone(),
        inner_data.clone(),
    ] {
        fs::create_dir_all(dir).unwrap();
    }
    write(&workspace.join("README.md"), "workspace readme\n");
    write(&workspace.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(&workspace.join(".git/config"), "[core]\n\tbare = false\n");
    write(&workspace.join(".git/hooks/pre-push.sample"), "#!/bin/sh\n");
    write(&home.join(".ssh/id_rsa"), SSH_SECRET);
    write(
        &home.join(".cargo/bin/fake-tool"),
        "#!/bin/sh\necho fake-tool-ran\n",
    );
    make_executable(&home.join(".cargo/bin/fake-tool"));
    write(&sibling.join("file.txt"), "sibling content\n");
    write(&data.join("data.db"), DATA_SECRET);
    write(&inner_data.join("state.db"), INNER_SECRET);
    write(&config_file, CONFIG_SECRET);
    Fixture {
        _root: dir,
        workspace,
        home,
        sibling,
        data,
        inner_data,
        config_file,
    }
}

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

impl Fixture {
    pub fn policy(&self) -> SandboxPolicy {
        SandboxPolicy {
            workspace: self.workspace.clone(),
            home: self.home.clone(),
            network: false,
            readable_home_dirs: vec![self.home.join(".cargo"), self.home.join(".rustup")],
            writable_home_dirs: Vec::new(),
            config_files: super::home::CONFIG_FILES
                .iter()
                .map(|file| self.home.join(file))
                .collect(),
            credentials: super::home::CREDENTIALS
                .iter()
                .map(|file| self.home.join(file))
                .collect(),
            path: Vec::new(),
            hidden: vec![
                self.data.clone(),
                self.inner_data.clone(),
                self.config_file.clone(),
            ],
            env: vec![("BEARAGENT_PROFILE_VAR".into(), "from-profile".into())],
        }
    }

    pub fn spec(&self, command: &str) -> CommandSpec {
        CommandSpec {
            command: command.into(),
            cwd: self.workspace.clone(),
            timeout: Duration::from_secs(30),
            output_cap: 64 * 1024,
        }
    }

    /// Runs `command` sandboxed with the default policy; shows it in the log.
    pub async fn run(&self, command: &str) -> CommandOutcome {
        self.run_with(&self.policy(), SandboxMode::On, command)
            .await
    }

    pub async fn run_with(
        &self,
        policy: &SandboxPolicy,
        mode: SandboxMode,
        command: &str,
    ) -> CommandOutcome {
        let spec = self.spec(command);
        let outcome = run(mode, policy, &spec, CancellationToken::new(), |_| {})
            .await
            .unwrap_or_else(|error| panic!("run failed: {error}"));
        println!(
            "$ {command}\n[exit {:?}, signal {:?}]\n{}",
            outcome.exit_code,
            outcome.signal,
            text(&outcome)
        );
        outcome
    }
}

pub fn text(outcome: &CommandOutcome) -> String {
    String::from_utf8_lossy(&outcome.output).into_owned()
}

/// A unique number to put in a command line, e.g. `sleep 1000.<marker>`
/// (GNU sleep takes fractions), so `pgrep -f` finds only this test's process.
pub fn marker() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{}{:09}{}",
        std::process::id(),
        nanos,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether a live process has `pattern` in its command line.
pub fn process_alive(pattern: &str) -> bool {
    let status = std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pgrep (procps) is needed by the sandbox tests");
    status.success()
}
