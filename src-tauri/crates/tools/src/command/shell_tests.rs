use super::guards::{heredocs_are_plain, nesting, MAX_NESTING};
use super::words::decode_ansi_c;
use super::*;
use crate::command::rules::{evaluate, CommandRule, RuleDecision, RuleVerdict, VerdictBasis};
use RuleDecision::{Allow, Ask, Deny};

/// The rules of `rules_tests.rs`, for the robustness tests here.
fn decide(command: &str) -> RuleVerdict {
    let rule = |prefix: &str, decision| CommandRule {
        prefix: prefix.into(),
        decision,
    };
    let rules = [
        rule("rm", Deny),
        rule("cargo test", Allow),
        rule("git push", Deny),
        rule("ls", Allow),
    ];
    evaluate(command, &rules)
}

fn unprovable_reason(verdict: &RuleVerdict) -> &str {
    match &verdict.basis {
        VerdictBasis::Unprovable { reason } => reason,
        other => panic!("expected an unprovable basis, got {other:?} for {verdict:?}"),
    }
}

fn words(command: &str) -> Vec<(String, bool)> {
    // The command under test is `echo …`; substitutions add their own.
    let analysis = analyse(command);
    let echo = analysis.commands.iter().find(|argv| argv[0].text == "echo");
    echo.unwrap_or_else(|| panic!("{command}: {analysis:?}"))
        .iter()
        .map(|w| (w.text.clone(), w.literal))
        .collect()
}

#[test]
fn quotes_and_escapes_are_removed_and_the_word_stays_certain() {
    let expect = |command: &str, text: &str| {
        assert_eq!(words(command)[1], (text.to_string(), true), "{command}");
    };
    expect("echo 'a b'", "a b");
    expect("echo \"a b\"", "a b");
    expect("echo a\\ b", "a b");
    expect("echo \"\\$x\"", "$x");
    expect("echo \"a\\b\"", "a\\b");
    expect("echo $'a\\tb'", "a\tb");
    expect("echo {}", "{}");
    expect("echo [", "[");
    expect("echo '*'", "*");
    expect("echo \"{a,b}\"", "{a,b}");
}

#[test]
fn expansions_globs_and_braces_make_a_word_uncertain() {
    for command in [
        "echo $X",
        "echo \"$X\"",
        "echo ${X:-a}",
        "echo ~",
        "echo *.rs",
        "echo a?",
        "echo [ab]",
        "echo {a,b}",
        "echo {\"a\",b}",
        "echo {1..3}",
        "echo @(a)",
        "echo $((1+2))",
        "echo $(true)",
        "echo $'\\x00'",
    ] {
        let (text, literal) = words(command)[1].clone();
        assert!(!literal, "{command} gave certain {text:?}");
    }
}

#[test]
fn ansi_c_quoting_decodes_like_bash() {
    assert_eq!(decode_ansi_c("rm").as_deref(), Some("rm"));
    assert_eq!(decode_ansi_c("\\x72m").as_deref(), Some("rm"));
    assert_eq!(decode_ansi_c("\\162m").as_deref(), Some("rm"));
    assert_eq!(decode_ansi_c("\\u0072m").as_deref(), Some("rm"));
    assert_eq!(decode_ansi_c("\\U00000072m").as_deref(), Some("rm"));
    assert_eq!(decode_ansi_c("a\\nb\\'c").as_deref(), Some("a\nb'c"));
    assert_eq!(decode_ansi_c("\\q").as_deref(), Some("\\q"));
    assert_eq!(decode_ansi_c("\\cA").as_deref(), Some("\u{1}"));
    // A NUL ends the word early and a lone high byte is not text: unknown.
    assert_eq!(decode_ansi_c("rm\\0x"), None);
    assert_eq!(decode_ansi_c("\\xff"), None);
    assert_eq!(decode_ansi_c("\\x"), None);
    assert_eq!(decode_ansi_c("trailing\\"), None);
}

#[test]
fn wrappers_are_recorded_apart_from_the_command_they_run() {
    let analysis = analyse("sudo -u me nice -n 5 sh -c 'ls -la'");
    let texts = |argvs: &[Vec<Word>]| -> Vec<String> {
        argvs
            .iter()
            .map(|a| {
                a.iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(texts(&analysis.commands), ["ls -la"]);
    assert_eq!(
        texts(&analysis.wrappers),
        ["sudo -u me", "nice -n 5", "sh -c ls -la"]
    );
    assert!(analysis.unprovable.is_empty(), "{:?}", analysis.unprovable);
}

#[test]
fn wrappers_that_run_nothing_are_commands_themselves() {
    for command in [
        "command -v rm",
        "env",
        "nice",
        "timeout 5",
        "sudo -l",
        "chrt -p 5 123",
    ] {
        let analysis = analyse(command);
        let first: Vec<&str> = analysis.commands[0]
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(first.join(" "), command);
    }
}

#[test]
fn nesting_is_over_estimated_not_under() {
    assert_eq!(nesting("ls"), 0);
    assert_eq!(nesting("(ls)"), 1);
    assert_eq!(nesting("if true; then (ls); fi"), 2);
    assert_eq!(nesting("echo '((('"), 3);
    assert!(nesting(&"if x; then ".repeat(200)) > MAX_NESTING);
}

#[test]
fn prefixes_split_like_the_shell() {
    assert_eq!(
        split_prefix("git  push"),
        Ok(vec!["git".to_string(), "push".to_string()])
    );
    assert_eq!(
        split_prefix("git commit -m 'a b'"),
        Ok(vec!["git", "commit", "-m", "a b"]
            .into_iter()
            .map(String::from)
            .collect())
    );
    assert!(split_prefix("sudo rm").is_ok_and(|w| w == ["sudo", "rm"]));
    assert!(split_prefix("ls && rm").is_err());
}

#[test]
fn only_plain_closed_here_documents_reach_the_parser() {
    for plain in [
        "ls",
        "cat <<EOF\nx\nEOF",
        "cat <<'EOF' > f\nx << y\nEOF\n",
        "cat <<-\"EOF\"\n\tx\n\tEOF",
        "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
        "cat <<A <<B\na\nA\nb\nB",
        "cat <<< 'x'",
        "sh -c 'cat <<EOF\nx\nEOF'",
        "cat <<EOF\nx << \nEOF",
    ] {
        assert!(heredocs_are_plain(plain), "{plain:?}");
    }
    for odd in [
        "$(a <<  ",
        "<< $( && eval <(if \\ if \\",
        "cat <<",
        "echo $((1 << 2))",
        "cat <<EOF\nx",
        "git commit -m \"$(cat <<'EOF'\ntruncated",
        "EOF EOF$( -exec<<   env eval ",
        "findls $( $(\n <<  EOF ",
        "sh -c 'cat <<EOF\nx\nEOF'\n$(a <<  ",
        "cat << ;",
        "cat <<$X\n$X",
        "rm $( env && | <<   # ) cargo ",
        "eval ) = \n \" * $( <<   } ",
    ] {
        assert!(!heredocs_are_plain(odd), "{odd:?}");
    }
}

#[test]
fn garbage_input_never_panics_and_never_allows_unruled_commands() {
    // More rounds or another seed from the environment, for longer runs.
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut seed: u64 = env("COMMAND_RULES_FUZZ_SEED").unwrap_or(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Even rounds: raw bytes. Odd rounds: shell tokens glued at random, so
    // real commands, quotes and operators meet in odd combinations.
    const TOKENS: &[&str] = &[
        "rm", "ls", "sh", "-c", "'", "\"", "`", "$(", ")", "(", "{", "}", ";", "&&", "||", "|",
        "<<", "EOF", "\n", "<<EOF", "<<'EOF'", "\nEOF\n", "\nEOF'", " ", " ", " ", "x", "cargo",
        "test", "$X", "\\", "*", "=", "#", "sudo", "env", "xargs", "find", "-exec", "if", "then",
        "fi", "$'", "<(", "eval",
    ];
    for round in 0..env("COMMAND_RULES_FUZZ_ROUNDS").unwrap_or(400) {
        let len = (next() % 40) as usize;
        let bytes: Vec<u8> = if round % 2 == 0 {
            (0..len * 3).map(|_| next() as u8).collect()
        } else {
            (0..len % 12)
                .flat_map(|_| {
                    let glue = if next() % 4 == 0 { "" } else { " " };
                    let token = TOKENS[(next() as usize) % TOKENS.len()];
                    token.bytes().chain(glue.bytes())
                })
                .collect()
        };
        let command = String::from_utf8_lossy(&bytes);
        let v = decide(&command);
        match v.decision {
            Allow => {
                let allowed = |argv: &Vec<String>| {
                    argv.first().is_some_and(|n| n == "ls")
                        || argv.starts_with(&["cargo".to_string(), "test".to_string()])
                };
                assert!(v.commands.iter().all(allowed), "{command:?} → {v:?}");
                assert!(!v.commands.is_empty(), "{command:?} → {v:?}");
            }
            Deny => assert!(matches!(v.basis, VerdictBasis::Rule { decision: Deny, .. })),
            Ask => assert!(!matches!(
                v.basis,
                VerdictBasis::Rule {
                    decision: Allow | Deny,
                    ..
                }
            )),
            RuleDecision::AllowNetwork => panic!("no allow-network rule: {command:?} → {v:?}"),
        }
        if let VerdictBasis::Unprovable { reason } = &v.basis {
            assert!(
                !reason.contains("took too long"),
                "parser hung on {command:?}"
            );
        }
    }
}

#[test]
fn oversized_or_deeply_nested_input_asks_without_crashing() {
    let deep = format!("{}rm x{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(decide(&deep).decision, Ask);
    let deep_if = format!(
        "{}ls;{}",
        "if true; then ".repeat(3000),
        " fi;".repeat(3000)
    );
    assert_eq!(decide(&deep_if).decision, Ask);
    let fake_closers = "{ echo } ".repeat(3000) + "ls";
    decide(&fake_closers);
    let long = format!("ls {}", "a".repeat(100_000));
    assert!(unprovable_reason(&decide(&long)).contains("longer than"));
    let nested = format!("echo {}rm x{}", "$(".repeat(20), ")".repeat(20));
    assert!(unprovable_reason(&decide(&nested)).contains("nested too deeply"));
}

#[test]
fn a_panic_while_checking_is_caught() {
    let caught = guarded(|| -> u8 { panic!("parser bug") });
    assert!(caught.is_err());
}

#[test]
fn input_that_once_hung_the_parser_is_answered() {
    for command in [
        "$(a <<  ",
        "$(   if* -exec << (  ",
        "${a << (x ",
        "$(a << (  ",
        "<< $( && eval <(if \\ if \\\n",
        "rm $( env && | <<   # ) cargo ",
        "eval ) = \n \" * $( <<   } ",
        "EOF EOF$( -exec<<   env eval ",
        "findls $( $(\n <<  EOF ",
    ] {
        assert_eq!(decide(command).decision, Ask, "{command:?}");
    }
}
