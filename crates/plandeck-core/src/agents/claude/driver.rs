//! Claude Code as the gate and control drive it ([`Driver`]).

use memchr::memmem;

use crate::agents::driver::{Cli, Driver, HookRun, Input, Launch};
use crate::agents::Agent;
use crate::config::Roots;
use crate::gate::transcript::{Answer, Answerer};
use crate::gate::{HookOptions, SendError};
use crate::sessions::claude::{exit_plan_call, tool_result_decider};
use crate::terminal::Target;

/// Claude Code's driver.
pub struct Claude;

/// The hooks `plandeck hook …` runs for Claude Code.
const HOOKS: &[HookRun] = &[
    HookRun {
        name: "claude",
        help: "Claude Code's plan-approval hook (PermissionRequest on ExitPlanMode)",
        run: |roots, stdin| super::hook::hook_claude(roots, stdin, HookOptions::default()),
        no_answer: "",
    },
    HookRun {
        name: "claude-stop",
        help: "Claude Code's `Stop` hook: blocks stopping while the approved plan has missing steps",
        run: crate::verify::stop_hook::hook_claude_stop,
        no_answer: "",
    },
    HookRun {
        name: "claude-team",
        help: "The teammate gate: Claude Code's `PreToolUse` hook on `ExitPlanMode` that holds an agent team's teammate until its plan is decided here",
        run: |roots, stdin| {
            super::team_hook::hook_claude_team(roots, stdin, HookOptions::default())
        },
        no_answer: "",
    },
];

impl Driver for Claude {
    fn agent(&self) -> Agent {
        Agent::Claude
    }

    fn cli(&self) -> Option<Cli> {
        Some(Cli {
            program: "claude",
            package: "@anthropic-ai/claude-code",
        })
    }

    fn launch_args(&self, launch: Launch<'_>) -> Vec<String> {
        let mut argv = launch.session_and_mode("--permission-mode");
        argv.extend(launch.prompt_arg());
        argv
    }

    fn names_its_session(&self) -> bool {
        true
    }

    fn live_session(&self, roots: &Roots, id: &str) -> Result<Option<Target>, SendError> {
        match super::session::session_target(roots, id) {
            Ok(target) => Ok(Some(target)),
            Err(SendError::NoLiveSession { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn working(&self) -> Option<&'static str> {
        Some(super::WORKING)
    }

    fn menu_open(&self, screen: &str) -> bool {
        super::screen::menu_open(screen)
    }

    fn input(&self, screen: &str, _styled: &str) -> Input {
        if let Some(d) = super::screen::input_draft(screen) {
            return Input::Draft(d);
        }
        if !super::input_box_shown(screen) {
            return Input::Absent("no input box on screen");
        }
        Input::Empty
    }

    fn draft(&self, screen: &str) -> Option<String> {
        super::screen::input_draft(screen)
    }

    fn hooks(&self) -> &'static [HookRun] {
        HOOKS
    }

    fn team_gate(&self) -> bool {
        true
    }

    fn decides_through_hook(&self) -> bool {
        true
    }

    fn locates_call(&self) -> bool {
        true
    }

    fn answer_in(&self, call: &mut Option<String>, line: &[u8]) -> Option<Answer> {
        if memmem::find(line, b"ExitPlanMode").is_some() {
            if let Some(id) = exit_plan_call(line) {
                *call = Some(id);
                return None;
            }
        }
        let id = call.as_deref()?;
        memmem::find(line, id.as_bytes())?;
        tool_result_decider(line, id).map(|d| Answer {
            by: Answerer::from_source(d.source.as_deref()),
            accepted: d.accepted,
        })
    }
}
