use super::*;
use serde_json::json;

fn record(schema: Value, read_only: Option<bool>) -> McpToolRecord {
    McpToolRecord {
        name: "srv__add".into(),
        tool: "add".into(),
        title: None,
        description: "Adds".into(),
        input_schema: schema,
        read_only_hint: read_only,
        destructive_hint: None,
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn the_spec_is_an_object_schema_without_schema_keyword_and_the_hint_sets_the_effect() {
    let spec = mcp_spec(&record(
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
               "properties": {"a": {"type": "number"}}}),
        Some(true),
    ))
    .unwrap();
    assert_eq!(spec.name.as_str(), "srv__add");
    assert!(spec.parameters.get("$schema").is_none());
    assert_eq!(spec.parameters["properties"]["a"]["type"], "number");
    assert_eq!(spec.effect, Effect::ReadOnly);
    // No schema at all, no hint, or `false`: an object schema, a write.
    for hint in [None, Some(false)] {
        let spec = mcp_spec(&record(json!(null), hint)).unwrap();
        assert_eq!(spec.parameters, json!({"type": "object", "properties": {}}));
        assert_eq!(spec.effect, Effect::External);
    }
}

#[test]
fn plainly_wrong_arguments_never_reach_the_server() {
    let schema = json!({"type": "object", "required": ["a", "b"],
        "properties": {"a": {"type": "number"}, "b": {"type": "integer"}, "s": {"type": "string"}},
        "additionalProperties": false});
    assert!(check_against_schema(&args(json!({"a": 1.5, "b": 2})), &schema).is_ok());
    let missing = check_against_schema(&args(json!({"a": 1})), &schema).unwrap_err();
    assert_eq!(missing.to_string(), "missing required argument `b`");
    let wrong = check_against_schema(&args(json!({"a": "1", "b": 2})), &schema).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "argument `a` must be a number, got a string"
    );
    let not_int = check_against_schema(&args(json!({"a": 1, "b": 2.5})), &schema).unwrap_err();
    assert!(not_int.to_string().contains("an integer"), "{not_int}");
    let extra = check_against_schema(&args(json!({"a": 1, "b": 2, "z": 0})), &schema).unwrap_err();
    assert!(
        extra.to_string().contains("unknown argument `z`"),
        "{extra}"
    );
    // An open schema lets undeclared arguments through to the server.
    let open = json!({"type": "object", "properties": {}});
    assert!(check_against_schema(&args(json!({"z": 0})), &open).is_ok());
}
