use super::*;

fn paths(facts: &FileFacts) -> Vec<String> {
    facts
        .paths
        .iter()
        .map(|p| format!("{}|{}", p.inline.join("::"), p.segments.join("::")))
        .collect()
}

#[test]
fn a_function_runs_from_fn_to_its_closing_brace() {
    let body = "    let s = \"}\"; // }\n".repeat(3);
    let src = format!(
        "/// doc\npub fn three<T: Fn() -> u8>(t: T) -> u8\nwhere T: Copy,\n{{\n{body}    0\n}}\n"
    );
    let facts = scan(&src);
    assert_eq!(
        facts.fns,
        [FnSpan {
            name: "three".into(),
            line: 2,
            lines: 8
        }]
    );
}

#[test]
fn cfg_test_items_are_left_out_and_counted() {
    let src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    use crate::x::Y;\n    fn long() {\n    }\n}\n#[cfg(any(test, feature = \"test-support\"))]\n#[path = \"kit_tests.rs\"]\nmod kit;\n#[cfg(not(test))]\nfn b() {}\n";
    let facts = scan(src);
    let names: Vec<&str> = facts.fns.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(facts.test_lines, 6 + 3);
    assert!(facts.paths.is_empty());
    assert_eq!(
        facts.test_mods,
        [TestModDecl {
            name: "kit".into(),
            path: Some("kit_tests.rs".into())
        }]
    );
}

#[test]
fn paths_carry_their_inline_module_and_skip_visibility() {
    let src = "use super::{a, b::C};\npub(in crate::run) fn f() { crate::x::y(); }\nmod inner { fn g() { super::z::w(); } }\n";
    let facts = scan(src);
    assert_eq!(
        paths(&facts),
        [
            "|super::a",
            "|super::b::C",
            "|crate::x::y",
            "inner|super::z::w"
        ]
    );
    assert!(facts.paths[0].is_use && !facts.paths[2].is_use);
}

#[test]
fn impl_application_is_found_with_generics_and_traits() {
    let src = "impl Application { }\nimpl<'a> From<&'a str> for crate::app::Application { }\nimpl Other<Application> { }\n";
    assert_eq!(scan(src).impl_application, [1, 2]);
}

#[test]
fn a_file_whose_braces_do_not_balance_is_said_so() {
    assert!(scan("fn a() {\n").unbalanced);
    assert!(scan("}\n").unbalanced);
    assert!(!scan("fn a() { let c = '}'; }\n").unbalanced);
}
