//! Gemini CLI as the gate and control drive it ([`Driver`]).

use memchr::memmem;

use crate::agents::driver::{Cli, Driver, HookRun, Input, Launch};
use crate::agents::Agent;
use crate::gate::transcript::Answer;
use crate::gate::HookOptions;

/// Gemini CLI's driver.
pub struct Gemini;

/// The hook `plandeck hook gemini` runs.
const HOOKS: &[HookRun] = &[HookRun {
    name: "gemini",
    help: "Gemini CLI's plan-approval hook (BeforeTool on exit_plan_mode)",
    run: |roots, stdin| super::hook::hook_gemini(roots, stdin, HookOptions::default()),
    // Gemini CLI reads the hook's stdout as JSON: an empty object lets the call go on.
    no_answer: "{}\n",
}];

impl Driver for Gemini {
    fn agent(&self) -> Agent {
        Agent::Gemini
    }

    fn cli(&self) -> Option<Cli> {
        Some(Cli {
            program: "gemini",
            package: "@google/gemini-cli",
        })
    }

    fn launch_args(&self, launch: Launch<'_>) -> Vec<String> {
        let mut argv = launch.session_and_mode("--approval-mode");
        if let Some(p) = launch.prompt_arg() {
            argv.extend(["-i".into(), p]);
        }
        argv
    }

    fn names_its_session(&self) -> bool {
        true
    }

    fn working(&self) -> Option<&'static str> {
        Some(super::WORKING)
    }

    fn input(&self, screen: &str, _styled: &str) -> Input {
        match super::input_draft(screen) {
            None => Input::Absent("no input box on screen"),
            Some(d) if !d.is_empty() => Input::Draft(d),
            Some(_) => Input::Empty,
        }
    }

    fn draft(&self, screen: &str) -> Option<String> {
        super::input_draft(screen).filter(|d| !d.is_empty())
    }

    fn hooks(&self) -> &'static [HookRun] {
        HOOKS
    }

    fn answer_in(&self, _call: &mut Option<String>, line: &[u8]) -> Option<Answer> {
        (memmem::find(line, b"exit_plan_mode").is_some()
            && crate::sessions::gemini::has_plan_response(line))
        .then_some(Answer::UNKNOWN)
    }
}
