use super::*;
use RuleDecision::{Allow, Ask, Deny};

fn rule(prefix: &str, decision: RuleDecision) -> CommandRule {
    CommandRule {
        prefix: prefix.into(),
        decision,
    }
}

fn rules() -> Vec<CommandRule> {
    vec![
        rule("rm", Deny),
        rule("cargo test", Allow),
        rule("git push", Deny),
        rule("ls", Allow),
    ]
}

fn decide(command: &str) -> RuleVerdict {
    evaluate(command, &rules())
}

fn by_rule(prefix: &str, decision: RuleDecision) -> VerdictBasis {
    VerdictBasis::Rule {
        prefix: prefix.into(),
        decision,
    }
}

fn unprovable_reason(verdict: &RuleVerdict) -> &str {
    match &verdict.basis {
        VerdictBasis::Unprovable { reason } => reason,
        other => panic!("expected an unprovable basis, got {other:?} for {verdict:?}"),
    }
}

/// `rm -rf x` in disguise: each must be denied by the `rm` rule.
const DISGUISED_RM: &[&str] = &[
    "rm -rf x",
    "ls && rm -rf x",
    "ls; rm -rf x",
    "ls | rm -rf x",
    "ls & rm -rf x",
    "ls\nrm -rf x",
    "(rm -rf x)",
    "{ rm -rf x; }",
    "sh -c 'rm -rf x'",
    "bash -c \"ls && rm -rf x\"",
    "sh -c \"sh -c 'rm -rf x'\"",
    "bash -c 'bash -c \"sh -c \\\"rm x\\\"\"'",
    "dash -c 'rm x'",
    "sh -c \"rm $X\"",
    "bash -c \"$(echo) ; rm x\"",
    "zsh -c 'rm x'",
    "fish -c 'rm x'",
    "bash -ec 'rm x'",
    "bash -o pipefail -c 'rm x'",
    "env X=1 rm -rf x",
    "env -i X=1 rm -rf x",
    "env -- rm x",
    "env -S 'rm -rf x'",
    "X=1 rm -rf x",
    "/bin/rm -rf x",
    "\"/bin/rm\" x",
    "./rm x",
    "RM x",
    "/usr/bin/env rm -rf x",
    "\\rm -rf x",
    "\\r\\m x",
    "r''m -rf x",
    "'r'\"m\" x",
    "\"rm\" -rf x",
    "$'rm' x",
    "$'\\x72m' x",
    "$'\\162m' x",
    "$\"rm\" x",
    "r\\\nm x",
    "command rm x",
    "command -p rm x",
    "exec rm x",
    "exec -a foo rm x",
    "builtin rm x",
    "nice rm x",
    "nice -n 5 rm x",
    "nice -n5 rm x",
    "nice --adjustment=5 rm x",
    "timeout 5 rm x",
    "timeout -s KILL 5 rm x",
    "timeout --signal=KILL 5s rm x",
    "sudo rm x",
    "sudo -u root rm x",
    "sudo -- rm x",
    "sudo -s rm x",
    "sudo env X=1 nice -n 5 timeout 5 rm x",
    "doas rm x",
    "su -c 'rm x'",
    "nohup rm x &",
    "setsid rm x",
    "stdbuf -oL rm x",
    "ionice -c 3 rm x",
    "chrt 10 rm x",
    "taskset 0x1 rm x",
    "busybox rm x",
    "watch rm x",
    "time rm x",
    "/usr/bin/time rm x",
    "! rm x",
    "rm x 2>/dev/null",
    "if true; then rm x; fi",
    "if false; then :; elif true; then rm x; fi",
    "if false; then :; else rm x; fi",
    "if rm x; then :; fi",
    "for f in a; do rm $f; done",
    "while true; do rm x; done",
    "until false; do rm x; done",
    "case a in a) rm x;; esac",
    "echo x | xargs rm",
    "echo x | xargs -0 -n1 rm",
    "echo x | xargs -I{} rm {}",
    "find . -exec rm {} \\;",
    "find . -name '*.o' -execdir rm {} +",
    "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
    "ls || rm x",
    "true && (false || rm x)",
    "ls $(rm x)",
    "ls `rm x`",
    "echo \"$(rm x)\"",
    "echo ${X:-$(rm x)}",
    "echo $((1 + $(rm x | wc -l)))",
    "[[ -n $(rm x) ]]",
    "ls > $(rm x)",
    "cat <(rm x)",
    "cat <<EOF\n$(rm x)\nEOF",
    "sh <<EOF\nrm x\nEOF",
    "bash <<< 'rm x'",
    "f() { rm x; }; f",
    "coproc rm x",
    "eval rm x",
    "eval 'ls; rm x'",
    "trap 'rm x' EXIT",
];

#[test]
fn every_disguised_rm_is_denied_by_the_rm_rule() {
    assert!(DISGUISED_RM.len() >= 20);
    let failures: Vec<String> = DISGUISED_RM
        .iter()
        .map(|command| (command, decide(command)))
        .filter(|(_, v)| v.decision != Deny || v.basis != by_rule("rm", Deny))
        .map(|(command, v)| format!("{command:?} → {v:?}"))
        .collect();
    assert!(failures.is_empty(), "not denied:\n{}", failures.join("\n"));
}

#[test]
fn the_commands_found_are_the_unwrapped_argv() {
    let v = decide("sudo env X=1 nice -n 5 rm -rf x");
    assert_eq!(v.commands, vec![vec!["rm", "-rf", "x"]]);
    let v = decide("ls -la | wc -l && sh -c 'cargo test'");
    assert_eq!(
        v.commands,
        vec![vec!["ls", "-la"], vec!["wc", "-l"], vec!["cargo", "test"]]
    );
    assert_eq!(decide("r''m x").commands, vec![vec!["rm", "x"]]);
}

#[test]
fn allowed_commands_are_allowed_by_their_rule() {
    let v = decide("cargo test --workspace");
    assert_eq!((v.decision, v.basis), (Allow, by_rule("cargo test", Allow)));
    let v = decide("ls -la");
    assert_eq!((v.decision, v.basis), (Allow, by_rule("ls", Allow)));
    // Both allowed: the first allow rule in rule order is the basis.
    let v = decide("ls && cargo test");
    assert_eq!((v.decision, v.basis), (Allow, by_rule("cargo test", Allow)));
    // Redirections, globs in arguments and backgrounding don't matter.
    for command in [
        "ls 2>&1 > out.txt",
        "ls *.rs",
        "ls &",
        "LC_ALL=C ls",
        "(ls) | ls",
    ] {
        assert_eq!(decide(command).decision, Allow, "{command}");
    }
}

#[test]
fn a_command_without_a_rule_asks_and_names_it() {
    let v = decide("cargo build");
    let no_rule = |c: &str| VerdictBasis::NoRule { command: c.into() };
    assert_eq!((v.decision, v.basis), (Ask, no_rule("cargo build")));
    let v = decide("git status");
    assert_eq!((v.decision, v.basis), (Ask, no_rule("git status")));
    let v = decide("ls && cargo build");
    assert_eq!((v.decision, v.basis), (Ask, no_rule("cargo build")));
    let v = evaluate("ls", &[]);
    assert_eq!((v.decision, v.basis), (Ask, no_rule("ls")));
}

#[test]
fn denied_prefixes_deny() {
    let v = decide("git push origin");
    assert_eq!((v.decision, v.basis), (Deny, by_rule("git push", Deny)));
    let v = decide("ls && git push --force");
    assert_eq!(v.decision, Deny);
    // Both denied: the first deny rule in rule order is the basis.
    let v = decide("git push; rm x");
    assert_eq!(v.basis, by_rule("rm", Deny));
    assert_eq!(decide("git pushx").decision, Ask);
}

#[test]
fn the_strictest_matching_rule_wins_within_one_command() {
    let rules = [
        rule("git", Allow),
        rule("git push", Deny),
        rule("git push", Ask),
    ];
    let v = evaluate("git push origin", &rules);
    assert_eq!((v.decision, v.basis), (Deny, by_rule("git push", Deny)));
    assert_eq!(evaluate("git status", &rules).decision, Allow);
    let rules = [rule("npm", Allow), rule("npm publish", Ask)];
    let v = evaluate("npm publish", &rules);
    assert_eq!((v.decision, v.basis), (Ask, by_rule("npm publish", Ask)));
}

#[test]
fn what_the_parser_cannot_see_asks() {
    for (command, why) in [
        ("ls $(whoami)", "substitution"),
        ("ls `whoami`", "substitution"),
        ("eval ls", "eval"),
        ("source env.sh", "source"),
        (". env.sh", "`.`"),
        ("$X -la", "$X"),
        ("${X} -la", "${X}"),
        ("alias ls=rm", "alias"),
        ("f() { ls; }", "function"),
        ("sh script.sh", "script file"),
        ("echo ls | sh", "standard input"),
        ("bash", "standard input"),
        ("sh <<EOF\nls\nEOF", "standard input"),
        ("sh -c \"$CMD\"", "only known when it runs"),
        ("echo x | xargs ls", "xargs"),
        ("find . -exec ls {} \\;", "-exec"),
        ("cat <(ls)", "process substitution"),
        ("git $X origin", "might match the deny rule `git push`"),
        ("git p*sh origin", "might match the deny rule `git push`"),
        ("PATH=/tmp ls", "PATH"),
        ("ls; export BASH_ENV=x", "BASH_ENV"),
        ("./timeout 5 ls", "may not be the real timeout"),
        ("/usr/bin/env ls", "may not be the real env"),
        ("git -C repo push", "might match the deny rule `git push`"),
        (
            "git --no-pager push origin",
            "might match the deny rule `git push`",
        ),
        ("sh -c \"ls $X\"", "only known when it runs"),
        ("ls (", "cannot check"),
        ("ls 'unterminated", "cannot check"),
    ] {
        let v = decide(command);
        assert_eq!(v.decision, Ask, "{command}: {v:?}");
        let reason = unprovable_reason(&v);
        assert!(reason.contains(why), "{command}: {reason}");
    }
}

#[test]
fn empty_or_commandless_input_is_unprovable() {
    for command in ["", "   ", "\n\t", "X=1", "# just a comment"] {
        let v = decide(command);
        assert_eq!(v.decision, Ask, "{command:?}");
        unprovable_reason(&v);
        assert!(v.commands.is_empty());
    }
}

#[test]
fn allow_rules_need_the_exact_name_but_deny_rules_match_any_spelling() {
    for command in [
        "./ls",
        "/bin/ls",
        "LS",
        "/tmp/x/cargo test",
        "/usr/bin/env cargo test",
    ] {
        assert_eq!(decide(command).decision, Ask, "{command}");
    }
    for command in ["/BIN/RM x", "Rm x", "../bin/rm x", "/usr/bin/git push"] {
        assert_eq!(decide(command).decision, Deny, "{command}");
    }
    let rules = [rule("/usr/bin/ls", Allow)];
    assert_eq!(evaluate("/usr/bin/ls", &rules).decision, Allow);
}

#[test]
fn wrappers_can_be_denied_but_an_allowed_wrapper_allows_nothing() {
    let rules = [
        rule("sudo", Deny),
        rule("nice", Allow),
        rule("bash", Ask),
        rule("ls", Allow),
    ];
    let v = evaluate("sudo ls", &rules);
    assert_eq!((v.decision, v.basis), (Deny, by_rule("sudo", Deny)));
    assert_eq!(evaluate("nice ls", &rules).decision, Allow);
    assert_eq!(evaluate("nice git status", &rules).decision, Ask);
    let v = evaluate("bash -c ls", &rules);
    assert_eq!((v.decision, v.basis), (Ask, by_rule("bash", Ask)));
    assert_eq!(evaluate("bash -c ''", &rules).decision, Ask);
    assert_eq!(evaluate("sh -c 'ls && ls'", &rules).decision, Allow);
}

/// Disguises that keep the decision at least as strict as the bare command.
fn wrappings(command: &str) -> [String; 4] {
    let quoted = command.replace('\'', "'\\''");
    [
        format!("sh -c '{quoted}'"),
        format!("( {command}\n)"),
        format!("true && {command}"),
        format!("{{ {command}\n}}"),
    ]
}

#[test]
fn wrapping_a_command_never_lowers_its_decision() {
    let samples = DISGUISED_RM.iter().chain(&[
        "git push origin",
        "cargo build",
        "ls $(whoami)",
        "eval ls",
        "ls",
        "cargo test",
    ]);
    let mut failures = Vec::new();
    for command in samples {
        let bare = decide(command).decision;
        for wrapped in wrappings(command) {
            let v = decide(&wrapped);
            if v.decision < bare {
                failures.push(format!("{wrapped:?} → {:?} below {bare:?}", v.decision));
            }
        }
    }
    assert!(failures.is_empty(), "lowered:\n{}", failures.join("\n"));
}

#[test]
fn validate_accepts_plain_prefixes_only() {
    for ok in [
        "rm",
        "git push",
        "cargo test --workspace",
        "'git' \"push\"",
        "/bin/rm",
    ] {
        assert_eq!(validate_rule(&rule(ok, Deny)), Ok(()), "{ok}");
    }
    for (bad, why) in [
        ("", "needs a command prefix"),
        ("  \t", "needs a command prefix"),
        ("ls && rm", "more than one command"),
        ("ls; rm", "not exactly one command"),
        ("# rm", "not exactly one command"),
        ("ls | rm", "single simple command"),
        ("rm $(x)", "expansions"),
        ("rm $HOME", "expansions"),
        ("rm *", "expansions"),
        ("X=1 rm", "assignment"),
        ("rm > x", "only words"),
        ("(rm)", "single simple command"),
        ("rm 'x", "not a plain command"),
    ] {
        let err = validate_rule(&rule(bad, Deny)).expect_err(bad);
        assert!(err.contains(why), "{bad:?}: {err}");
    }
}

#[test]
fn an_invalid_deny_rule_bites_on_its_plain_words_and_an_invalid_allow_is_dropped() {
    let rules = [
        rule("rm -rf ~", Deny),
        rule("ls $(x)", Allow),
        rule("", Allow),
        rule("  ", Allow),
    ];
    let v = evaluate("rm -rf ./build", &rules);
    assert_eq!((v.decision, v.basis), (Deny, by_rule("rm -rf ~", Deny)));
    assert_eq!(evaluate("rm x", &rules).decision, Ask);
    assert_eq!(evaluate("ls", &rules).decision, Ask);
    assert_eq!(evaluate("ls '$(x)'", &rules).decision, Ask);
}

#[test]
fn decisions_order_and_serialise_as_documented() {
    assert!(Allow < Ask && Ask < Deny);
    assert_eq!(
        serde_json::to_string(&Deny).ok().as_deref(),
        Some("\"deny\"")
    );
    let parsed: CommandRule =
        serde_json::from_str(r#"{"prefix":"git push","decision":"ask"}"#).expect("rule json");
    assert_eq!(parsed, rule("git push", Ask));
    let v = decide("cargo build");
    let json = serde_json::to_value(&v).expect("verdict json");
    assert_eq!(json["basis"]["kind"], "no_rule");
    assert_eq!(json["decision"], "ask");
}

#[test]
fn allow_network_decides_a_line_only_when_every_command_has_it() {
    let rules = vec![
        rule("cargo fetch", RuleDecision::AllowNetwork),
        rule("npm install", RuleDecision::AllowNetwork),
        rule("ls", Allow),
        rule("rm", Deny),
    ];
    let v = evaluate("cargo fetch --locked", &rules);
    assert_eq!(v.decision, RuleDecision::AllowNetwork);
    assert_eq!(v.basis, by_rule("cargo fetch", RuleDecision::AllowNetwork));
    let both = evaluate("cargo fetch && npm install", &rules);
    assert_eq!(both.decision, RuleDecision::AllowNetwork);
    // One command only allowed: the line runs, without the network.
    let mixed = evaluate("ls && cargo fetch", &rules);
    assert_eq!((mixed.decision, mixed.basis), (Allow, by_rule("ls", Allow)));
    assert_eq!(evaluate("cargo fetch; rm -rf x", &rules).decision, Deny);
    assert_eq!(evaluate("cargo fetch; make", &rules).decision, Ask);
}

#[test]
fn allow_network_is_an_allow_in_how_it_matches() {
    let rules = vec![rule("curl", RuleDecision::AllowNetwork)];
    // The name exactly as written, never through a path or an expansion.
    for command in ["./curl x", "/tmp/curl x", "CURL x", "curl $(id)"] {
        let v = evaluate(command, &rules);
        assert_eq!(v.decision, Ask, "{command}: {v:?}");
    }
    // A more specific allow is stricter than allow-network: it wins.
    let rules = vec![
        rule("curl", RuleDecision::AllowNetwork),
        rule("curl -I", Allow),
    ];
    assert_eq!(evaluate("curl -I x", &rules).decision, Allow);
}
