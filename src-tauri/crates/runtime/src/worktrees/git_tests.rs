//! A hostile repository: every setting that names a program points at a
//! script that leaves a mark; no git call BearAgent makes may leave one.

use super::*;
use std::path::PathBuf;

fn plain_git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository whose config and attributes would run `mark.sh` (which
/// appends its name to `marks`) through every door git has.
pub(crate) fn hostile_repo(dir: &Path) -> PathBuf {
    let marks = dir.join("marks");
    let script = dir.join("mark.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$0 $*\" >> {}\ncat\n", marks.display()),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    let repo = dir.join("repo");
    std::fs::create_dir(&repo).unwrap();
    plain_git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    plain_git(&repo, &["add", "."]);
    plain_git(&repo, &["commit", "-qm", "start"]);
    let s = script.display();
    let included = dir.join("included.gitconfig");
    std::fs::write(
        &included,
        format!("[filter \"inc\"]\n\tclean = {s} inc-clean\n\tsmudge = {s} inc-smudge\n"),
    )
    .unwrap();
    let config = format!(
        "[core]\n\thooksPath = {hooks}\n\tfsmonitor = {s}\n\tpager = {s} pager\n\teditor = {s} editor\n\
         \tsshCommand = {s} ssh\n\taskPass = {s} askpass\n\
         [include]\n\tpath = {inc}\n\
         [filter \"evil\"]\n\tclean = {s} clean\n\tsmudge = {s} smudge\n\trequired = true\n\
         [filter \"proc\"]\n\tprocess = {s} process\n\
         [diff]\n\texternal = {s} external\n\
         [diff \"evil\"]\n\ttextconv = {s} textconv\n\tcommand = {s} diffcmd\n\
         [credential]\n\thelper = !{s} credential\n\
         [gpg]\n\tprogram = {s} gpg\n[commit]\n\tgpgSign = true\n\
         [pager]\n\tdiff = {s} pager-diff\n",
        hooks = dir.display(),
        inc = included.display(),
    );
    let git_config = repo.join(".git/config");
    let mut text = std::fs::read_to_string(&git_config).unwrap();
    text.push_str(&config);
    std::fs::write(&git_config, text).unwrap();
    for hook in [
        "post-checkout",
        "pre-commit",
        "post-commit",
        "reference-transaction",
    ] {
        std::fs::copy(&script, dir.join(hook)).unwrap();
    }
    std::fs::write(
        repo.join(".gitattributes"),
        "*.txt filter=evil diff=evil\n*.md filter=proc\n*.inc filter=inc\n",
    )
    .unwrap();
    repo
}

#[test]
fn no_program_of_a_hostile_repository_runs_through_bearagents_git() {
    let dir = tempfile::tempdir().unwrap();
    let repo = hostile_repo(dir.path());
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(repo.join("b.md"), "md\n").unwrap();
    std::fs::write(repo.join("c.inc"), "inc\n").unwrap();
    run(&repo, &["diff", "HEAD"]).unwrap();
    run(&repo, &["diff", "--binary", "HEAD"]).unwrap();
    run(&repo, &["add", "-A"]).unwrap();
    run_as_bearagent(&repo, &["commit", "-qm", "by bearagent"]).unwrap();
    let head = run(&repo, &["rev-parse", "HEAD"]).unwrap();
    assert_eq!(
        show(&repo, head.trim(), "a.txt").unwrap().as_deref(),
        Some(&b"one\ntwo\n"[..]),
        "stored as is: no clean filter ran"
    );
    let wt = dir.path().join("wt");
    let wt_arg = wt.display().to_string();
    run(
        &repo,
        &["worktree", "add", "-q", "-b", "side", &wt_arg, "HEAD"],
    )
    .unwrap();
    run(
        &wt,
        &["diff", "--name-only", "-z", "--no-renames", "HEAD~1"],
    )
    .unwrap();
    run(&repo, &["worktree", "remove", "--force", &wt_arg]).unwrap();
    run(&repo, &["branch", "-D", "side"]).unwrap();
    let marks = std::fs::read_to_string(dir.path().join("marks")).unwrap_or_default();
    assert_eq!(marks, "", "programs ran: {marks}");
}

#[test]
fn the_hostile_repository_really_runs_them_for_plain_git() {
    // The fixture is live: plain git runs its programs.
    let dir = tempfile::tempdir().unwrap();
    let repo = hostile_repo(dir.path());
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    let out = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["add", "-A"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let marks = std::fs::read_to_string(dir.path().join("marks")).unwrap_or_default();
    assert!(marks.contains("clean"), "marks: {marks:?}");
}

#[test]
fn the_users_own_filters_keep_working_and_a_repository_redefining_one_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = hostile_repo(dir.path());
    let global = dir.path().join("global.gitconfig");
    std::fs::write(
        &global,
        "[filter \"mine\"]\n\tclean = cat\n[filter \"evil\"]\n\tclean = cat\n",
    )
    .unwrap();
    let names = filter_names_with(|| {
        let mut git = base(&repo);
        git.env("GIT_CONFIG_GLOBAL", &global);
        git
    })
    .unwrap();
    assert!(!names.contains(&"mine".to_owned()), "{names:?}");
    assert!(names.contains(&"evil".to_owned()), "{names:?}");
}

#[test]
fn filter_names_come_from_the_config_and_its_includes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = hostile_repo(dir.path());
    let names = filter_names(&repo).unwrap();
    for name in ["evil", "proc", "inc"] {
        assert!(names.contains(&name.to_owned()), "{names:?}");
    }
}
