use super::guards::{heredocs_are_plain, nesting, MAX_NESTING};
use super::words::decode_ansi_c;
use super::*;

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
