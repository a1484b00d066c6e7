//! Codex CLI as the gate and control drive it ([`Driver`]).

use std::path::Path;

use crate::agents::driver::{Cli, Driver, Input, Launch};
use crate::agents::Agent;
use crate::config::Roots;
use crate::control::{ControlError, Record};
use crate::gate::transcript::Answer;
use crate::gate::SendError;
use crate::terminal::Target;

/// Codex CLI's driver.
pub struct Codex;

impl Driver for Codex {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn cli(&self) -> Option<Cli> {
        Some(Cli {
            program: "codex",
            package: "@openai/codex",
        })
    }

    /// Codex CLI has no flag for plan mode: it is switched on in the composer (shift+tab), and
    /// the prompt typed after ([`Driver::after_launch`]).
    fn launch_args(&self, launch: Launch<'_>) -> Vec<String> {
        // Without the shared background app-server the TUI holds its own rollout: the session
        // id is read from it, and no 400 MB copy of Codex is made in its home.
        let mut argv = vec!["--no-daemon".to_owned()];
        if !launch.plan {
            argv.extend(launch.prompt_arg());
        }
        argv
    }

    fn names_its_session(&self) -> bool {
        false
    }

    fn after_launch(
        &self,
        record: &Record,
        plan: bool,
        prompt: Option<&str>,
    ) -> Result<(), ControlError> {
        if plan {
            super::launch::plan_mode(self, record, prompt)?;
        }
        Ok(())
    }

    fn session_of_open_file(&self, path: &Path) -> Option<String> {
        super::server_threads::rollout_session_id(path)
    }

    fn live_session(&self, roots: &Roots, id: &str) -> Result<Option<Target>, SendError> {
        // A Codex TUI the person started, found by its processes (Codex keeps no registry).
        Ok(super::server_threads::live_target(&roots.codex, id))
    }

    fn resume_args(&self, session_id: &str) -> Vec<String> {
        vec!["--no-daemon".into(), "resume".into(), session_id.into()]
    }

    fn working(&self) -> Option<&'static str> {
        Some(super::WORKING)
    }

    fn input(&self, screen: &str, styled: &str) -> Input {
        match super::composer_empty(styled) {
            None => Input::Absent("no composer on screen"),
            Some(false) => Input::Draft(super::composer_text(screen).unwrap_or_default()),
            Some(true) => Input::Empty,
        }
    }

    /// A rejection's feedback, or the edited plan in words that ask the model to propose it,
    /// typed in the composer once the popup is closed with "No, stay in Plan mode".
    fn composer_message(&self, feedback: Option<&str>, edited: Option<&str>) -> Option<String> {
        match (edited, feedback) {
            (Some(edited), _) => Some(super::edited_plan_message(edited)),
            (None, Some(feedback)) => Some(feedback.to_owned()),
            (None, None) => None,
        }
    }

    /// The popup's `1` starts the implementation turn; the person's next message starts a turn
    /// too. (`3` and Esc write nothing: the popup leaving the screen tells those.)
    fn answer_in(&self, _call: &mut Option<String>, line: &[u8]) -> Option<Answer> {
        crate::sessions::codex::starts_turn(line).then_some(Answer::UNKNOWN)
    }
}
