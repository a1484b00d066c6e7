//! What the gate and control need from an agent, as one trait each agent implements in its own
//! folder ([`super::claude`], [`super::gemini`], [`super::codex`]): how it is launched and
//! resumed, what its screen says (working, input box, approval card, menus), its hooks, how a
//! decision reaches it (its waiting hook, its card's keys, its composer), and how its transcript
//! tells that its plan-approval call got an answer. [`super::driver`] is the one place that picks
//! an agent's driver; nothing else matches on the agent.

use std::path::Path;

use crate::config::Roots;
use crate::control::{ControlError, Record};
use crate::gate::transcript::Answer;
use crate::gate::{HookOutcome, SendError};
use crate::terminal::Target;

use super::{Agent, ApprovalCard};

/// An agent's CLI as installed: the program on the PATH, and the npm package it comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cli {
    pub program: &'static str,
    pub package: &'static str,
}

/// What an agent's input line holds, read from its screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// No input line is drawn (why, in a person's words: "no input box on screen").
    Absent(&'static str),
    /// It holds a draft someone is typing (its first characters).
    Draft(String),
    /// It is drawn and empty: the agent waits for input.
    Empty,
}

/// What a launch asks of an agent's command line ([`Driver::launch_args`]).
#[derive(Debug, Clone, Default)]
pub struct Launch<'a> {
    /// Start in plan mode.
    pub plan: bool,
    /// The session id it is given ([`Driver::names_its_session`]).
    pub session_id: Option<&'a str>,
    /// The first prompt, trimmed, not empty.
    pub prompt: Option<String>,
}

impl Launch<'_> {
    /// The start of a launch line: `--session-id <id>` when one is given, then
    /// `<mode_flag> plan` in plan mode.
    pub(crate) fn session_and_mode(&self, mode_flag: &str) -> Vec<String> {
        let mut argv = Vec::new();
        if let Some(id) = self.session_id {
            argv.extend(["--session-id".into(), id.into()]);
        }
        if self.plan {
            argv.extend([mode_flag.into(), "plan".into()]);
        }
        argv
    }

    /// The first prompt as the agent's argument ([`prompt_arg`]).
    pub(crate) fn prompt_arg(&self) -> Option<String> {
        self.prompt.as_deref().map(prompt_arg)
    }
}

/// One hook Plandeck installs into an agent's settings and runs as `plandeck hook <name>`.
#[derive(Debug, Clone, Copy)]
pub struct HookRun {
    /// `plandeck hook <name>` (`claude`, `claude-stop`, `gemini`).
    pub name: &'static str,
    /// What `plandeck hook --help` says of it.
    pub help: &'static str,
    /// Runs it on the hook's stdin.
    pub run: fn(&Roots, &[u8]) -> HookOutcome,
    /// What it prints when it cannot run at all (no folders to read): the answer that lets the
    /// agent go on as if no hook were there.
    pub no_answer: &'static str,
}

/// An agent as the gate and control drive it. Every method has the agent's own answer; an agent
/// without a part (no hook, no card, no CLI to start) says so, never another agent's.
pub trait Driver: Sync {
    /// The agent driven.
    fn agent(&self) -> Agent;

    // --- Launch and resume.

    /// Its CLI, when Plandeck can start it.
    fn cli(&self) -> Option<Cli>;

    /// The arguments after the program that start it in `cwd` as `launch` asks.
    fn launch_args(&self, launch: Launch<'_>) -> Vec<String>;

    /// Whether it takes the session id it runs under on its command line (else its session is
    /// found from its process, [`Driver::session_of_process`]).
    fn names_its_session(&self) -> bool;

    /// What is left to do once it is up in its pane (Codex CLI: switching to Plan mode in the
    /// composer, then the first prompt).
    fn after_launch(
        &self,
        _record: &Record,
        _plan: bool,
        _prompt: Option<&str>,
    ) -> Result<(), ControlError> {
        Ok(())
    }

    /// The session id of an agent started without one, from a file its processes hold open
    /// (`path`: where one of its open files points).
    fn session_of_open_file(&self, _path: &Path) -> Option<String> {
        None
    }

    /// Its live session `id` that Plandeck did not start, as the pane to type into: `Ok(None)`
    /// when it has no such session (or cannot find one).
    fn live_session(&self, _roots: &Roots, _id: &str) -> Result<Option<Target>, SendError> {
        Ok(None)
    }

    /// The arguments after the program that resume its session `session_id`: `--resume <id>`
    /// unless it says otherwise (Claude Code and Gemini CLI take that).
    fn resume_args(&self, session_id: &str) -> Vec<String> {
        vec!["--resume".into(), session_id.into()]
    }

    // --- Its screen.

    /// Words shown on screen while it works on a turn.
    fn working(&self) -> Option<&'static str>;

    /// Its plan-approval card, when Plandeck can answer one.
    fn card(&self) -> Option<ApprovalCard> {
        self.agent().descriptor().and_then(|d| d.approval_card)
    }

    /// Whether its plan-approval card is on `screen`: two of its labels are.
    fn card_visible(&self, screen: &str) -> bool {
        self.card().is_some_and(|card| card.visible_on(screen))
    }

    /// Whether a menu whose choices a typed key could pick is open on `screen`.
    fn menu_open(&self, screen: &str) -> bool {
        self.card_visible(screen)
    }

    /// What its input line holds, from a plain capture (`screen`) and one with its styles
    /// (`styled`).
    fn input(&self, screen: &str, styled: &str) -> Input;

    /// The draft in its input line that a plain capture shows, if any (checked again right
    /// before typing).
    fn draft(&self, _screen: &str) -> Option<String> {
        None
    }

    // --- Hooks.

    /// The hooks `plandeck hook <name>` runs for it.
    fn hooks(&self) -> &'static [HookRun] {
        &[]
    }

    /// Whether it has the teammate gate (agent teams).
    fn team_gate(&self) -> bool {
        false
    }

    // --- How a decision reaches it.

    /// Whether a decision goes to its waiting hook while the hook runs (a rejection as `deny`,
    /// an approval as `allow` with the plan), never by keys.
    fn decides_through_hook(&self) -> bool {
        false
    }

    /// The message that carries a rejection's feedback or an edited plan when it takes them as
    /// a message typed in its composer (after its card's feedback choice closed the card), not
    /// on the card: `None` when it takes them on its card. `edited`: the edited plan; else the
    /// feedback.
    fn composer_message(&self, _feedback: Option<&str>, _edited: Option<&str>) -> Option<String> {
        None
    }

    // --- Its transcript.

    /// Whether a request's watch starts at the latest plan-approval call in its transcript (with
    /// its id), not at the transcript's end.
    fn locates_call(&self) -> bool {
        false
    }

    /// Whether `line` of its transcript answers the plan-approval call, and who answered.
    /// `call`: the id of the latest call seen (a later call replaces it).
    fn answer_in(&self, call: &mut Option<String>, line: &[u8]) -> Option<Answer>;
}

/// A prompt as the agent's argument: one starting with `-` would be read as an option.
pub(crate) fn prompt_arg(prompt: &str) -> String {
    if prompt.starts_with('-') {
        format!(" {prompt}")
    } else {
        prompt.to_owned()
    }
}

/// Whether `argv` runs `cli`: the program (or the script an interpreter runs) is the CLI's
/// executable or lies in its package. A shell, an editor, anything else is not.
pub fn runs(cli: Cli, argv: &[String]) -> bool {
    const INTERPRETERS: &[&str] = &["node", "bash", "sh", "dash", "python3", "python", "env"];
    let (name, package) = (cli.program, cli.package);
    let base = |w: &str| {
        Path::new(w)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    let Some(first) = argv.first() else {
        return false;
    };
    let program = base(first).unwrap_or_default();
    let program = program.trim_start_matches('-');
    if program == name {
        return true;
    }
    let interpreter = INTERPRETERS.iter().any(|i| {
        program == *i || program.starts_with(&format!("{i}2")) || program.starts_with("node")
    });
    if !interpreter {
        return false;
    }
    let mut rest = argv[1..].iter();
    // `bash -c claude` is a shell that runs a command: the shell is not the agent.
    rest.find(|w| !w.starts_with('-') || matches!(w.as_str(), "-c" | "-e" | "--eval"))
        .filter(|w| !w.starts_with('-'))
        .is_some_and(|script| base(script).as_deref() == Some(name) || script.contains(package))
}

/// The driver of a plan from a folder the person added: no CLI, no card, no hook.
pub(crate) struct Unknown;

impl Driver for Unknown {
    fn agent(&self) -> Agent {
        Agent::Other
    }
    fn cli(&self) -> Option<Cli> {
        None
    }
    fn launch_args(&self, _: Launch<'_>) -> Vec<String> {
        Vec::new()
    }
    fn names_its_session(&self) -> bool {
        false
    }
    fn resume_args(&self, _: &str) -> Vec<String> {
        Vec::new()
    }
    fn working(&self) -> Option<&'static str> {
        None
    }
    fn input(&self, _: &str, _: &str) -> Input {
        Input::Absent("no input box on screen")
    }
    fn answer_in(&self, _: &mut Option<String>, _: &[u8]) -> Option<Answer> {
        None
    }
}
