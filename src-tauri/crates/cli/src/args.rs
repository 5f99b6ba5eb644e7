use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "bearagent",
    version,
    about = "BearAgent, headless: run a coding agent on a workspace and inspect past runs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on a workspace until it answers, fails or runs out of budget.
    Run(Box<RunArgs>),
    /// List runs, newest first.
    Runs(RunsArgs),
    /// Show one run's state.
    Inspect(InspectArgs),
    /// Print a run's events.
    Events(EventsArgs),
    /// List the files a run created, changed or deleted.
    Changes(ChangesArgs),
    /// Put a run's files back to how they were before the run.
    Revert(RevertArgs),
    /// Put every file the run changed after an event back to how it was
    /// then (`--to SEQ`, as `events` numbers them), or undo the last
    /// rewind (`--redo`).
    Rewind(RewindArgs),
    /// Summarise a finished run's conversation now, so its next follow-up
    /// (`run --continue`) starts from the summary.
    Compact(InspectArgs),
    /// Check the configuration file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Work with model providers.
    #[command(subcommand)]
    Providers(ProvidersCommand),
    /// MCP servers from the config.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Show what a command of a profile sees: home folders, configuration,
    /// credentials kept hidden, PATH, network.
    Sandbox {
        #[arg(long, default_value = "default")]
        profile: String,
        #[arg(long)]
        json: bool,
    },
    /// Apply a worktree run's changes to the main checkout (every file it
    /// changed, or the PATHs given); conflicting files are refused by name.
    Apply(ApplyArgs),
    /// Export a run: `--bundle FILE` writes one file with the run, the runs
    /// it continues and their blobs (for `bearagent import` elsewhere);
    /// otherwise a JSON export and a Markdown report into `--dir`.
    Export(ExportArgs),
    /// Import a run bundle as a read-only run (inspect it, fork it).
    Import(ImportArgs),
    /// Re-drive a finished run from its record with this build's loop
    /// (nothing executes): `identical` (exit 0) or where it first differs
    /// (exit 1).
    Replay(ReplayArgs),
    /// Remove a worktree run's worktree and branch without applying it.
    Discard(InspectArgs),
    /// List the worktrees runs made (`prune`: remove those applied or
    /// discarded).
    Worktrees(WorktreesArgs),
    /// Approvals remembered beyond a run (`P WORDS` at the prompt, or the
    /// app's "remember"): list them, or `forget N`.
    Rules(RulesArgs),
    /// Hooks: the user's (config file) and the workspace's project hooks
    /// with their trust state; `trust` lets the project file as it is now
    /// run, `untrust` takes that back.
    Hooks(HooksArgs),
    /// Serve the Agent Client Protocol on stdin/stdout, for an editor that
    /// hosts agents (Zed, JetBrains, Neovim, Emacs): each session is a
    /// BearAgent thread, each prompt a run with BearAgent's own tools,
    /// sandbox, policy and record.
    Acp(AcpArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    pub run_id: String,
    /// Write one bundle file (`.bearagent-run`).
    #[arg(long, value_name = "FILE", conflicts_with = "dir")]
    pub bundle: Option<String>,
    /// Where the JSON export and the Markdown report go (default: here).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// Keep secret values (keys, what `.env` files held, token shapes) in
    /// the bundle instead of redacting them.
    #[arg(long, requires = "bundle")]
    pub include_secrets: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    pub run_id: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A bundle written by `bearagent export RUN_ID --bundle FILE`.
    pub file: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    pub run_id: String,
    /// Only these files (repository-relative); every changed file if none.
    pub paths: Vec<String>,
    /// Put the main checkout back as it was before the run's applies.
    #[arg(long, conflicts_with = "paths")]
    pub undo: bool,
    /// With `--undo`: also replace files changed since the apply (their
    /// content is kept in the record).
    #[arg(long, requires = "undo")]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HooksArgs {
    /// `list` (default), `trust` or `untrust`.
    #[arg(value_parser = ["list", "trust", "untrust"])]
    pub action: Option<String>,
    /// The workspace folder (default: the current folder).
    #[arg(long)]
    pub workspace: Option<String>,
    /// With `trust`: trust only if the file still has this SHA-256.
    #[arg(long)]
    pub sha256: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// `forget`: remove the rule with this id (as listed).
    #[arg(value_parser = ["forget"], requires = "id")]
    pub action: Option<String>,
    /// The rule's id, as `bearagent rules` lists it (stable: it never
    /// shifts when another rule is added or forgotten).
    pub id: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct WorktreesArgs {
    /// `prune`: remove the worktrees whose runs are finished and that were
    /// applied or discarded.
    #[arg(value_parser = ["prune"])]
    pub action: Option<String>,
    /// Also the worktrees already removed (discarded or pruned).
    #[arg(long)]
    pub all: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AcpArgs {
    /// Run profile; "default" unless given.
    #[arg(long)]
    pub profile: Option<String>,
    /// Model provider (a name from the config, a protocol, `demo`, or
    /// `script` with --script); the profile's provider unless given.
    #[arg(long)]
    pub provider: Option<String>,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    /// Script for the scripted provider (JSON steps); implies `--provider script`.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// The approval mode sessions start in (the editor can switch it): ask,
    /// reads, all; the profile's unless given.
    #[arg(long, value_parser = ["ask", "reads", "all"])]
    pub approve: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List the configured MCP servers.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Start a server, show its handshake and tools (or the classified
    /// error), and stop it.
    Test {
        name: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate the config file and list what it defines.
    Check,
}

#[derive(Debug, Subcommand)]
pub enum ProvidersCommand {
    /// Send one tiny streamed request; report latency or the classified error.
    Test(ProviderTestArgs),
    /// Find local model servers (llama.cpp, Ollama, LM Studio, vLLM) on
    /// this machine: their models, windows and tool support.
    Detect(ProviderDetectArgs),
}

#[derive(Debug, Args)]
pub struct ProviderDetectArgs {
    /// One JSON object instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Also probe this loopback port (repeatable; 8080, 11434, 1234 and
    /// 8000 are always probed).
    #[arg(long = "port", value_name = "N")]
    pub ports: Vec<u16>,
    /// Also probe this base URL (repeatable).
    #[arg(long = "url", value_name = "URL")]
    pub urls: Vec<String>,
    /// Write what was found into the config as provider NAME (its window
    /// learned, native tools when the template takes them, else JSON text).
    #[arg(long, value_name = "NAME")]
    pub add: Option<String>,
    /// With --add: the model to use (default: the first one found).
    #[arg(long, requires = "add")]
    pub model: Option<String>,
    /// How long to wait for the servers, in milliseconds.
    #[arg(long, default_value_t = 300)]
    pub timeout_ms: u64,
}

#[derive(Debug, Args)]
pub struct ProviderTestArgs {
    pub name: String,
    #[command(flatten)]
    pub overrides: OverrideArgs,
}

/// One-run overrides of a provider's settings.
#[derive(Debug, Args, Clone, Default)]
pub struct OverrideArgs {
    /// Base URL of the provider, e.g. http://127.0.0.1:8080.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Model name.
    #[arg(long)]
    pub model: Option<String>,
    /// Environment variable holding the API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// How tools reach the model: native, or json-text for models without
    /// tool calling (tools described in the prompt, replies parsed as JSON).
    #[arg(long, value_parser = parse_tool_mode)]
    pub tool_mode: Option<bearagent_runtime::ToolMode>,
}

fn parse_tool_mode(s: &str) -> Result<bearagent_runtime::ToolMode, String> {
    s.parse()
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The workspace folder the agent may read and change (with --continue
    /// or --fork: that run's, unless given).
    #[arg(long, short = 'w', required_unless_present_any = ["continue_run", "fork"])]
    pub workspace: Option<PathBuf>,
    /// Follow up a finished run: the new run's context starts with that
    /// run's conversation; its provider and profile are used unless given.
    #[arg(long = "continue", value_name = "RUN_ID", conflicts_with = "fork")]
    pub continue_run: Option<String>,
    /// Fork a run: like --continue, but only up to its event --at SEQ.
    #[arg(long, value_name = "RUN_ID", requires = "at")]
    pub fork: Option<String>,
    /// The event (seq) of the --fork run to branch at.
    #[arg(long, value_name = "SEQ", requires = "fork")]
    pub at: Option<u64>,
    /// Run profile (budgets, approval mode, context caps); "default" unless
    /// given (or, with --continue/--fork, the parent's).
    #[arg(long)]
    pub profile: Option<String>,
    /// Model provider: a name from the config, a protocol (openai-chat,
    /// openai-responses, anthropic) with --base-url/--model/--api-key-env,
    /// `demo`, or `script` (replays --script FILE offline).
    #[arg(long)]
    pub provider: Option<String>,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    /// Script for the scripted provider (JSON steps); implies `--provider script`.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Which tool calls need approval: ask (every call), reads (reads run,
    /// writes ask), all (nothing asks). Without a terminal, asking denies.
    #[arg(long, value_parser = ["ask", "reads", "all"])]
    pub approve: Option<String>,
    /// Alias of --max-model-calls.
    #[arg(long)]
    pub max_steps: Option<u32>,
    #[arg(long)]
    pub max_model_calls: Option<u32>,
    #[arg(long)]
    pub max_tool_calls: Option<u32>,
    #[arg(long)]
    pub max_input_tokens: Option<u64>,
    #[arg(long)]
    pub max_output_tokens: Option<u64>,
    /// Wall-time budget in seconds.
    #[arg(long)]
    pub max_wall_time: Option<u64>,
    /// Spend limit in USD (needs a provider with a price in the config).
    #[arg(long, value_name = "USD", allow_negative_numbers = true)]
    pub max_cost: Option<f64>,
    /// JSON lines instead of the human timeline.
    #[arg(long)]
    pub json: bool,
    /// Run in a new git worktree of the workspace's repository (optionally
    /// named NAME), on a branch `bearagent/NAME`; the main checkout is not
    /// touched. Apply it with `bearagent apply RUN_ID`. With --fork: a new
    /// worktree from the forked run's worktree (its files as they are).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "", conflicts_with = "continue_run")]
    pub worktree: Option<String>,
    /// With --worktree: the commit to start from (default HEAD).
    #[arg(long, value_name = "REV", requires = "worktree")]
    pub base: Option<String>,
    /// With --worktree: copy the main checkout's uncommitted changes in.
    #[arg(long, requires = "worktree")]
    pub carry_changes: bool,
    /// An image (PNG, JPEG, WebP or GIF, at most 20 MB) that goes with the
    /// goal; repeat for more (at most 8). The model must read images.
    #[arg(long = "image", value_name = "PATH")]
    pub images: Vec<PathBuf>,
    /// Plan first: the run may only read and search; writes, edits and
    /// commands are refused, and its answer is the plan. Carry it out with
    /// `run --continue RUN_ID --approve-plan` (or a reply of your own).
    #[arg(long, conflicts_with = "approve_plan")]
    pub plan: bool,
    /// Let the run hand work to read-only helper runs (the `task` tool):
    /// two levels deep, each helper reserving a share of what is left of
    /// the budget before it starts.
    #[arg(long)]
    pub delegate: bool,
    /// With --continue of a plan run: carry the plan out (the goal may be
    /// left out, or add your comments to the plan).
    #[arg(long, requires = "continue_run")]
    pub approve_plan: bool,
    /// What the agent should achieve.
    #[arg(required_unless_present = "approve_plan")]
    pub goal: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Only runs of this workspace folder.
    #[arg(long, short = 'w')]
    pub workspace: Option<PathBuf>,
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
    /// Only runs imported from run files (`bearagent import`).
    #[arg(long, conflicts_with = "workspace")]
    pub imported: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    pub run_id: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EventsArgs {
    pub run_id: String,
    /// Only events after this sequence number.
    #[arg(long, default_value_t = 0)]
    pub after: u64,
    #[arg(long, default_value_t = 1000)]
    pub limit: u32,
    #[arg(long)]
    pub json: bool,
    /// With its helpers' events (delegation), at any depth, in time order:
    /// indented and labelled, or `child_event` lines with --json.
    #[arg(long)]
    pub children: bool,
}

#[derive(Debug, Args)]
pub struct ChangesArgs {
    pub run_id: String,
    /// One file: its hunks, numbered from 1 (what `revert --hunk` takes).
    pub path: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RewindArgs {
    pub run_id: String,
    /// The event to go back to: files changed after it get what they held
    /// then (0: before the run).
    #[arg(
        long,
        value_name = "SEQ",
        required_unless_present = "redo",
        conflicts_with = "redo"
    )]
    pub to: Option<u64>,
    /// Undo the last rewind: its files get back what it replaced.
    #[arg(long)]
    pub redo: bool,
    /// Rewind even files changed since BearAgent last wrote them (what
    /// they hold is saved, so `--redo` brings it back).
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RevertArgs {
    pub run_id: String,
    /// Only these files (workspace-relative, as `changes` lists them);
    /// without any, every file of the run not yet reverted.
    pub paths: Vec<String>,
    /// Revert even a file changed since the run (what it holds now is
    /// saved, so the revert can be undone).
    #[arg(long)]
    pub force: bool,
    /// Only this hunk of the one file named (as `changes RUN_ID PATH`
    /// numbers them); repeat for several.
    #[arg(long = "hunk", value_name = "N")]
    pub hunks: Vec<u32>,
}
