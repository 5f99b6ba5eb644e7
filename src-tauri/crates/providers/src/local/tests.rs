use super::values::count;
use super::*;
use serde_json::json;

#[test]
fn counts_are_read_defensively() {
    assert_eq!(count(Some(&json!(4096))), Some(4096));
    assert_eq!(count(Some(&json!(4096.0))), Some(4096));
    assert_eq!(count(Some(&json!("8192"))), Some(8192));
    for odd in [
        json!(0),
        json!(-5),
        json!(1e300 * 0.0),
        json!("x"),
        json!([1]),
        json!(null),
    ] {
        assert_eq!(count(Some(&odd)), None, "{odd}");
    }
    assert_eq!(count(None), None);
}

#[test]
fn extra_ports_and_urls_join_the_defaults_once() {
    let o = DetectOptions::with_extra(&[8080, 9999], &["http://10.0.0.2:8080/".to_owned()]);
    assert_eq!(o.ports, vec![8080, 11434, 1234, 8000, 9999]);
    let urls = o.base_urls();
    assert_eq!(urls.len(), 6);
    assert_eq!(urls[5], "http://10.0.0.2:8080");
}

#[test]
fn kinds_print_as_their_servers_are_known() {
    assert_eq!(
        serde_json::to_string(&ServerKind::LlamaCpp).unwrap(),
        "\"llama.cpp\""
    );
    assert_eq!(ServerKind::LmStudio.to_string(), "lm-studio");
}
