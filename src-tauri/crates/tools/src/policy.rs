//! The approval policy: allow, ask or deny, decided from the trusted spec and
//! the prepared call only — never from anything the model wrote.

use crate::authorization::{ApprovalRequest, AuthorizedCall, FirmAsk};
use crate::command::rules::{evaluate, RuleVerdict, VerdictBasis};
use crate::spec::{Effect, PreparedCall, ToolSpec};
use crate::workspace::has_git_component;
use bearagent_kernel::{CommandSettings, RuleDecision};
use std::collections::BTreeMap;
use std::path::{Component, Path};

pub use bearagent_kernel::{ApprovalMode, ParseApprovalModeError};

/// What the policy decided. `Allow` and `Ask` carry the call on: an
/// allowed call is already authorised; an asked one becomes authorised
/// only through the user's recorded approval.
#[derive(Debug, PartialEq)]
pub enum PolicyDecision {
    Allow(AuthorizedCall),
    Ask(ApprovalRequest),
    Deny { reason: String },
}

/// A trusted profile's rule for one tool (an MCP server's, by its exposed
/// name): it decides instead of the tool's effect and the mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRule {
    pub decision: RuleDecision,
    /// Shown in the approval and the refusal, e.g. `mcp_rules."everything.echo" = ask`.
    pub rule: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub mode: ApprovalMode,
    /// The sandbox switch and the command rules (from the trusted profile).
    pub commands: CommandSettings,
    /// Exposed tool name → its rule (MCP tools only).
    pub tool_rules: BTreeMap<String, ToolRule>,
    /// Plan mode: only calls that read are decided as usual; the rest are
    /// refused without asking.
    pub planning: bool,
}

/// What the model is told when plan mode refuses a call.
pub const PLAN_MODE_REFUSAL: &str = "plan mode: this run only reads and plans, so writes, edits, commands and tools that act are refused. Finish with your plan as the final answer; it is carried out after the user approves it";

impl Policy {
    pub fn new(mode: ApprovalMode) -> Self {
        Self {
            mode,
            commands: CommandSettings::default(),
            tool_rules: BTreeMap::new(),
            planning: false,
        }
    }

    pub fn planning(mut self, planning: bool) -> Self {
        self.planning = planning;
        self
    }

    pub fn with_tool_rules(mut self, rules: BTreeMap<String, ToolRule>) -> Self {
        self.tool_rules = rules;
        self
    }

    /// The rule that decides this tool, if the profile has one.
    pub fn tool_rule(&self, spec: &ToolSpec) -> Option<&ToolRule> {
        self.tool_rules.get(spec.name.as_str())
    }

    pub fn with_commands(mut self, commands: CommandSettings) -> Self {
        self.commands = commands;
        self
    }

    pub fn decide(&self, spec: &ToolSpec, call: PreparedCall) -> PolicyDecision {
        if *call.tool() != spec.name {
            return deny(format!(
                "the prepared call is for {} but the spec is {}",
                call.tool(),
                spec.name
            ));
        }
        let runs_command = spec.effect == Effect::RunsCommand
            || call.effect() == Effect::RunsCommand
            || call.command_plan().is_some();
        if self.planning && !reads_only(spec, &call) {
            return deny(PLAN_MODE_REFUSAL.into());
        }
        if runs_command {
            return self.decide_command(spec, call);
        }
        let external = spec.effect == Effect::External || call.effect() == Effect::External;
        if external || (spec.effect == Effect::ReadOnly && self.tool_rule(spec).is_some()) {
            return self.decide_external(spec, call, external);
        }
        // The stronger of the two declarations wins; the spec is trusted.
        let writes = spec.effect == Effect::Writes
            || call.effect() == Effect::Writes
            || call.write_target().is_some();
        if writes {
            let Some(target) = call.write_target() else {
                return deny("a writing call must name its target file".into());
            };
            if let Some(reason) = refused_target(&target.rel_path) {
                return deny(reason);
            }
            if in_project_folder(&target.rel_path) {
                return PolicyDecision::Ask(ApprovalRequest::firm(call, FirmAsk::ProjectFolder));
            }
        }
        match (self.mode, writes) {
            (ApprovalMode::AllowAll, _) | (ApprovalMode::AskWrites, false) => {
                PolicyDecision::Allow(AuthorizedCall::by_policy(call))
            }
            (ApprovalMode::AskAll, _) | (ApprovalMode::AskWrites, true) => {
                PolicyDecision::Ask(ApprovalRequest::new(call))
            }
        }
    }
}

/// The call only reads: neither the spec nor the call says it writes,
/// runs a command or acts outside.
fn reads_only(spec: &ToolSpec, call: &PreparedCall) -> bool {
    spec.effect == Effect::ReadOnly
        && call.effect() == Effect::ReadOnly
        && call.write_target().is_none()
        && call.command_plan().is_none()
}

impl Policy {
    /// An MCP tool: a profile rule decides if there is one (a deny refuses
    /// it in every mode); otherwise a tool that is not read-only asks
    /// unless the mode allows everything.
    fn decide_external(
        &self,
        spec: &ToolSpec,
        call: PreparedCall,
        external: bool,
    ) -> PolicyDecision {
        if call.write_target().is_some() || spec.effect == Effect::Writes {
            return deny(format!(
                "{} cannot both write a file and act outside",
                spec.name
            ));
        }
        if let Some(rule) = self.tool_rule(spec) {
            return match rule.decision {
                RuleDecision::Deny => deny(format!("{} → deny", rule.rule)),
                RuleDecision::Ask => PolicyDecision::Ask(ApprovalRequest::new(call)),
                // `allow-network` is refused in MCP rules when the config
                // loads; an MCP tool has no sandbox network to grant.
                RuleDecision::Allow | RuleDecision::AllowNetwork => {
                    PolicyDecision::Allow(AuthorizedCall::by_policy(call))
                }
            };
        }
        match (self.mode, external) {
            (ApprovalMode::AllowAll, _) | (ApprovalMode::AskWrites, false) => {
                PolicyDecision::Allow(AuthorizedCall::by_policy(call))
            }
            (ApprovalMode::AskAll, _) | (ApprovalMode::AskWrites, true) => {
                PolicyDecision::Ask(ApprovalRequest::new(call))
            }
        }
    }

    /// What the command rules say about a command call (None for any other
    /// call). Pure: the runtime shows the same verdict the policy used.
    pub fn command_verdict(&self, call: &PreparedCall) -> Option<RuleVerdict> {
        let plan = call.command_plan()?;
        Some(evaluate(&plan.command, &self.commands.rules))
    }

    /// A command: a deny rule refuses it in every mode; without the sandbox
    /// every command asks; an allow rule runs it without asking; a command
    /// no rule covers asks, unless the mode allows everything; one the
    /// parser cannot prove harmless always asks.
    fn decide_command(&self, spec: &ToolSpec, call: PreparedCall) -> PolicyDecision {
        if spec.effect != Effect::RunsCommand {
            return deny(format!("{} does not run commands", spec.name));
        }
        let Some(verdict) = self.command_verdict(&call) else {
            return deny("a command call must carry its command".into());
        };
        let why = describe_verdict(&verdict);
        match verdict.decision {
            RuleDecision::Deny => deny(why),
            _ if !self.commands.sandbox => {
                PolicyDecision::Ask(ApprovalRequest::firm(call, FirmAsk::SandboxOff))
            }
            RuleDecision::Allow => PolicyDecision::Allow(AuthorizedCall::by_policy(call)),
            RuleDecision::AllowNetwork => {
                PolicyDecision::Allow(AuthorizedCall::by_policy_with_network(call))
            }
            RuleDecision::Ask => match (&verdict.basis, self.mode) {
                (VerdictBasis::NoRule { .. }, ApprovalMode::AllowAll) => {
                    PolicyDecision::Allow(AuthorizedCall::by_policy(call))
                }
                (VerdictBasis::Unprovable { .. }, _) => {
                    PolicyDecision::Ask(ApprovalRequest::firm(call, FirmAsk::Unprovable))
                }
                _ => PolicyDecision::Ask(ApprovalRequest::new(call)),
            },
        }
    }
}

/// One line naming the rule that decided, or why the command is asked
/// about: recorded on the command and shown in its approval.
pub fn describe_verdict(v: &RuleVerdict) -> String {
    match &v.basis {
        VerdictBasis::Rule { prefix, decision } => format!("rule `{prefix}` → {decision}"),
        VerdictBasis::NoRule { command } => format!("no rule matches `{command}` → ask"),
        VerdictBasis::Unprovable { reason } => {
            format!("cannot be checked against the rules ({reason}) → ask")
        }
    }
}

/// Defence in depth: even if `prepare` let it through, never write inside
/// `.git` or to a target that is not a plain workspace-relative path.
fn refused_target(rel: &str) -> Option<String> {
    let path = Path::new(rel);
    if rel.is_empty() || rel == "." || rel.contains('\0') {
        return Some(format!("invalid write target {rel:?}"));
    }
    if has_git_component(path) {
        return Some(format!("writes inside .git are never allowed ({rel})"));
    }
    let plain = path.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Some(format!(
            "write target {rel} is not a plain workspace-relative path"
        ));
    }
    None
}

/// The workspace's own `.bearagent/` folder (ASCII case-insensitively, for
/// case-insensitive file systems): project hooks and their scripts.
fn in_project_folder(rel: &str) -> bool {
    Path::new(rel)
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .is_some_and(|first| first.eq_ignore_ascii_case(".bearagent"))
}

fn deny(reason: String) -> PolicyDecision {
    PolicyDecision::Deny { reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::WriteTarget;
    use bearagent_kernel::ToolName;
    use serde_json::json;
    use std::path::PathBuf;

    fn spec(name: &str, effect: Effect) -> ToolSpec {
        ToolSpec {
            name: ToolName::new(name).unwrap(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            effect,
        }
    }

    fn call(name: &str, effect: Effect, target: Option<&str>) -> PreparedCall {
        let tool = ToolName::new(name).unwrap();
        let call = match target {
            Some(rel) => PreparedCall::writes(
                tool,
                String::new(),
                WriteTarget {
                    rel_path: rel.into(),
                    abs_path: PathBuf::from("/ws").join(rel),
                },
                json!({}),
            ),
            None => PreparedCall::read_only(tool, String::new(), json!({})),
        };
        call.forged(None, Some(effect), false)
    }

    fn is_allow(d: &PolicyDecision) -> bool {
        matches!(d, PolicyDecision::Allow(_))
    }

    fn is_ask(d: &PolicyDecision) -> bool {
        matches!(d, PolicyDecision::Ask(_))
    }

    #[test]
    fn modes_parse_from_short_and_long_names() {
        assert_eq!("ask".parse(), Ok(ApprovalMode::AskAll));
        assert_eq!("reads".parse(), Ok(ApprovalMode::AskWrites));
        assert_eq!(" ALL ".parse(), Ok(ApprovalMode::AllowAll));
        assert_eq!("ask_writes".parse(), Ok(ApprovalMode::AskWrites));
        assert!("sometimes".parse::<ApprovalMode>().is_err());
        assert_eq!(
            serde_json::to_value(ApprovalMode::AskWrites).unwrap(),
            json!("ask_writes")
        );
        assert_eq!(
            serde_json::from_value::<ApprovalMode>(json!("allow_all")).unwrap(),
            ApprovalMode::AllowAll
        );
    }

    #[test]
    fn ask_all_asks_for_everything() {
        let p = Policy::new(ApprovalMode::AskAll);
        let read = spec("read_file", Effect::ReadOnly);
        let write = spec("write_file", Effect::Writes);
        assert!(is_ask(
            &p.decide(&read, call("read_file", Effect::ReadOnly, None))
        ));
        assert!(is_ask(&p.decide(
            &write,
            call("write_file", Effect::Writes, Some("a.md"))
        )));
    }

    #[test]
    fn ask_writes_allows_reads_and_asks_writes() {
        let p = Policy::new(ApprovalMode::AskWrites);
        let read = spec("read_file", Effect::ReadOnly);
        let write = spec("write_file", Effect::Writes);
        assert!(is_allow(
            &p.decide(&read, call("read_file", Effect::ReadOnly, None))
        ));
        assert!(is_ask(&p.decide(
            &write,
            call("write_file", Effect::Writes, Some("a.md"))
        )));
    }

    #[test]
    fn a_write_into_the_project_folder_asks_firmly_in_every_mode() {
        let write = spec("write_file", Effect::Writes);
        for mode in [
            ApprovalMode::AllowAll,
            ApprovalMode::AskWrites,
            ApprovalMode::AskAll,
        ] {
            for target in [".bearagent/hooks.toml", ".BearAgent/check.py"] {
                let decision = Policy::new(mode)
                    .decide(&write, call("write_file", Effect::Writes, Some(target)));
                let PolicyDecision::Ask(request) = decision else {
                    panic!("{target} in {mode:?}: {decision:?}");
                };
                assert_eq!(request.firm_reason(), Some(FirmAsk::ProjectFolder));
                assert!(!request.standing_approval_reaches());
            }
        }
        let nested = Policy::new(ApprovalMode::AllowAll).decide(
            &write,
            call("write_file", Effect::Writes, Some("docs/.bearagent/x")),
        );
        assert!(is_allow(&nested), "only the workspace's own folder");
    }

    #[test]
    fn allow_all_allows_but_still_denies_git_writes() {
        let p = Policy::new(ApprovalMode::AllowAll);
        let write = spec("write_file", Effect::Writes);
        assert!(is_allow(&p.decide(
            &write,
            call("write_file", Effect::Writes, Some("a.md"))
        )));
        for bad in [
            ".git/config",
            "sub/.git/HEAD",
            ".Git/x",
            "../x",
            "/etc/x",
            "",
        ] {
            let decision = p.decide(&write, call("write_file", Effect::Writes, Some(bad)));
            assert!(
                matches!(decision, PolicyDecision::Deny { .. }),
                "{bad}: {decision:?}"
            );
        }
    }

    #[test]
    fn the_trusted_spec_wins_over_the_call() {
        let p = Policy::new(ApprovalMode::AskWrites);
        let write = spec("write_file", Effect::Writes);
        // A call that claims to be read-only is still a write: no target → deny.
        assert!(matches!(
            p.decide(&write, call("write_file", Effect::ReadOnly, None)),
            PolicyDecision::Deny { .. }
        ));
        // With its target it is asked, not allowed.
        assert!(is_ask(&p.decide(
            &write,
            call("write_file", Effect::ReadOnly, Some("a.md"))
        )));
        // A call for another tool is denied.
        assert!(matches!(
            p.decide(&write, call("read_file", Effect::ReadOnly, None)),
            PolicyDecision::Deny { .. }
        ));
    }

    fn command(line: &str) -> (ToolSpec, PreparedCall) {
        let tool = ToolName::new("run_command").unwrap();
        let plan = crate::spec::CommandPlan {
            command: line.into(),
            cwd_rel: ".".into(),
            cwd_abs: PathBuf::from("/ws"),
            timeout_secs: None,
        };
        (
            spec("run_command", Effect::RunsCommand),
            PreparedCall::command(tool, String::new(), plan, json!({})),
        )
    }

    fn with_rules(mode: ApprovalMode, sandbox: bool, rules: &[(&str, RuleDecision)]) -> Policy {
        Policy::new(mode).with_commands(CommandSettings {
            sandbox,
            rules: rules
                .iter()
                .map(|(p, d)| bearagent_kernel::CommandRule {
                    prefix: (*p).into(),
                    decision: *d,
                })
                .collect(),
            ..CommandSettings::default()
        })
    }

    #[test]
    fn commands_follow_their_rules_in_every_mode_and_deny_wins() {
        let rules = [
            ("rm", RuleDecision::Deny),
            ("cargo test", RuleDecision::Allow),
        ];
        for mode in [
            ApprovalMode::AskAll,
            ApprovalMode::AskWrites,
            ApprovalMode::AllowAll,
        ] {
            let p = with_rules(mode, true, &rules);
            let (s, c) = command("cargo test && rm -rf x");
            assert!(
                matches!(p.decide(&s, c), PolicyDecision::Deny { .. }),
                "{mode:?}"
            );
            let (s, c) = command("cargo test --workspace");
            assert!(
                is_allow(&p.decide(&s, c)),
                "an allow rule asks nothing in {mode:?}"
            );
            // Unprovable always asks, whatever the mode.
            let (s, c) = command("cargo test $(whoami)");
            assert!(is_ask(&p.decide(&s, c)), "{mode:?}");
        }
        // No rule: asks, unless everything is allowed.
        let (s, c) = command("make");
        assert!(is_ask(
            &with_rules(ApprovalMode::AskWrites, true, &rules).decide(&s, c)
        ));
        let (s, c) = command("make");
        assert!(is_allow(
            &with_rules(ApprovalMode::AllowAll, true, &rules).decide(&s, c)
        ));
    }

    #[test]
    fn without_the_sandbox_every_command_asks_but_denies_still_deny() {
        let rules = [("rm", RuleDecision::Deny), ("ls", RuleDecision::Allow)];
        let p = with_rules(ApprovalMode::AllowAll, false, &rules);
        let (s, c) = command("ls");
        assert!(is_ask(&p.decide(&s, c)));
        let (s, c) = command("rm x");
        assert!(matches!(p.decide(&s, c), PolicyDecision::Deny { .. }));
    }

    #[test]
    fn a_command_call_and_a_non_command_spec_never_mix() {
        let (_, c) = command("ls");
        let p = with_rules(ApprovalMode::AllowAll, true, &[("ls", RuleDecision::Allow)]);
        let wrong = spec("run_command", Effect::ReadOnly);
        assert!(matches!(p.decide(&wrong, c), PolicyDecision::Deny { .. }));
        let (s, _) = command("ls");
        let read = call("run_command", Effect::ReadOnly, None);
        assert!(matches!(p.decide(&s, read), PolicyDecision::Deny { .. }));
    }

    fn mcp_call(name: &str, read_only: bool) -> PreparedCall {
        PreparedCall::external(
            ToolName::new(name).unwrap(),
            String::new(),
            json!({}),
            read_only,
        )
    }

    fn rule(decision: RuleDecision) -> BTreeMap<String, ToolRule> {
        BTreeMap::from([(
            "srv__t".to_owned(),
            ToolRule {
                decision,
                rule: "mcp_rules.srv = x".into(),
            },
        )])
    }

    #[test]
    fn an_mcp_tool_that_is_not_read_only_asks_like_a_write() {
        let ext = spec("srv__t", Effect::External);
        for (mode, allowed) in [
            (ApprovalMode::AskAll, false),
            (ApprovalMode::AskWrites, false),
            (ApprovalMode::AllowAll, true),
        ] {
            let d = Policy::new(mode).decide(&ext, mcp_call("srv__t", false));
            assert_eq!(is_allow(&d), allowed, "{mode:?}");
            assert_eq!(is_ask(&d), !allowed, "{mode:?}");
        }
        // A read-only MCP tool runs in `reads` mode.
        let read = spec("srv__t", Effect::ReadOnly);
        assert!(is_allow(
            &Policy::new(ApprovalMode::AskWrites).decide(&read, mcp_call("srv__t", true))
        ));
        // The stronger declaration wins either way round.
        assert!(is_ask(
            &Policy::new(ApprovalMode::AskWrites).decide(&read, mcp_call("srv__t", false))
        ));
        assert!(is_ask(
            &Policy::new(ApprovalMode::AskWrites).decide(&ext, mcp_call("srv__t", true))
        ));
    }

    #[test]
    fn a_profile_rule_decides_an_mcp_tool_in_every_mode() {
        let ext = spec("srv__t", Effect::External);
        let read = spec("srv__t", Effect::ReadOnly);
        let deny_all =
            Policy::new(ApprovalMode::AllowAll).with_tool_rules(rule(RuleDecision::Deny));
        match deny_all.decide(&read, mcp_call("srv__t", true)) {
            PolicyDecision::Deny { reason } => {
                assert!(reason.contains("mcp_rules.srv"), "{reason}")
            }
            other => panic!("expected a deny, got {other:?}"),
        }
        let allow = Policy::new(ApprovalMode::AskAll).with_tool_rules(rule(RuleDecision::Allow));
        assert!(is_allow(&allow.decide(&ext, mcp_call("srv__t", false))));
        let ask = Policy::new(ApprovalMode::AllowAll).with_tool_rules(rule(RuleDecision::Ask));
        assert!(is_ask(&ask.decide(&read, mcp_call("srv__t", true))));
        // A rule never reaches a workspace tool of another name.
        let other = spec("read_file", Effect::ReadOnly);
        assert!(is_allow(
            &deny_all.decide(&other, call("read_file", Effect::ReadOnly, None))
        ));
    }
}
