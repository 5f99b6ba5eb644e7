use super::*;
use bearagent_kernel::TextCallDialect;
use serde_json::json;
use serde_json::Value;

/// The tools the fixtures are written against, typed as the real ones.
fn tools() -> Vec<ToolSchema> {
    let tool = |name: &str, properties: Value| ToolSchema {
        name: name.into(),
        description: String::new(),
        parameters: json!({"type": "object", "properties": properties}),
    };
    let s = json!({"type": "string"});
    let i = json!({"type": "integer"});
    let b = json!({"type": "boolean"});
    vec![
        tool(
            "read_file",
            json!({"path": s, "start_line": i, "end_line": i, "max_bytes": i}),
        ),
        tool("write_file", json!({"path": s, "content": s})),
        tool(
            "edit_file",
            json!({"path": s, "old_string": s, "new_string": s, "diff": s}),
        ),
        tool("list_dir", json!({"path": s, "depth": i, "max_entries": i})),
        tool(
            "run_command",
            json!({"command": s, "cwd": s, "timeout_secs": i}),
        ),
        tool(
            "search_text",
            json!({"pattern": s, "literal": b, "path": s, "case_insensitive": b}),
        ),
        tool("update_plan", json!({"plan": {"type": "array"}})),
    ]
}

/// What a fixture case expects.
#[derive(Debug)]
enum Expect {
    Calls(Vec<(String, Value)>),
    None,
    Invalid(String),
}

struct Case {
    label: String,
    expect: Expect,
    text: String,
}

/// Reads a fixture file (see `tests/fixtures/text_calls/README.md`).
fn cases(file: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for chunk in file.split("=== ").skip(1) {
        let (head, text) = chunk.split_once("\n---\n").expect("a --- line");
        let mut lines = head.lines();
        let label = lines.next().unwrap_or_default().to_owned();
        let mut calls = Vec::new();
        let mut expect = None;
        for line in lines {
            let line = line.strip_prefix("expect: ").expect("an expect: line");
            if line == "none" {
                expect = Some(Expect::None);
            } else if let Some(why) = line.strip_prefix("invalid ") {
                expect = Some(Expect::Invalid(why.to_owned()));
            } else {
                let (name, args) = line.split_once(' ').expect("name and arguments");
                let args: Value = serde_json::from_str(args).expect(&label);
                calls.push((name.to_owned(), args));
            }
        }
        let expect = expect.unwrap_or(Expect::Calls(calls));
        out.push(Case {
            label,
            expect,
            text: text.to_owned(),
        });
    }
    out
}

fn check(file: &str, dialect: Option<TextCallDialect>) -> usize {
    let tools = tools();
    let cases = cases(file);
    for case in &cases {
        let got = find_text_calls(&case.text, &tools);
        match (&case.expect, got) {
            (Expect::None, TextCalls::None) => {}
            (Expect::Invalid(why), TextCalls::Invalid { error, .. }) => {
                let message = error.to_string();
                assert!(message.contains(why), "{}: {message}", case.label);
            }
            (Expect::Calls(want), TextCalls::Calls(calls)) => {
                let got: Vec<(String, Value)> = calls
                    .iter()
                    .map(|c| (c.name.clone(), Value::Object(c.arguments.clone())))
                    .collect();
                assert_eq!(&got, want, "{}", case.label);
                if let Some(dialect) = dialect {
                    assert!(
                        calls.iter().all(|c| c.dialect == dialect),
                        "{}: {calls:?}",
                        case.label
                    );
                }
            }
            (want, got) => panic!("{}: expected {want:?}, got {got:?}", case.label),
        }
    }
    cases.len()
}

macro_rules! fixture {
    ($file:literal) => {
        include_str!(concat!("../../tests/fixtures/text_calls/", $file))
    };
}

#[test]
fn bare_json_calls_parse() {
    let n = check(fixture!("bare_json.txt"), Some(TextCallDialect::BareJson));
    assert!(n >= 10);
}

#[test]
fn fenced_json_calls_parse() {
    let n = check(
        fixture!("fenced_json.txt"),
        Some(TextCallDialect::FencedJson),
    );
    assert!(n >= 10);
}

#[test]
fn hermes_calls_parse() {
    let n = check(fixture!("hermes.txt"), Some(TextCallDialect::Hermes));
    assert!(n >= 10);
}

#[test]
fn qwen_xml_calls_parse() {
    let n = check(fixture!("qwen_xml.txt"), Some(TextCallDialect::QwenXml));
    assert!(n >= 10);
}

#[test]
fn mistral_calls_parse() {
    let n = check(fixture!("mistral.txt"), Some(TextCallDialect::Mistral));
    assert!(n >= 10);
}

#[test]
fn harmony_calls_parse() {
    let n = check(fixture!("harmony.txt"), Some(TextCallDialect::Harmony));
    assert!(n >= 10);
}

#[test]
fn plain_answers_and_unrelated_json_are_not_calls() {
    let n = check(fixture!("none.txt"), None);
    assert!(n >= 10);
}

#[test]
fn call_shaped_text_that_cannot_be_a_call_is_invalid_with_a_reason() {
    let n = check(fixture!("invalid.txt"), None);
    assert!(n >= 10);
}

#[test]
fn an_unknown_tool_is_named_with_the_known_ones() {
    let text = "<tool_call>{\"name\": \"cat\", \"arguments\": {}}</tool_call>";
    let TextCalls::Invalid { dialect, error } = find_text_calls(text, &tools()) else {
        panic!("not invalid");
    };
    assert_eq!(dialect, TextCallDialect::Hermes);
    assert_eq!(
        error.to_string(),
        "the tool call names `cat`, which is not a tool; the tools are: read_file, \
         write_file, edit_file, list_dir, run_command, search_text, update_plan"
    );
}

#[test]
fn without_tools_nothing_is_a_call() {
    let text = r#"{"name": "read_file", "arguments": {"path": "a"}}"#;
    assert_eq!(find_text_calls(text, &[]), TextCalls::None);
}
