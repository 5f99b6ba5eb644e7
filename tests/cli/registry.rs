//! Real projects for the end-to-end tests, fetched from the registries
//! with their ordinary clients (cargo, pip, npm) into a cache under the
//! cargo target dir, so a re-run downloads nothing; and running a command
//! outside the sandbox, as a user's terminal would.
//!
//! A project whose registry cannot be reached (and is not cached yet)
//! fails its test, unless `BEARAGENT_OFFLINE=1` says the machine is
//! offline on purpose: then it is `None`, counted, with the reason printed
//! to the real stderr (not captured by the test harness); any other
//! failure of the setup panics.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(dead_code)]

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A small crate with a build dependency and a dev-dependency, whose
/// published package has no `Cargo.lock`.
pub const CRATE: &str = "memoffset";
pub const CRATE_VERSION: &str = "0.9.1";
/// A PyPI sdist shipping its pytest suite, and the pytest to run it.
pub const SDIST: &str = "six==1.17.0";
pub const SDIST_DIR: &str = "six-1.17.0";
pub const PYTEST: &str = "pytest==9.2.0";
/// An npm package with two dependencies whose tests run by `node --test`.
pub const NPM_PACKAGE: &str = "@fastify/proxy-addr@5.1.3";
pub const NPM_TARBALL: &str = "fastify-proxy-addr-5.1.3.tgz";

/// Each project is set up once per test process (the tests that use it
/// wait for it); `None` when its registry was unreachable.
static RUST: OnceLock<Option<PathBuf>> = OnceLock::new();
static PYTHON: OnceLock<Option<PythonProject>> = OnceLock::new();
static NPM: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Why a test is skipped when its project is `None`.
const UNREACHABLE: &str = "its registry is unreachable from here and it is not cached yet";

/// The cache of fetched packages, under the cargo target dir.
pub fn cache_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("real-projects")
}

/// The cargo home the fetched crates are cached in (the tests' `CARGO_HOME`).
pub fn cargo_home() -> PathBuf {
    cache_root().join("cargo-home")
}

/// The user's rustup home: where the toolchain is, whatever `HOME` says.
pub fn rustup_home() -> PathBuf {
    std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(std::env::var_os("HOME")?).join(".rustup")))
        .unwrap()
}

/// What a command ran outside the sandbox did.
#[derive(Debug)]
pub struct Ran {
    pub code: Option<i32>,
    /// stdout and stderr, merged.
    pub output: String,
    pub took: Duration,
    pub timed_out: bool,
}

impl Ran {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

/// The machine a test lays out, as environment variables: `HOME`, `PATH`,
/// the cargo home of the cached crates, the user's rustup home and
/// `LANG=C.UTF-8`. Given to `bearagent`, and all that a command run
/// [`outside`] gets, so nothing of the test harness (CARGO_TARGET_DIR, …)
/// leaks in.
pub fn vars(home: &Path, path: &str) -> Vec<(String, OsString)> {
    vec![
        ("HOME".into(), home.into()),
        ("PATH".into(), path.into()),
        ("CARGO_HOME".into(), cargo_home().into()),
        ("RUSTUP_HOME".into(), rustup_home().into()),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// The test process's PATH.
pub fn user_path() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into())
}

/// `sh -c command` in `dir` with exactly `vars`, stopped after `limit`.
pub fn outside(command: &str, dir: &Path, vars: &[(String, OsString)], limit: Duration) -> Ran {
    let log = tempfile::NamedTempFile::new().unwrap();
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir)
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log.reopen().unwrap())
        .process_group(0)
        .spawn()
        .unwrap();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            timed_out = true;
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = String::from_utf8_lossy(&std::fs::read(log.path()).unwrap()).into_owned();
    println!("outside$ {command}\n[exit {:?}]\n{output}", status.code());
    Ran {
        code: status.code(),
        output,
        took: started.elapsed(),
        timed_out,
    }
}

/// Says on the real stderr that `what` is skipped and why.
/// The variable that says this machine is offline on purpose.
pub const OFFLINE: &str = "BEARAGENT_OFFLINE";

/// Real-project tests skipped in this process.
static SKIPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A real-project test that cannot fetch its project fails — a test that
/// goes green without running proves nothing — unless `BEARAGENT_OFFLINE=1`
/// says the machine is offline on purpose; then it is skipped, counted and
/// said on stderr.
pub fn skip(what: &str, why: &str) {
    let offline = std::env::var(OFFLINE).is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        offline,
        "the real-project test on {what} cannot run: {why}; set {OFFLINE}=1 to skip the \
         real-project tests on a machine that is offline on purpose"
    );
    let n = SKIPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    let line = format!(
        "SKIPPED the real-project test on {what} ({OFFLINE} is set): {why} — {n} skipped so far\n"
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Whether a failed client reads like it could not reach its registry.
pub fn unreachable(ran: &Ran) -> bool {
    let text = ran.output.to_ascii_lowercase();
    ran.timed_out
        || bearagent_tools::sandbox::network::looks_like_network_failure(ran.output.as_bytes())
        || [
            "timed out",
            "etimedout",
            "econnrefused",
            "econnreset",
            "connection refused",
            "connection reset",
            "failed to download",
            "enotfound",
        ]
        .iter()
        .any(|sign| text.contains(sign))
}

/// A registry client's run in the setup: `Some(())` when it worked, `None`
/// when the registry was unreachable; panics otherwise.
fn fetched(what: &str, ran: &Ran) -> Option<()> {
    if ran.ok() {
        return Some(());
    }
    assert!(
        unreachable(ran),
        "setup of {what} failed, not for the network:\n{}",
        ran.output
    );
    None
}

/// The project `cell` holds, set up by `setup` on first use; says on
/// stderr that `what` is skipped when it could not be fetched.
fn once<T: Clone>(cell: &OnceLock<Option<T>>, what: &str, setup: fn() -> Option<T>) -> Option<T> {
    let project = cell.get_or_init(setup).clone();
    if project.is_none() {
        skip(what, UNREACHABLE);
    }
    project
}

/// Copies `from` to `to` (made), as `cp -a` does.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {from:?} {to:?}");
}

/// The setup's environment: the user's home, and clients that give up
/// soon when the registry does not answer.
fn setup_vars() -> Vec<(String, OsString)> {
    let home = std::env::var_os("HOME").map_or_else(cache_root, PathBuf::from);
    let mut vars = vars(&home, &user_path());
    for (name, value) in [
        ("CARGO_NET_RETRY", "1"),
        ("PIP_RETRIES", "1"),
        ("PIP_TIMEOUT", "20"),
        ("npm_config_fetch_retries", "1"),
        ("npm_config_fetch_timeout", "20000"),
    ] {
        vars.push((name.into(), value.into()));
    }
    vars
}

const SETUP_LIMIT: Duration = Duration::from_secs(300);

/// The crate's sources as published, with no `Cargo.lock`; its
/// dependencies (build and dev) are in [`cargo_home`]'s cache.
pub fn rust_crate() -> Option<PathBuf> {
    once(&RUST, CRATE, fetch_rust_crate)
}

fn fetch_rust_crate() -> Option<PathBuf> {
    let dir = cache_root().join("rust");
    let project = dir.join(format!("{CRATE}-{CRATE_VERSION}"));
    if dir.join("ready").exists() {
        return Some(project);
    }
    // A scratch project depending on it: `cargo fetch` brings the package.
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(scratch.join("src")).unwrap();
    std::fs::write(scratch.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{CRATE} = \"={CRATE_VERSION}\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    let vars = setup_vars();
    fetched(CRATE, &outside("cargo fetch", &scratch, &vars, SETUP_LIMIT))?;
    let sources = cargo_home().join("registry/src");
    let unpacked = std::fs::read_dir(&sources)
        .unwrap()
        .map(|index| index.unwrap().path().join(project.file_name().unwrap()))
        .find(|path| path.is_dir())
        .unwrap_or_else(|| panic!("{CRATE} is not unpacked under {sources:?}"));
    // Its own dependencies, dev ones too, as its developer would fetch
    // them — in a folder outside any cargo workspace (the cache may sit in
    // this repository's target/, under its workspace manifest).
    let staging = tempfile::tempdir().unwrap();
    let staged = staging.path().join(project.file_name().unwrap());
    copy_dir(&unpacked, &staged);
    fetched(CRATE, &outside("cargo fetch", &staged, &vars, SETUP_LIMIT))?;
    std::fs::remove_file(staged.join("Cargo.lock")).unwrap();
    let _ = std::fs::remove_dir_all(&project);
    copy_dir(&staged, &project);
    std::fs::write(dir.join("ready"), "").unwrap();
    Some(project)
}

/// A pure-Python sdist, unpacked, and a folder of wheels holding pytest
/// and what it needs, for this machine's `python3`.
#[derive(Clone)]
pub struct PythonProject {
    pub sources: PathBuf,
    pub wheels: PathBuf,
}

pub fn python_project() -> Option<PythonProject> {
    once(&PYTHON, SDIST, fetch_python_project)
}

fn fetch_python_project() -> Option<PythonProject> {
    let dir = cache_root().join("python");
    let project = PythonProject {
        sources: dir.join(SDIST_DIR),
        wheels: dir.join("wheels"),
    };
    if dir.join("ready").exists() {
        return Some(project);
    }
    std::fs::create_dir_all(&dir).unwrap();
    let vars = setup_vars();
    let pip = "python3 -m pip download --quiet --disable-pip-version-check";
    let sdist = format!("{pip} --no-deps --no-binary :all: -d sdist '{SDIST}'");
    fetched(SDIST, &outside(&sdist, &dir, &vars, SETUP_LIMIT))?;
    let wheels = format!("{pip} --only-binary :all: -d wheels '{PYTEST}'");
    fetched(PYTEST, &outside(&wheels, &dir, &vars, SETUP_LIMIT))?;
    let _ = std::fs::remove_dir_all(&project.sources);
    let untar = outside(
        "tar --no-same-owner -xzf sdist/*.tar.gz",
        &dir,
        &vars,
        SETUP_LIMIT,
    );
    assert!(untar.ok() && project.sources.is_dir(), "{}", untar.output);
    std::fs::write(dir.join("ready"), "").unwrap();
    Some(project)
}

/// The npm package, unpacked, with its dependencies installed in its
/// `node_modules` (by npm, from a cache kept beside it).
pub fn npm_package() -> Option<PathBuf> {
    once(&NPM, NPM_PACKAGE, fetch_npm_package)
}

fn fetch_npm_package() -> Option<PathBuf> {
    let dir = cache_root().join("npm");
    let project = dir.join("package");
    if dir.join("ready").exists() {
        return Some(project);
    }
    std::fs::create_dir_all(&dir).unwrap();
    let mut vars = setup_vars();
    vars.push(("npm_config_cache".into(), dir.join("npm-cache").into()));
    let npm = "npm --no-audit --no-fund --loglevel=error";
    let pack = format!("{npm} pack '{NPM_PACKAGE}'");
    fetched(NPM_PACKAGE, &outside(&pack, &dir, &vars, SETUP_LIMIT))?;
    let _ = std::fs::remove_dir_all(&project);
    let untar = outside(
        &format!("tar --no-same-owner -xzf {NPM_TARBALL}"),
        &dir,
        &vars,
        SETUP_LIMIT,
    );
    assert!(untar.ok() && project.is_dir(), "{}", untar.output);
    let install = format!("{npm} install --omit=dev --ignore-scripts");
    fetched(
        NPM_PACKAGE,
        &outside(&install, &project, &vars, SETUP_LIMIT),
    )?;
    std::fs::write(dir.join("ready"), "").unwrap();
    Some(project)
}

/// Whether both registries a network-on test downloads from answer now:
/// asked by their own clients, from empty caches.
pub fn cargo_and_npm_reachable(what: &str) -> bool {
    let probe = tempfile::tempdir().unwrap();
    let mut vars = setup_vars();
    vars.retain(|(name, _)| name != "CARGO_HOME");
    vars.push(("CARGO_HOME".into(), probe.path().join("cargo").into()));
    vars.push(("npm_config_cache".into(), probe.path().join("npm").into()));
    let limit = Duration::from_secs(60);
    for probe_command in [
        format!("cargo info --quiet {CRATE}@{CRATE_VERSION}"),
        format!("npm view --prefer-online '{NPM_PACKAGE}' version"),
    ] {
        let ran = outside(&probe_command, probe.path(), &vars, limit);
        if !ran.ok() {
            assert!(
                unreachable(&ran),
                "`{probe_command}` failed, not for the network:\n{}",
                ran.output
            );
            skip(
                what,
                &format!("`{probe_command}` cannot reach its registry"),
            );
            return false;
        }
    }
    true
}
